/**
 * A connection flood against the embedded database's port, as another local account without the password
 * could send it: `node --import tsx db/testing/flood-embedded.ts <port> [seconds] [connections per second]`.
 * Only 127.0.0.1, and bounded: it stops by itself after `seconds` (at most 300) or `seconds × rate`
 * connections, or at SIGTERM. It prints `flooding` when it starts, and at the end one JSON line: how many
 * connections it opened, and how the server ended them. The connections come in three kinds, in turn: ones
 * that send nothing, ones that send a startup message and never answer the password request, and ones that
 * send a frame header declaring a large message and never send it. Each is kept open until the server closes it.
 */
import net from "node:net";
import { startupPacket } from "./wire.ts";

const MAX_SECONDS = 300;
const TICK_MS = 10;
/** Sockets of ours open at once; beyond it, the flood waits for the server to close some. */
const MAX_OPEN = 4000;

export type FloodStats = {
  opened: number;
  failedToConnect: number;
  /** How the server ended them, by the message it sent last ("" when it closed without one). */
  endedBy: Record<string, number>;
  stillOpenAtEnd: number;
  seconds: number;
  /** "signal" when stopped by its caller (SIGTERM), "limit" when it reached its time or count. */
  stoppedBy: "signal" | "limit";
};

/** A startup frame's length field declaring 1 MB, and a few bytes of it. */
const GARBAGE = Buffer.from([0x00, 0x10, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00]);

const KINDS = [() => null, startupPacket, () => GARBAGE] as const;

/** The text (field M) of the ErrorResponse the server sent last, or "" when it sent none. */
function lastError(received: Buffer): string {
  let text = "";
  // The server's messages: a type byte, then an int32 length that counts itself (so at least 4).
  for (let at = 0; at + 5 <= received.length; at += 1 + Math.max(4, received.readInt32BE(at + 1))) {
    if (received[at] !== 0x45) continue; // 'E'
    const fields = received
      .subarray(at + 5, at + 1 + received.readInt32BE(at + 1))
      .toString("utf8")
      .split("\0");
    text = fields.find((field) => field.startsWith("M"))?.slice(1) ?? "";
  }
  return text;
}

export function flood(port: number, seconds: number, perSecond: number): { done: Promise<FloodStats>; stop(): void } {
  const started = Date.now();
  const endAt = started + Math.min(seconds, MAX_SECONDS) * 1000;
  const maxTotal = Math.ceil(Math.min(seconds, MAX_SECONDS) * perSecond);
  const open = new Set<net.Socket>();
  const stats: FloodStats = { opened: 0, failedToConnect: 0, endedBy: {}, stillOpenAtEnd: 0, seconds: 0, stoppedBy: "limit" };
  let stopped = false;
  let finish: (stats: FloodStats) => void = () => {};
  const done = new Promise<FloodStats>((resolve) => (finish = resolve));

  const openOne = (kind: number) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    stats.opened += 1;
    open.add(socket);
    const received: Buffer[] = [];
    let connected = false;
    socket.on("data", (chunk) => received.push(chunk));
    socket.on("error", () => {});
    socket.once("connect", () => {
      connected = true;
      const first = KINDS[kind]();
      if (first) socket.write(first);
    });
    socket.once("close", () => {
      open.delete(socket);
      if (stopped) return;
      if (!connected) stats.failedToConnect += 1;
      else {
        const reason = lastError(Buffer.concat(received));
        stats.endedBy[reason] = (stats.endedBy[reason] ?? 0) + 1;
      }
    });
  };

  const stop = (by: FloodStats["stoppedBy"]) => {
    if (stopped) return;
    stats.stoppedBy = by;
    stopped = true;
    clearInterval(timer);
    stats.stillOpenAtEnd = open.size;
    stats.seconds = (Date.now() - started) / 1000;
    for (const socket of open) socket.destroy();
    finish(stats);
  };

  const perTick = (perSecond * TICK_MS) / 1000;
  let due = 0;
  const timer = setInterval(() => {
    if (Date.now() >= endAt || stats.opened >= maxTotal) return stop("limit");
    // Paced by the clock, not by the ticks: a late tick opens what the missed ones would have.
    due = ((Date.now() - started) / TICK_MS) * perTick;
    while (stats.opened < due && stats.opened < maxTotal && open.size < MAX_OPEN) openOne(stats.opened % KINDS.length);
  }, TICK_MS);
  return { done, stop: () => stop("signal") };
}

if (import.meta.filename === process.argv[1]) {
  const [port, seconds = 10, perSecond = 1000] = process.argv.slice(2).map(Number);
  if (!Number.isInteger(port) || port <= 0) throw new Error("usage: flood-embedded.ts <port> [seconds] [connections per second]");
  const run = flood(port, seconds, perSecond);
  process.stdout.write("flooding\n"); // its caller's clock starts here, not at the spawn (tsx's start takes a while)
  process.once("SIGTERM", () => run.stop());
  process.stdout.write(`${JSON.stringify(await run.done)}\n`);
}
