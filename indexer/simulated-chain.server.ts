/**
 * A simulated chain for demo mode and tests: a small HTTP server speaking the two wonky-ord endpoints the
 * indexer uses (`GET /inscription/{id}?json=true`, `GET /block-count`) over in-memory owners, so the real
 * ord client is what gets exercised. A transfer is confirmed at once in a new block.
 *
 * Control routes (loopback only, for browser tests): POST /control/transfer {inscriptionId, to},
 * POST /control/mine {blocks?}, POST /control/fail {mode, times?, inscriptionId?, route?}.
 * Fault injection (`failNext`) makes the next answers misbehave the way a real server can.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { isDogecoinAddress } from "../app/domain/address.ts";
import { addressOfPrivateKey } from "../app/domain/signature.ts";

export const FAULT_MODES = [
  "timeout", // never answers (until the chain closes)
  "server-error", // 500
  "not-found", // 404
  "html", // 200 with an HTML page
  "garbage", // 200 with a body that is not JSON
  "invalid-address", // JSON whose address is not a Dogecoin address
  "bad-satpoint", // JSON whose satpoint is not txid:vout:offset
  "wrong-id", // JSON about another inscription
  "reset", // the connection is dropped
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];
export type FaultRoute = "inscription" | "block-count";
export type FaultOptions = { times?: number; inscriptionId?: string; route?: FaultRoute };

export type SimulatedChain = {
  url: string;
  height(): number;
  ownerOf(inscriptionId: string): string | undefined;
  satpointOf(inscriptionId: string): string | undefined;
  /** Moves an inscription to `toAddress`, confirmed in a new block. */
  transfer(inscriptionId: string, toAddress: string): void;
  /** Mines `blocks` empty blocks (default 1); returns the new height. */
  mine(blocks?: number): number;
  /** The next `times` (default 1) matching requests misbehave as `mode`. */
  failNext(mode: FaultMode, options?: FaultOptions): void;
  clearFaults(): void;
  /** Delay every answer by `ms` (to observe concurrency). */
  setLatency(ms: number): void;
  stats(): { requests: number; maxInFlight: number };
  resetStats(): void;
  close(): Promise<void>;
};

type Entry = { address: string; satpoint: string; number: number; genesisHeight: number };
type Fault = { mode: FaultMode; remaining: number; inscriptionId?: string; route: FaultRoute };

const START_HEIGHT = 5_000_000;
const MAX_CONTROL_BODY = 16 * 1024;

const TransferBody = z.object({ inscriptionId: z.string().min(1), to: z.string().min(1) });
const MineBody = z.object({ blocks: z.number().int().min(1).max(10_000).optional() });
const FailBody = z.object({
  mode: z.enum(FAULT_MODES),
  times: z.number().int().min(1).max(1_000_000).optional(),
  inscriptionId: z.string().optional(),
  route: z.enum(["inscription", "block-count"]).optional(),
});

function hex(label: string): string {
  return bytesToHex(sha256(new TextEncoder().encode(label)));
}

function newSatpoint(inscriptionId: string, sequence: number): string {
  return `${hex(`spooks-sim:${inscriptionId}:${sequence}`)}:0:0`;
}

function createState(owners: Map<string, string>) {
  let height = START_HEIGHT;
  let sequence = 0;
  const entries = new Map<string, Entry>();
  let number = 0;
  for (const [inscriptionId, address] of owners) {
    entries.set(inscriptionId, { address, satpoint: newSatpoint(inscriptionId, sequence++), number: number++, genesisHeight: height });
  }
  return {
    entries,
    height: () => height,
    mine(blocks = 1) {
      if (!Number.isInteger(blocks) || blocks < 1) throw new RangeError("blocks must be a positive integer");
      height += blocks;
      return height;
    },
    transfer(inscriptionId: string, to: string) {
      const entry = entries.get(inscriptionId);
      if (!entry) throw new Error(`unknown inscription ${inscriptionId}`);
      if (!isDogecoinAddress(to)) throw new Error(`not a Dogecoin address: ${to}`);
      height += 1;
      entry.address = to;
      entry.satpoint = newSatpoint(inscriptionId, sequence++);
    },
  };
}

function inscriptionJson(inscriptionId: string, entry: Entry) {
  return {
    inscription_id: inscriptionId,
    address: entry.address,
    satpoint: entry.satpoint,
    number: entry.number,
    genesis_height: entry.genesisHeight,
    genesis_fee: 100_000,
    content_type: "image/webp",
    content_length: 0,
    sat: "-1",
    output: { value: 100_000, script_pubkey: "" },
    timestamp: 1_700_000_000,
  };
}

function faultyInscriptionBody(mode: FaultMode, inscriptionId: string, entry: Entry | undefined): string | undefined {
  const base = entry ? inscriptionJson(inscriptionId, entry) : { inscription_id: inscriptionId, satpoint: `${"0".repeat(64)}:0:0` };
  switch (mode) {
    case "html":
      return "<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>";
    case "garbage":
      return '{"inscription_id": "oops", "address": ';
    case "invalid-address":
      return JSON.stringify({ ...base, address: "DNotARealAddressAtAll1111111111111" });
    case "bad-satpoint":
      return JSON.stringify({ ...base, address: entry?.address, satpoint: "not-a-satpoint" });
    case "wrong-id":
      return JSON.stringify({ ...base, inscription_id: `${"f".repeat(64)}i0` });
    default:
      return undefined;
  }
}

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_CONTROL_BODY) reject(new Error("body too large"));
      else chunks.push(chunk);
    });
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        resolve(text ? JSON.parse(text) : {});
      } catch {
        reject(new Error("body is not JSON"));
      }
    });
    req.on("error", reject);
  });
}

function send(res: http.ServerResponse, status: number, body: string, type: string) {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

const sendJson = (res: http.ServerResponse, status: number, value: unknown) =>
  send(res, status, JSON.stringify(value), "application/json");

export async function startSimulatedChain(options: {
  owners: Map<string, string>;
  port?: number;
  host?: string;
}): Promise<SimulatedChain> {
  const state = createState(options.owners);
  let faults: Fault[] = [];
  let latencyMs = 0;
  let requests = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const held = new Set<http.ServerResponse>();

  function takeFault(route: FaultRoute, inscriptionId?: string): FaultMode | undefined {
    const fault = faults.find(
      (f) => f.route === route && (f.inscriptionId === undefined || f.inscriptionId === inscriptionId),
    );
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) faults = faults.filter((f) => f !== fault);
    return fault.mode;
  }

  /** Answers with a fault; returns false when the mode has no special answer on this route. */
  function answerFault(res: http.ServerResponse, mode: FaultMode, body: string | undefined): boolean {
    if (mode === "timeout") return held.add(res), true;
    if (mode === "reset") return res.socket?.destroy(), true;
    if (mode === "server-error") return send(res, 500, "Internal Server Error", "text/plain"), true;
    if (mode === "not-found") return send(res, 404, "Not Found", "text/plain"), true;
    if (body === undefined) return false;
    send(res, 200, body, mode === "html" ? "text/html; charset=utf-8" : "application/json");
    return true;
  }

  function inscription(res: http.ServerResponse, inscriptionId: string) {
    const entry = state.entries.get(inscriptionId);
    const mode = takeFault("inscription", inscriptionId);
    if (mode && answerFault(res, mode, faultyInscriptionBody(mode, inscriptionId, entry))) return;
    if (!entry) return send(res, 404, `inscription ${inscriptionId} not found`, "text/plain");
    sendJson(res, 200, inscriptionJson(inscriptionId, entry));
  }

  function blockCount(res: http.ServerResponse) {
    const mode = takeFault("block-count");
    const body = mode === "html" ? "<html><body>oops</body></html>" : mode === "garbage" ? "tip: soon" : undefined;
    if (mode && answerFault(res, mode, body)) return;
    send(res, 200, String(state.height()), "text/plain");
  }

  async function control(req: http.IncomingMessage, res: http.ServerResponse, action: string) {
    const body = await readBody(req);
    if (action === "transfer") {
      const parsed = TransferBody.safeParse(body);
      if (!parsed.success) return sendJson(res, 400, { message: "expected {inscriptionId, to}" });
      const { inscriptionId, to } = parsed.data;
      if (!state.entries.has(inscriptionId)) return sendJson(res, 404, { message: `unknown inscription ${inscriptionId}` });
      if (!isDogecoinAddress(to)) return sendJson(res, 400, { message: `not a Dogecoin address: ${to}` });
      state.transfer(inscriptionId, to);
      return sendJson(res, 200, { inscriptionId, address: to, satpoint: state.entries.get(inscriptionId)!.satpoint, height: state.height() });
    }
    if (action === "mine") {
      const parsed = MineBody.safeParse(body);
      if (!parsed.success) return sendJson(res, 400, { message: "expected {blocks?: positive integer}" });
      return sendJson(res, 200, { height: state.mine(parsed.data.blocks ?? 1) });
    }
    if (action === "fail") {
      const parsed = FailBody.safeParse(body);
      if (!parsed.success) return sendJson(res, 400, { message: `expected {mode: ${FAULT_MODES.join("|")}, times?, inscriptionId?, route?}` });
      chain.failNext(parsed.data.mode, parsed.data);
      return sendJson(res, 200, { ok: true });
    }
    sendJson(res, 404, { message: "unknown control route" });
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", "http://chain.local");
    const match = /^\/inscription\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && match) return inscription(res, decodeURIComponent(match[1]));
    if (req.method === "GET" && url.pathname === "/block-count") return blockCount(res);
    const control_ = /^\/control\/(\w+)$/.exec(url.pathname);
    if (req.method === "POST" && control_) return control(req, res, control_[1]);
    send(res, 404, "Not Found", "text/plain");
  }

  const server = http.createServer((req, res) => {
    requests += 1;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on("close", () => (inFlight -= 1));
    const handle = () =>
      route(req, res).catch((error: Error) => {
        if (!res.headersSent) sendJson(res, 400, { message: error.message });
      });
    if (latencyMs > 0) setTimeout(handle, latencyMs);
    else void handle();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  const chain: SimulatedChain = {
    url: `http://${host}:${address.port}`,
    height: () => state.height(),
    ownerOf: (id) => state.entries.get(id)?.address,
    satpointOf: (id) => state.entries.get(id)?.satpoint,
    transfer: (id, to) => state.transfer(id, to),
    mine: (blocks) => state.mine(blocks),
    failNext(mode, { times = 1, inscriptionId, route = "inscription" } = {}) {
      faults.push({ mode, remaining: times, inscriptionId, route });
    },
    clearFaults: () => void (faults = []),
    setLatency: (ms) => void (latencyMs = Math.max(0, ms)),
    stats: () => ({ requests, maxInFlight }),
    resetStats: () => void ((requests = 0), (maxInFlight = inFlight)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.socket?.destroy();
        held.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return chain;
}

/** A few other holders, derived from fixed keys so every demo run agrees. */
export function demoOtherHolders(count = 5): string[] {
  return Array.from({ length: count }, (_, i) => addressOfPrivateKey(sha256(new TextEncoder().encode(`spooks-demo-holder:${i}`))));
}

/**
 * Demo owners: `holderAddress` owns the first `perCollection` items of each collection (in catalogue order);
 * the rest go round-robin to a few deterministic other holders.
 */
export function demoOwners(
  catalogue: readonly { inscriptionId: string; collection: string }[],
  holderAddress: string,
  perCollection: number,
): Map<string, string> {
  const others = demoOtherHolders();
  const seen = new Map<string, number>();
  const owners = new Map<string, string>();
  let next = 0;
  for (const item of catalogue) {
    const index = seen.get(item.collection) ?? 0;
    seen.set(item.collection, index + 1);
    owners.set(item.inscriptionId, index < perCollection ? holderAddress : others[next++ % others.length]);
  }
  return owners;
}
