/**
 * A simulated wonky-ord server for demo mode and tests: real HTTP, the real server's routes, shapes, texts
 * and statuses (see ./simulated-chain/ord-shapes.ts for where they come from), over an in-memory ledger,
 * so the real ord client is what gets exercised. A move is confirmed at once in a new block.
 *
 * Routes: GET /inscription/{id}[?json=true], /inscriptions/validate, /block-count, /status, /content/{id},
 * /blocks/{from}/{to} (each block's hash changes when a reorg replaces it). With `mineEveryMs` it keeps
 * mining empty blocks (demo mode), so draws waiting for confirmations get them.
 * Reorgs as the real server lives them: `beginRollback` (a savepoint restored: every answer reads an older
 * state, /block-count drops), `reorg` (the node's chain switches to a longer branch in which some moves
 * never happened), `endRollback` (the re-index commits: all jumps forward), `markUnrecoverable` (frozen for
 * good); a server from before reorg recovery (`reorgRecovery: false`) stops at any reorg with the old text.
 * An index behind its node, as a real one often is: `setIndexLag` (the index follows the node's tip a few
 * blocks behind), `stallIndexing` (its indexing thread died silently: /status says OK, /block-count freezes
 * while the node mines on) and `resumeIndexing` (it catches up at once). /blocks reads the node but answers
 * only heights the index has, as wonky-ord's `get_block_by_height` does.
 * Faults (`failNext`) make the next answers misbehave the way a real server or network can, and
 * `setNodeLatency` makes its node slow: each id of a validate request costs one node call, a read one.
 *
 * Control routes (loopback callers only, for browser tests; JSON bodies, 400 {message} on bad input):
 * POST /control/transfer {inscriptionId, to | script}, /control/mine {blocks?},
 * /control/fail {mode, times?, inscriptionId?, route?}, /control/rollback {depth, afterRequests?},
 * /control/rollback/end {afterRequests?}, /control/unrecoverable, /control/move-within-owner {inscriptionId},
 * /control/reorg {depth, undo, longerBy?}, /control/reconfirm {inscriptionId}, /control/node-latency {ms},
 * /control/index-lag {blocks}, /control/stall, /control/resume.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { encodeChainAddress, hash160, type OrdChain } from "../app/domain/address.ts";
import { addressOfPrivateKey } from "../app/domain/signature.ts";
import { encodeParts, preferredEncoding, shouldCompress } from "./simulated-chain/compression.ts";
import { contentBytesOf, contentMaker } from "./simulated-chain/ghost-image.ts";
import { createLedger, OUTPUT_VALUE, UnknownInscriptionError, type Move } from "./simulated-chain/ledger.ts";
import {
  badQuery,
  HTML,
  inscriptionHtml,
  inscriptionJson,
  INTERNAL_SERVER_ERROR,
  invalidUrl,
  JSON_TYPE,
  MAX_HEAD_BYTES,
  MAX_URI_BYTES,
  notFound,
  parseInscriptionId,
  outputNotFound,
  delegateNotFound,
  PROXY_NOT_FOUND,
  proxyErrorPage,
  STATUS_OK,
  STATUS_REORG_LEGACY,
  STATUS_UNRECOVERABLE,
  TEXT,
  transientNotFound,
  type InscriptionView,
} from "./simulated-chain/ord-shapes.ts";
import {
  ADDRESSLESS_SCRIPTS,
  otherNetworkAddress,
  outputForAddress,
  type AddresslessScript,
  type OutputScript,
} from "./simulated-chain/outputs.ts";

export type { OutputScript };

export const FAULT_MODES = [
  "timeout", // never answers (until the chain closes)
  "server-error", // 500 Internal Server Error
  "not-found", // the transient 404 of a failed node lookup (404 with no body on /block-count and /status)
  "output-not-found", // 404 `inscription {id} current transaction output not found`
  "delegate-not-found", // 404 `delegate {id} not found` (the inscription route only: validate reads no delegate)
  "proxy-not-found", // a proxy's 404 with a body that names nothing (`404 page not found`)
  "no-route", // axum's empty 404, as for a path the server does not route
  "html", // 200 with a proxy's HTML page
  "garbage", // 200 with a body that is not what the route answers
  "invalid-address", // JSON whose address is not a Dogecoin address
  "bad-satpoint", // JSON whose satpoint is not txid:vout:offset
  "wrong-id", // JSON about another inscription (validate: an id that was not asked)
  "reset", // the connection is dropped without an answer (a server panic)
  "other-chain", // JSON whose `chain` is another chain than the server's
  "other-network-address", // JSON whose address is a P2PKH address of another network
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];
export const FAULT_ROUTES = ["inscription", "block-count", "validate", "status", "blocks"] as const;
export type FaultRoute = (typeof FAULT_ROUTES)[number];
export type FaultOptions = { times?: number; inscriptionId?: string; route?: FaultRoute };

export type SimulatedChainOptions = {
  /** Inscription id -> address (P2PKH, or P2SH, of `chain`) at genesis. */
  owners: Map<string, string>;
  port?: number;
  host?: string;
  /** The `chain` the server answers; default "mainnet". */
  chain?: OrdChain;
  /** Each item's content size in bytes (a generated PNG, padded); default the bare PNG (a few hundred bytes). */
  contentBytes?: number;
  /** Default true; false = a server from before /inscriptions/validate (2024-10), which answers it 400. */
  validateRoute?: boolean;
  /** Default true; false = a server from before reorg recovery (2024-08-28): any reorg stops it for good. */
  reorgRecovery?: boolean;
  /** Mines an empty block this often (demo mode: the chain moves on by itself); default never. */
  mineEveryMs?: number;
};

/** `nodeCalls`: the node lookups the server made (one per validated id, one per inscription read). */
export type ChainStats = { requests: number; maxInFlight: number; bytesSent: number; nodeCalls: number; byRoute: Record<string, number> };

export type SimulatedChain = {
  url: string;
  chain: OrdChain;
  /** The node's last block height: the true tip (the index's block count is at most height + 1). */
  height(): number;
  /** What GET /block-count answers now: lower during a rollback, frozen once unrecoverable. */
  blockCount(): number;
  /** The hash of the block at `height` on the current branch (what /blocks answers for it). */
  blockHash(height: number): string;
  /** The true current address (null: an output with no address); undefined for an unknown id. */
  ownerOf(inscriptionId: string): string | null | undefined;
  satpointOf(inscriptionId: string): string | undefined;
  /** The item's content as GET /content/{id} answers it. */
  contentOf(inscriptionId: string): { contentType: string; body: Buffer } | undefined;
  /** Moves an inscription to a P2PKH or P2SH address of the chain, confirmed in a new block. */
  transfer(inscriptionId: string, toAddress: string): void;
  /** Moves an inscription to an output with no address, confirmed in a new block. */
  moveToScript(inscriptionId: string, script: AddresslessScript): void;
  /** A new satpoint at the same address (the owner consolidates), confirmed in a new block. */
  moveWithinOwner(inscriptionId: string): void;
  /** Mines `blocks` empty blocks (default 1); returns the new height. */
  mine(blocks?: number): number;
  /** The index follows its node `blocks` behind (0: at the tip): /block-count and every answer lag that much. */
  setIndexLag(blocks: number): void;
  /** The indexing thread dies silently: /status still says OK, the index stays where it is while the node mines on. */
  stallIndexing(): void;
  /** Indexing runs again and catches up with its node (less its lag) at once. */
  resumeIndexing(): void;
  /**
   * The server restores a savepoint `depth` blocks below the true tip: /block-count drops by `depth` and every
   * answer reads that older state until `endRollback`; moves and blocks meanwhile stay invisible. With
   * `afterRequests`, it starts once that many more /inscription or /inscriptions/validate requests are answered.
   */
  beginRollback(depth: number, options?: { afterRequests?: number }): void;
  /** Everything jumps forward to the true state at once (optionally after `afterRequests` more answers). */
  endRollback(options?: { afterRequests?: number }): void;
  /** /status reports the unrecoverable reorg; /block-count and every answer freeze as they are now. */
  markUnrecoverable(): void;
  /**
   * The node's chain reorganises: its last `depth` blocks are replaced by a branch `longerBy` (default 1)
   * blocks longer, in which the moves of `undo` made in those blocks never happened. The server answers the
   * new branch at once; to live it as the real server does, `beginRollback` first (its savepoint restored)
   * and `endRollback` after (its re-index committed). A server without reorg recovery stops for good instead.
   */
  reorg(options: { depth: number; undo: readonly string[]; longerBy?: number }): number;
  /** The item's move a reorg undid confirms again in a new block (the same transaction: the same satpoint). */
  reconfirm(inscriptionId: string): void;
  /** The next `times` (default 1) matching requests misbehave as `mode`. */
  failNext(mode: FaultMode, options?: FaultOptions): void;
  clearFaults(): void;
  /** Delays every answer by `ms` (to observe concurrency). */
  setLatency(ms: number): void;
  /** Each node lookup takes `ms`: a validate request waits `ms` per id, an inscription read `ms`. */
  setNodeLatency(ms: number): void;
  stats(): ChainStats;
  resetStats(): void;
  close(): Promise<void>;
};

type Fault = { mode: FaultMode; remaining: number; inscriptionId?: string; route: FaultRoute };
type Route = FaultRoute | "content" | "control" | "other";
type Scheduled = { remaining: number; run: () => void };
type HeaderMap = Record<string, string | string[]>;

const MAX_CONTROL_BODY = 16 * 1024;
const INVALID_ADDRESS = "DNotARealAddressAtAll1111111111111";
const COMMON_HEADERS: HeaderMap = {
  "access-control-allow-origin": "*",
  vary: "origin, access-control-request-method, access-control-request-headers",
  "strict-transport-security": "max-age=31536000; includeSubDomains; preload",
};
const CONTENT_HEADERS: HeaderMap = {
  "content-security-policy": [
    "default-src 'self' 'unsafe-eval' 'unsafe-inline' data: blob:",
    "default-src *:*/content/ *:*/blockheight *:*/blockhash *:*/blockhash/ *:*/blocktime *:*/r/ 'unsafe-eval' 'unsafe-inline' data: blob:",
  ],
  "cache-control": "max-age=31536000, immutable",
};

const InscriptionIdField = z.string().min(1);
const ControlBodies = {
  transfer: z.union([
    z.object({ inscriptionId: InscriptionIdField, to: z.string().min(1) }).strict(),
    z.object({ inscriptionId: InscriptionIdField, script: z.enum(ADDRESSLESS_SCRIPTS) }).strict(),
  ]),
  mine: z.object({ blocks: z.number().int().min(1).max(10_000).optional() }),
  fail: z.object({
    mode: z.enum(FAULT_MODES),
    times: z.number().int().min(1).max(1_000_000).optional(),
    inscriptionId: z.string().optional(),
    route: z.enum(FAULT_ROUTES).optional(),
  }),
  rollback: z.object({ depth: z.number().int().min(1).max(1_000_000), afterRequests: z.number().int().min(0).optional() }),
  "rollback/end": z.object({ afterRequests: z.number().int().min(0).optional() }),
  unrecoverable: z.object({}),
  "move-within-owner": z.object({ inscriptionId: InscriptionIdField }),
  reorg: z.object({
    depth: z.number().int().min(1).max(1_000),
    undo: z.array(InscriptionIdField).max(10_000),
    longerBy: z.number().int().min(0).max(1_000).optional(),
  }),
  reconfirm: z.object({ inscriptionId: InscriptionIdField }),
  "node-latency": z.object({ ms: z.number().min(0).max(60_000) }),
  "index-lag": z.object({ blocks: z.number().int().min(0).max(10_000) }),
  stall: z.object({}),
  resume: z.object({}),
};
type ControlAction = keyof typeof ControlBodies;

function controlBody<A extends ControlAction>(action: A, body: unknown): z.output<(typeof ControlBodies)[A]> {
  const parsed = ControlBodies[action].safeParse(body);
  if (!parsed.success) throw new Error(`bad body for /control/${action}: ${z.prettifyError(parsed.error)}`);
  return parsed.data as z.output<(typeof ControlBodies)[A]>;
}

function routeOf(pathname: string): Route {
  if (/^\/(inscription|shibescription)\/[^/]*$/.test(pathname)) return "inscription";
  if (pathname === "/inscriptions/validate") return "validate";
  if (pathname === "/block-count") return "block-count";
  if (pathname === "/status") return "status";
  if (/^\/blocks\/[^/]*\/[^/]*$/.test(pathname)) return "blocks";
  if (/^\/content\/[^/]*$/.test(pathname)) return "content";
  if (pathname.startsWith("/control/")) return "control";
  return "other";
}

const isLoopback = (address: string | undefined) => address !== undefined && (address === "::1" || /^(::ffff:)?127\./.test(address));

function pathParam(pathname: string): string {
  const raw = pathname.slice(pathname.lastIndexOf("/") + 1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** serde_urlencoded into a struct: a repeated field is an error, unknown fields are ignored. */
function singleParam(query: URLSearchParams, name: string): { value?: string; error?: string } {
  const values = query.getAll(name);
  if (values.length > 1) return { error: badQuery(`duplicate field \`${name}\``) };
  return { value: values[0] };
}

function jsonFlag(query: URLSearchParams): boolean | string {
  const { value, error } = singleParam(query, "json");
  if (error) return error;
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  return badQuery("provided string was not `true` or `false`");
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

/** A P2PKH address derived from a label, on `chain` (for an address-less output's wrong-network fault). */
const labelAddress = (label: string, chain: OrdChain) =>
  encodeChainAddress(hash160(sha256(new TextEncoder().encode(label))), "p2pkh", chain);

export async function startSimulatedChain(options: SimulatedChainOptions): Promise<SimulatedChain> {
  const chainName: OrdChain = options.chain ?? "mainnet";
  const ledger = createLedger(options.owners, chainName);
  const contentOf = contentMaker(options.contentBytes);
  const validateRoute = options.validateRoute ?? true;
  const recoversFromReorgs = options.reorgRecovery ?? true;
  const minerOutput = outputForAddress(labelAddress("spooks-sim-miner", chainName), chainName);

  let faults: Fault[] = [];
  let latencyMs = 0;
  let nodeLatencyMs = 0;
  let stats: ChainStats = { requests: 0, maxInFlight: 0, bytesSent: 0, nodeCalls: 0, byRoute: {} };
  /** Node lookups each answer waits for (set by its route before it sends). */
  const nodeCallsOf = new WeakMap<http.ServerResponse, number>();
  const answered = new WeakSet<http.ServerResponse>();
  const nodeCall = (res: http.ServerResponse, calls = 1) => {
    stats.nodeCalls += calls;
    nodeCallsOf.set(res, (nodeCallsOf.get(res) ?? 0) + calls);
  };
  let inFlight = 0;
  const held = new Set<http.ServerResponse>();

  let rollbackTo: number | null = null;
  let frozenAt: number | null = null;
  let statusWhenFrozen = STATUS_UNRECOVERABLE;
  /** A server before reorg recovery stops at any reorg, as it is, and says so with the old text. */
  const stopAtReorg = () => {
    frozenAt ??= visibleHeight();
    statusWhenFrozen = STATUS_REORG_LEGACY;
  };
  let scheduled: Scheduled[] = [];
  let indexLag = 0;
  let stalledAt: number | null = null;
  /** The height the index has reached: its node's tip less its lag, or where it stalled. */
  const indexedHeight = () => stalledAt ?? ledger.height() - indexLag;
  const visibleHeight = () => frozenAt ?? rollbackTo ?? indexedHeight();

  function schedule(afterRequests: number | undefined, run: () => void) {
    if (afterRequests === undefined || afterRequests <= 0) run();
    else scheduled.push({ remaining: afterRequests, run });
  }

  /** Counts one answered /inscription or /inscriptions/validate request and runs what became due. */
  function countAnswer() {
    for (const entry of scheduled) entry.remaining -= 1;
    const due = scheduled.filter((entry) => entry.remaining <= 0);
    scheduled = scheduled.filter((entry) => entry.remaining > 0);
    for (const entry of due) entry.run();
  }

  /** The inscription as the server reads it now (older during a rollback); undefined if it cannot. */
  function visibleView(inscriptionId: string): InscriptionView | undefined {
    const item = ledger.item(inscriptionId);
    const move = ledger.at(inscriptionId, visibleHeight());
    if (!item || !move) return undefined;
    return {
      chain: chainName,
      inscriptionId,
      number: item.number,
      genesisHeight: item.moves[0].height,
      genesisFee: item.genesisFee,
      previous: item.number > 0 ? ledger.idOfNumber(item.number - 1) : null,
      next: ledger.idOfNumber(item.number + 1),
      output: move.output,
      value: OUTPUT_VALUE,
      satpoint: move.satpoint,
    };
  }

  function takeFault(route: FaultRoute, inscriptionIds: readonly string[] = []): Fault | undefined {
    const fault = faults.find((f) => f.route === route && (f.inscriptionId === undefined || inscriptionIds.includes(f.inscriptionId)));
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) faults = faults.filter((f) => f !== fault);
    return fault;
  }

  // ---- answers ------------------------------------------------------------------------------------------

  function send(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: number,
    body: string | Buffer[],
    contentType?: string,
    extra: { headers?: HeaderMap; shared?: ReadonlySet<Buffer> } = {},
  ) {
    const parts = typeof body === "string" ? [Buffer.from(body)] : body;
    const size = parts.reduce((sum, part) => sum + part.length, 0);
    const compressible = contentType !== undefined && shouldCompress(contentType, size);
    const encoding = compressible ? preferredEncoding(req.headers["accept-encoding"]) : "identity";
    const out = encodeParts(parts, encoding, extra.shared);
    const sent = out.reduce((sum, part) => sum + part.length, 0);
    const headers: HeaderMap = { "content-security-policy": "default-src 'self'", ...COMMON_HEADERS, ...extra.headers };
    if (contentType) headers["content-type"] = contentType;
    if (encoding === "identity") headers["content-length"] = String(sent);
    else headers["content-encoding"] = encoding; // tower-http drops the length: the answer is chunked
    answered.add(res);
    const write = () => {
      if (res.destroyed) return;
      res.writeHead(status, headers);
      for (const part of out) res.write(part);
      res.end();
      stats.bytesSent += sent;
    };
    const nodeWait = (nodeCallsOf.get(res) ?? 0) * nodeLatencyMs;
    if (nodeWait > 0) setTimeout(write, nodeWait);
    else write();
  }

  const sendText = (req: http.IncomingMessage, res: http.ServerResponse, status: number, text: string) =>
    send(req, res, status, text, TEXT);
  const sendJson = (req: http.IncomingMessage, res: http.ServerResponse, status: number, value: unknown) =>
    send(req, res, status, JSON.stringify(value), JSON_TYPE);
  /** axum's empty 404 (no route) and 405 (route without this method). */
  const sendEmpty = (req: http.IncomingMessage, res: http.ServerResponse, status: number) => send(req, res, status, "");

  function garbage(route: FaultRoute): [string, string] {
    if (route === "inscription") return ['{"inscription_id": "oops", "address": ', JSON_TYPE];
    if (route === "validate") return ['{"oops": tru', JSON_TYPE];
    if (route === "blocks") return ['[{"hash": "00', TEXT];
    return route === "block-count" ? ["tip: soon", TEXT] : ["status: maybe later", TEXT];
  }

  /** Answers a fault that replaces the whole answer; false when the mode only alters a JSON answer. */
  function answerFault(req: http.IncomingMessage, res: http.ServerResponse, fault: Fault, inscriptionId?: string): boolean {
    const id = fault.inscriptionId ?? inscriptionId;
    switch (fault.mode) {
      case "timeout":
        held.add(res);
        return true;
      case "reset":
        req.socket.destroy();
        return true;
      case "server-error":
        sendText(req, res, 500, INTERNAL_SERVER_ERROR);
        return true;
      case "not-found":
        if (id !== undefined && (fault.route === "inscription" || fault.route === "validate"))
          sendText(req, res, 404, transientNotFound(id));
        else sendEmpty(req, res, 404);
        return true;
      case "output-not-found":
        sendText(req, res, 404, outputNotFound(id ?? ""));
        return true;
      case "delegate-not-found":
        sendText(req, res, 404, delegateNotFound(id ?? ""));
        return true;
      case "proxy-not-found":
        sendText(req, res, 404, PROXY_NOT_FOUND);
        return true;
      case "no-route":
        sendEmpty(req, res, 404);
        return true;
      case "html":
        send(req, res, 200, proxyErrorPage(), HTML);
        return true;
      case "garbage":
        send(req, res, 200, ...garbage(fault.route));
        return true;
      default:
        return false;
    }
  }

  const otherInscriptionId = (inscriptionId: string) => (inscriptionId.startsWith("f") ? `${"e".repeat(64)}i0` : `${"f".repeat(64)}i0`);

  function jsonOverrides(mode: FaultMode, view: InscriptionView): Record<string, unknown> {
    if (mode === "invalid-address") return { address: INVALID_ADDRESS };
    if (mode === "bad-satpoint") return { satpoint: "not-a-satpoint" };
    if (mode === "wrong-id") return { inscription_id: otherInscriptionId(view.inscriptionId) };
    if (mode === "other-chain") return { chain: chainName === "mainnet" ? "testnet" : "mainnet" };
    if (mode === "other-network-address") {
      const address = view.output.address ?? labelAddress(view.inscriptionId, chainName);
      return { address: otherNetworkAddress(address, chainName) };
    }
    return {};
  }

  // ---- routes -------------------------------------------------------------------------------------------

  function inscriptionRoute(req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
    const raw = pathParam(url.pathname);
    const parsed = parseInscriptionId(raw);
    const fault = takeFault("inscription", [parsed.ok ? parsed.id : raw]);
    if (fault && answerFault(req, res, fault, parsed.ok ? parsed.id : raw)) return;
    if (!parsed.ok) return sendText(req, res, 400, invalidUrl(parsed.error));
    const json = jsonFlag(url.searchParams);
    if (typeof json === "string") return sendText(req, res, 400, json);
    const view = visibleView(parsed.id);
    if (!view) return sendText(req, res, 404, notFound(parsed.id));
    nodeCall(res); // the current transaction, from the node
    const content = contentOf(parsed.id);
    if (!json) return send(req, res, 200, inscriptionHtml(view, content), HTML);
    const { parts, shared } = inscriptionJson(view, content, fault ? jsonOverrides(fault.mode, view) : {});
    send(req, res, 200, parts, JSON_TYPE, { shared });
  }

  /** The ids and addresses lists, zipped (the longer list's extra entries are dropped). */
  function validatePairs(query: URLSearchParams): [string, string][] | string {
    const ids = singleParam(query, "inscription_ids");
    const addresses = singleParam(query, "addresses");
    if (ids.error || addresses.error) return (ids.error ?? addresses.error)!;
    if (ids.value === undefined) return badQuery("missing field `inscription_ids`");
    if (addresses.value === undefined) return [];
    const addressList = addresses.value.split(",");
    return ids.value
      .split(",")
      .slice(0, addressList.length)
      .map((id, i) => [id, addressList[i]]);
  }

  function validateRouteAnswer(req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
    const pairs = validatePairs(url.searchParams);
    if (typeof pairs === "string") return sendText(req, res, 400, pairs);
    const ids = pairs.map(([raw]) => {
      const parsed = parseInscriptionId(raw);
      return parsed.ok ? parsed.id : raw;
    });
    const fault = takeFault("validate", ids);
    if (fault && answerFault(req, res, fault, ids[0])) return;
    const answer = new Map<string, boolean>();
    for (const [raw, address] of pairs) {
      const parsed = parseInscriptionId(raw);
      if (!parsed.ok) return sendText(req, res, 400, parsed.error);
      const move: Move | undefined = ledger.at(parsed.id, visibleHeight());
      if (!move) return sendText(req, res, 404, notFound(parsed.id));
      nodeCall(res); // each id's current transaction, from the node, one after the other
      answer.set(parsed.id, move.output.address !== null && move.output.address === address);
    }
    const entries = [...answer];
    if (fault?.mode === "wrong-id" && entries.length > 0) entries[0] = [otherInscriptionId(entries[0][0]), entries[0][1]];
    sendJson(req, res, 200, Object.fromEntries(entries));
  }

  /** `/inscriptions/{from}`: a u64 (an HTML page of inscriptions), else axum's 400 (the old servers' validate). */
  function inscriptionsFromRoute(req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
    const from = pathParam(url.pathname);
    if (!/^\d{1,20}$/.test(from) || BigInt(from) > 0xffff_ffff_ffff_ffffn) {
      return sendText(req, res, 400, invalidUrl(`Cannot parse \`${JSON.stringify(from)}\` to a \`u64\``));
    }
    send(
      req,
      res,
      200,
      `<!doctype html><html><head><title>Shibescriptions</title></head><body><h1>Shibescriptions</h1></body></html>`,
      HTML,
    );
  }

  function contentRoute(req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
    const parsed = parseInscriptionId(pathParam(url.pathname));
    if (!parsed.ok) return sendText(req, res, 400, invalidUrl(parsed.error));
    if (!ledger.at(parsed.id, visibleHeight())) return sendText(req, res, 404, notFound(parsed.id));
    const content = contentOf(parsed.id);
    send(req, res, 200, [content.head, content.bulk, content.tail], content.contentType, { headers: CONTENT_HEADERS });
  }

  function blockCountRoute(req: http.IncomingMessage, res: http.ServerResponse) {
    const fault = takeFault("block-count");
    if (fault && answerFault(req, res, fault)) return;
    sendText(req, res, 200, String(visibleHeight() + 1));
  }

  /** A u32 path segment as axum parses it; else its 400 text. */
  function heightParam(raw: string): number | string {
    const text = (() => {
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw;
      }
    })();
    if (/^\d{1,10}$/.test(text) && Number(text) <= 0xffff_ffff) return Number(text);
    return invalidUrl(`Cannot parse \`${JSON.stringify(text)}\` to a \`u32\``);
  }

  /** One block as `/blocks` prints it (serde's field order; maps keyed by txid). */
  function blockJson(height: number) {
    const txs = [coinbaseTx(height, minerOutput), ...ledger.movesAt(height).map(({ move, previous }) => moveTx(move, previous!))];
    const perTx = (value: (tx: SimTx) => string) => Object.fromEntries(txs.map((tx) => [tx.txid, value(tx)]));
    return {
      hash: ledger.blockHash(height),
      height,
      txids: txs.map((tx) => tx.txid).join(","),
      inputs_per_tx: perTx((tx) => tx.inputs.map((input) => input.outpoint).join(",")),
      input_values_per_tx: perTx((tx) => tx.inputs.map((input) => input.value).join(",")),
      input_addresses_per_tx: perTx((tx) => tx.inputs.map((input) => input.address).join(",")),
      outputs_per_tx: perTx((tx) => tx.outputs.map((_, vout) => `${tx.txid}:${vout}`).join(",")),
      output_values_per_tx: perTx((tx) => tx.outputs.map(() => String(OUTPUT_VALUE)).join(",")),
      output_addresses_per_tx: perTx((tx) => tx.outputs.map((output) => output.address ?? "").join(",")),
      output_scripts_per_tx: perTx((tx) => tx.outputs.map((output) => output.scriptHex).join(",")),
      // Simulated moves carry no new inscription (every item is inscribed before the chain starts): empty,
      // with or without `no_inscriptions=true`.
      inscriptions_per_tx: {},
    };
  }

  function blocksRoute(req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
    const fault = takeFault("blocks");
    if (fault && answerFault(req, res, fault)) return;
    const [, , rawFrom, rawTo] = url.pathname.split("/");
    const from = heightParam(rawFrom);
    const to = heightParam(rawTo);
    if (typeof from === "string") return sendText(req, res, 400, from);
    if (typeof to === "string") return sendText(req, res, 400, to);
    const blocks = [];
    for (let height = from; height < to; height++) {
      if (height > visibleHeight()) return sendText(req, res, 404, `block ${height} not found`);
      nodeCall(res); // the block, from the node
      blocks.push(blockJson(height));
    }
    // wonky-ord answers the array as a plain String: text/plain.
    send(req, res, 200, JSON.stringify(blocks), TEXT);
  }

  function statusRoute(req: http.IncomingMessage, res: http.ServerResponse) {
    const fault = takeFault("status");
    if (fault && answerFault(req, res, fault)) return;
    sendText(req, res, 200, frozenAt === null ? STATUS_OK : statusWhenFrozen);
  }

  // ---- control ------------------------------------------------------------------------------------------

  function runControl(action: ControlAction, body: unknown): unknown {
    const moved = (id: string) => ({
      inscriptionId: id,
      address: chain.ownerOf(id),
      satpoint: chain.satpointOf(id),
      height: ledger.height(),
    });
    switch (action) {
      case "transfer": {
        const input = controlBody("transfer", body);
        if ("to" in input) chain.transfer(input.inscriptionId, input.to);
        else chain.moveToScript(input.inscriptionId, input.script);
        return moved(input.inscriptionId);
      }
      case "move-within-owner": {
        const { inscriptionId } = controlBody("move-within-owner", body);
        chain.moveWithinOwner(inscriptionId);
        return moved(inscriptionId);
      }
      case "mine":
        return { height: chain.mine(controlBody("mine", body).blocks ?? 1) };
      case "fail": {
        const { mode, ...options } = controlBody("fail", body);
        chain.failNext(mode, options);
        return { ok: true };
      }
      case "rollback": {
        const { depth, afterRequests } = controlBody("rollback", body);
        chain.beginRollback(depth, { afterRequests });
        return { blockCount: chain.blockCount() };
      }
      case "rollback/end":
        chain.endRollback({ afterRequests: controlBody("rollback/end", body).afterRequests });
        return { blockCount: chain.blockCount() };
      case "unrecoverable":
        controlBody("unrecoverable", body);
        chain.markUnrecoverable();
        return { blockCount: chain.blockCount() };
      case "reorg":
        return { height: chain.reorg(controlBody("reorg", body)), blockCount: chain.blockCount() };
      case "reconfirm": {
        const { inscriptionId } = controlBody("reconfirm", body);
        chain.reconfirm(inscriptionId);
        return moved(inscriptionId);
      }
      case "node-latency":
        chain.setNodeLatency(controlBody("node-latency", body).ms);
        return { ok: true };
      case "index-lag":
        chain.setIndexLag(controlBody("index-lag", body).blocks);
        return { blockCount: chain.blockCount(), height: chain.height() };
      case "stall":
        controlBody("stall", body);
        chain.stallIndexing();
        return { blockCount: chain.blockCount(), height: chain.height() };
      case "resume":
        controlBody("resume", body);
        chain.resumeIndexing();
        return { blockCount: chain.blockCount(), height: chain.height() };
    }
  }

  async function controlRoute(req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
    const action = url.pathname.slice("/control/".length);
    if (!isLoopback(req.socket.remoteAddress) || !Object.hasOwn(ControlBodies, action)) return sendEmpty(req, res, 404);
    if (req.method !== "POST") return sendEmpty(req, res, 405);
    try {
      sendJson(req, res, 200, runControl(action as ControlAction, await readBody(req)));
    } catch (error) {
      const status = error instanceof UnknownInscriptionError ? 404 : 400;
      sendJson(req, res, status, { message: (error as Error).message });
    }
  }

  // ---- server -------------------------------------------------------------------------------------------

  async function dispatch(req: http.IncomingMessage, res: http.ServerResponse, route: Route, url: URL) {
    if (route === "control") return controlRoute(req, res, url);
    const inscriptionsFrom = route === "other" && /^\/inscriptions\/[^/]+$/.test(url.pathname);
    if (req.method !== "GET" && req.method !== "HEAD") return sendEmpty(req, res, route === "other" && !inscriptionsFrom ? 404 : 405);
    if (route === "inscription") inscriptionRoute(req, res, url);
    else if (route === "validate") (validateRoute ? validateRouteAnswer : inscriptionsFromRoute)(req, res, url);
    else if (inscriptionsFrom) inscriptionsFromRoute(req, res, url);
    else if (route === "block-count") blockCountRoute(req, res);
    else if (route === "status") statusRoute(req, res);
    else if (route === "blocks") blocksRoute(req, res, url);
    else if (route === "content") contentRoute(req, res, url);
    else sendEmpty(req, res, 404);
    if ((route === "inscription" || route === "validate") && answered.has(res)) countAnswer();
  }

  function onRequest(req: http.IncomingMessage, res: http.ServerResponse) {
    stats.requests += 1;
    inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    res.on("close", () => {
      inFlight -= 1;
      held.delete(res);
    });
    // hyper refuses a request target over 65,534 bytes before routing: 414, no body, connection closed.
    if ((req.url ?? "").length > MAX_URI_BYTES) {
      res.writeHead(414, { "content-length": "0", connection: "close" });
      return res.end();
    }
    const url = new URL(req.url ?? "/", "http://ord.local");
    const route = routeOf(url.pathname);
    stats.byRoute[route] = (stats.byRoute[route] ?? 0) + 1;
    const handle = () =>
      dispatch(req, res, route, url).catch((error: Error) => {
        if (!res.headersSent) sendJson(req, res, 500, { message: error.message });
        else res.destroy();
      });
    if (latencyMs > 0) setTimeout(() => void handle(), latencyMs);
    else void handle();
  }

  const server = http.createServer({ maxHeaderSize: MAX_HEAD_BYTES }, onRequest);
  const miner = options.mineEveryMs ? setInterval(() => ledger.mine(1), options.mineEveryMs) : undefined;
  miner?.unref();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  const chain: SimulatedChain = {
    url: `http://${host}:${address.port}`,
    chain: chainName,
    height: () => ledger.height(),
    blockCount: () => visibleHeight() + 1,
    blockHash: (height) => ledger.blockHash(height),
    ownerOf: (id) => ledger.current(id)?.output.address,
    satpointOf: (id) => ledger.current(id)?.satpoint,
    contentOf: (id) => (ledger.has(id) ? { contentType: contentOf(id).contentType, body: contentBytesOf(contentOf(id)) } : undefined),
    transfer: (id, to) => void ledger.transfer(id, to),
    moveToScript(id, script) {
      if (!ADDRESSLESS_SCRIPTS.includes(script)) throw new Error(`not an address-less script kind: ${script}`);
      ledger.moveToScript(id, script);
    },
    moveWithinOwner: (id) => void ledger.moveWithinOwner(id),
    mine: (blocks) => ledger.mine(blocks),
    setIndexLag(blocks) {
      if (!Number.isInteger(blocks) || blocks < 0) throw new RangeError("blocks must be a whole number");
      indexLag = blocks;
    },
    stallIndexing: () => void (stalledAt ??= indexedHeight()),
    resumeIndexing: () => void (stalledAt = null),
    beginRollback(depth, { afterRequests } = {}) {
      if (!Number.isInteger(depth) || depth < 1) throw new RangeError("depth must be a positive integer");
      schedule(afterRequests, () => (recoversFromReorgs ? (rollbackTo = indexedHeight() - depth) : stopAtReorg()));
    },
    endRollback: ({ afterRequests } = {}) => schedule(afterRequests, () => (rollbackTo = null)),
    markUnrecoverable: () => (recoversFromReorgs ? void (frozenAt ??= visibleHeight()) : stopAtReorg()),
    reorg({ depth, undo, longerBy }) {
      if (!recoversFromReorgs) stopAtReorg();
      return ledger.reorg(depth, undo, longerBy);
    },
    reconfirm: (id) => void ledger.reconfirm(id),
    failNext(mode, { times = 1, inscriptionId, route = "inscription" } = {}) {
      if (!FAULT_MODES.includes(mode)) throw new Error(`unknown fault mode ${mode}`);
      if (
        (mode === "delegate-not-found" && route !== "inscription") ||
        (mode === "output-not-found" && !["inscription", "validate"].includes(route))
      ) {
        throw new Error(`${mode} is an answer of the inscription${mode === "output-not-found" ? " and validate routes" : " route"} only`);
      }
      faults.push({ mode, remaining: times, inscriptionId, route });
    },
    clearFaults: () => void (faults = []),
    setLatency: (ms) => void (latencyMs = Math.max(0, ms)),
    setNodeLatency: (ms) => void (nodeLatencyMs = Math.max(0, ms)),
    stats: () => ({ ...stats, byRoute: { ...stats.byRoute } }),
    resetStats: () => void (stats = { requests: 0, maxInFlight: inFlight, bytesSent: 0, nodeCalls: 0, byRoute: {} }),
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(miner);
        for (const res of held) res.socket?.destroy();
        held.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return chain;
}

type SimTx = {
  txid: string;
  inputs: { outpoint: string; value: string; address: string }[];
  outputs: { address: string | null; scriptHex: string }[];
};

const NULL_OUTPOINT = `${"0".repeat(64)}:4294967295`;
const outpointOf = (satpoint: string) => satpoint.split(":").slice(0, 2).join(":");

/** Every block's first transaction: the coinbase, paying a fixed miner address. */
function coinbaseTx(height: number, miner: SimTx["outputs"][number]): SimTx {
  return {
    txid: bytesToHex(sha256(new TextEncoder().encode(`spooks-sim-coinbase:${height}`))),
    inputs: [{ outpoint: NULL_OUTPOINT, value: "", address: "" }],
    outputs: [miner],
  };
}

/** A move: spends the item's previous output; the item sits in output `vout` of its satpoint (earlier outputs pay the same script). */
function moveTx(move: Move, previous: Move): SimTx {
  const [txid, vout] = move.satpoint.split(":");
  return {
    txid,
    inputs: [{ outpoint: outpointOf(previous.satpoint), value: String(OUTPUT_VALUE), address: previous.output.address ?? "" }],
    outputs: Array.from({ length: Number(vout) + 1 }, () => move.output),
  };
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
