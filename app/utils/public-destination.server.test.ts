/**
 * The webhook destination guard (issue 32, item 8): an IPv6 address reaches a public IPv4 address only through
 * the forms that embed one (mapped, compatible, SIIT, NAT64), whatever way it is written, and the embedded
 * address is what is checked; any other IPv6 address must be global unicast (2000::/3) outside the special
 * ranges inside it.
 */
import { describe, expect, it } from "vitest";
import { checkDestination, isPublicAddress } from "./public-destination.server.ts";

describe("isPublicAddress", () => {
  it("checks the IPv4 address every IPv6 form carries, in its dotted and hex spellings", () => {
    for (const address of [
      "64:ff9b::7f00:1", // NAT64 (RFC 6052) of 127.0.0.1
      "64:ff9b::127.0.0.1",
      "64:ff9b::a9fe:a9fe", // of 169.254.169.254, the cloud metadata address
      "64:ff9b::a00:1",
      "::7f00:1", // IPv4-compatible ::127.0.0.1, hex
      "::a9fe:a9fe",
      "::127.0.0.1",
      "::ffff:0:7f00:1", // SIIT ::ffff:0:a.b.c.d
      "::ffff:0:127.0.0.1",
      "::ffff:0:a9fe:a9fe",
      "0:0:0:0:0:ffff:7f00:1",
      "::FFFF:7F00:1",
      "::ffff:a00:1",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ["64:ff9b::808:808", "64:ff9b::8.8.8.8", "::ffff:0:808:808", "::ffff:8.8.8.8", "::ffff:808:808"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it("allows only global unicast (2000::/3) for any other IPv6 address, without its special ranges", () => {
    for (const address of [
      "64:ff9b:1::a00:1", // local-use NAT64
      "100::1", // discard
      "::2", // compatible 0.0.0.2
      "1::1",
      "4000::1",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "fe80::1%eth0",
      "fec0::1",
      "ff02::1",
      "2001::1", // Teredo
      "2001:db8::1",
      "2002:7f00:1::1", // 6to4 of 127.0.0.1
      "3fff::1", // documentation (RFC 9637)
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ["2606:4700:4700::1111", "2a00:1450:4001:81b::200e", "2c0f:fb50:4003::1"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it("refuses the same forms written in a webhook URL", async () => {
    for (const url of ["https://[64:ff9b::7f00:1]/hook", "https://[::ffff:0:7f00:1]/hook", "https://[::a9fe:a9fe]/latest"]) {
      await expect(checkDestination(url, { allowPrivate: false }), url).rejects.toThrow(/not a public address/);
    }
  });
});
