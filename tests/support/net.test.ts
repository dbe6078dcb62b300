/**
 * freePort (tests/support/net.ts): a port for a program to bind soon after lies below the OS's ephemeral range,
 * where no outgoing connection can be given it meanwhile (server/compiled.test.ts once failed with EADDRINUSE).
 */
import fs from "node:fs";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "./net.ts";

const RANGE = "/proc/sys/net/ipv4/ip_local_port_range";

describe("freePort", () => {
  it.runIf(fs.existsSync(RANGE))("gives distinct free ports below the ephemeral range, which a program can bind", async () => {
    const [low] = fs.readFileSync(RANGE, "utf8").trim().split(/\s+/).map(Number);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeLessThan(low);
      expect(port).toBeGreaterThan(1024);
    }
    expect(new Set(ports).size).toBeGreaterThan(15);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(ports[0], "127.0.0.1", resolve));
    await new Promise((resolve) => server.close(resolve));
  });
});
