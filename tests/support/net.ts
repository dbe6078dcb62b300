/** Small helpers the tests share for ports and waiting. */
import fs from "node:fs";
import net from "node:net";

/** How many ports below the OS's ephemeral range `freePort` draws from. */
const PORTS_BELOW_EPHEMERAL = 12_000;

/** The lowest port the OS gives an outgoing connection or a listen(0) (Linux; elsewhere its usual 32768). */
function ephemeralLow(): number {
  try {
    const [low] = fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    return Number.isInteger(low) ? low : 32768;
  } catch {
    return 32768;
  }
}

function listenOn(port: number): Promise<number | null> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A loopback port free right now, for a program a test starts to listen on soon after. Drawn at random below the
 * OS's ephemeral range: a port the OS picked (listen(0)) could be given, before the program binds it, to any
 * process's outgoing connection (a database client of another test file), and the program would fail with
 * EADDRINUSE. Below the range only another listener can take it.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow() - PORTS_BELOW_EPHEMERAL;
  for (let tries = 0; low > 1024 && tries < 50; tries++) {
    const port = await listenOn(low + Math.floor(Math.random() * PORTS_BELOW_EPHEMERAL));
    if (port !== null) return port;
  }
  const port = await listenOn(0);
  if (port === null) throw new Error("no free loopback port");
  return port;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
