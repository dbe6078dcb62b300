/**
 * Where the server may send a webhook: a public https URL. Its host is resolved and every address it
 * resolves to must be public (not loopback, private, link-local, shared, documentation, multicast,
 * reserved…), when an endpoint is added and again on every delivery, inside the connection itself
 * (`guardedLookup`), so a name re-pointed at an inside address after the check reaches nothing. An IPv6
 * address is public only as a form that carries a public IPv4 address (checked as that address) or as global
 * unicast (2000::/3) outside its special ranges (issue 32, item 8).
 * WEBHOOK_ALLOW_PRIVATE=true (tests, the demo) also allows http and those addresses.
 */
import dns from "node:dns";
import net from "node:net";

const BLOCKED = new net.BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // shared address space (carrier-grade NAT)
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv4");
}
// IPv6 outside the forms that embed an IPv4 address must be global unicast (2000::/3), and not one of the
// special ranges inside it. Everything else (loopback, unspecified, unique local, link-local, site-local,
// multicast, discard, local-use NAT64, reserved…) lies outside 2000::/3.
const GLOBAL_UNICAST = new net.BlockList();
GLOBAL_UNICAST.addSubnet("2000::", 3, "ipv6");
for (const [network, prefix] of [
  ["2001::", 23], // IETF protocol assignments (Teredo, which hides an IPv4 address, ORCHID…)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4, which embeds any IPv4 address
  ["3fff::", 20], // documentation (RFC 9637)
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv6");
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail made two groups, a zone dropped). */
function ipv6Groups(address: string): number[] {
  const text = address.toLowerCase().replace(/%.*$/, "");
  const halves = text.split("::");
  const groupsOf = (half: string) =>
    half === ""
      ? []
      : half.split(":").flatMap((part) => {
          if (!part.includes(".")) return [parseInt(part, 16)];
          const [a, b, c, d] = part.split(".").map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const head = groupsOf(halves[0]);
  const tail = halves.length > 1 ? groupsOf(halves[1]) : [];
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

const zeros = (groups: number[], from: number, to: number) => groups.slice(from, to).every((group) => group === 0);

/**
 * The IPv4 address an IPv6 address carries, in every form that makes a connection reach it: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, which also covers :: and ::1), SIIT (::ffff:0:a.b.c.d) and
 * the well-known NAT64 prefix (64:ff9b::a.b.c.d), whether written dotted or in hex. Null for any other.
 */
function embeddedIpv4(address: string): string | null {
  const groups = ipv6Groups(address);
  const carries =
    (zeros(groups, 0, 5) && (groups[5] === 0 || groups[5] === 0xffff)) ||
    (zeros(groups, 0, 4) && groups[4] === 0xffff && groups[5] === 0) ||
    (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(groups, 2, 6));
  if (!carries) return null;
  return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join(".");
}

/** Whether the server may connect to this IP address for a webhook. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !BLOCKED.check(address, "ipv4");
  if (family !== 6) return false;
  const v4 = embeddedIpv4(address);
  if (v4 !== null) return isPublicAddress(v4);
  const bare = address.replace(/%.*$/, "");
  return GLOBAL_UNICAST.check(bare, "ipv6") && !BLOCKED.check(bare, "ipv6");
}

export class DestinationError extends Error {}

export type Lookup = (hostname: string) => Promise<string[]>;

const systemLookup: Lookup = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** How long resolving a destination may take when an endpoint is added. */
const LOOKUP_TIMEOUT_MS = 5000;

/** The URL's form: https (or http when private destinations are allowed), no credentials, a host. */
export function checkDestinationUrl(text: string, allowPrivate: boolean): URL {
  const url = URL.canParse(text) ? new URL(text) : null;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) throw new DestinationError("url must be an https:// URL");
  if (url.protocol === "http:" && !allowPrivate) throw new DestinationError("url must be an https:// URL (http is not allowed)");
  if (url.username || url.password) throw new DestinationError("url must not carry a user name or password");
  if (!url.hostname) throw new DestinationError("url must name a host");
  return url;
}

function bareHost(url: URL): string {
  // [::1] in a URL is ::1 to the resolver.
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/**
 * The URL as an endpoint may be added with: its form, then its host resolved, every address public
 * (unless private destinations are allowed). A DestinationError says what is wrong, in words for the admin.
 */
export async function checkDestination(text: string, options: { allowPrivate: boolean; lookup?: Lookup }): Promise<URL> {
  const url = checkDestinationUrl(text, options.allowPrivate);
  if (options.allowPrivate) return url;
  const host = bareHost(url);
  const addresses = net.isIP(host) ? [host] : await resolveWithin(options.lookup ?? systemLookup, host);
  const inside = addresses.find((address) => !isPublicAddress(address));
  if (inside) throw new DestinationError(`url's host ${host} resolves to ${inside}, which is not a public address`);
  return url;
}

async function resolveWithin(lookup: Lookup, host: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const addresses = await Promise.race([
      lookup(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DestinationError(`url's host ${host} did not resolve within 5 s`)), LOOKUP_TIMEOUT_MS);
      }),
    ]);
    if (addresses.length === 0) throw new DestinationError(`url's host ${host} does not resolve`);
    return addresses;
  } catch (error) {
    if (error instanceof DestinationError) throw error;
    throw new DestinationError(`url's host ${host} does not resolve`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A `lookup` for http.request that refuses to connect anywhere not public: the check happens on the very
 * addresses the socket connects to. Its error carries `code: "EDESTINATION"`.
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses;
      const inside = allowPrivate ? undefined : list.find((entry) => !isPublicAddress(entry.address));
      if (inside) {
        const refusal = Object.assign(new Error(`${hostname} resolves to ${inside.address}, which is not a public address`), {
          code: "EDESTINATION",
        });
        return callback(refusal, "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
