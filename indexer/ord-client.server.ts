/**
 * HTTP client for a wonky-ord (ord-dogecoin fork) server, as its source behaves (shared/spec/REAL-WORLD.md):
 * `GET /status`, `GET /block-count`, `GET /inscription/{id}?json=true`, `GET /inscriptions/validate` and
 * `GET /blocks/{from}/{to}` (a block's hash, for draws).
 * Every answer is checked (zod, chain, address network, satpoint format); a timeout, 5xx, HTML page or
 * unparseable body becomes a typed failure, never an owner. Every request asks for gzip and decodes it.
 * Only an empty 404 means a missing route; a 404 with a body is about an id. Validate batches are sized by
 * how fast the server answers them (each id costs it one node call).
 */
import http from "node:http";
import https from "node:https";
import zlib from "node:zlib";
import { z } from "zod";
import { chainAddressKind, type ChainAddressKind, type OrdChain } from "../app/domain/address.ts";
import { observeOrdRequest } from "../app/utils/metrics.server.ts";

export const SATPOINT_PATTERN = /^[0-9a-f]{64}:\d+:\d+$/;

/** Where an inscription sits: a P2PKH, P2SH or witness (`bc1…`) address, or an output with no address ("none"). */
export type OwnerKind = ChainAddressKind | "none";

export type OrdInscription = { inscriptionId: string; address: string | null; kind: OwnerKind; satpoint: string };

export type OrdFailureReason =
  | "timeout"
  | "network"
  | "http" // a status other than 200, 400 and 404
  | "not_found" // a 404 with a body: about an id (unknown, its node lookup failed, its delegate unindexed…)
  | "bad_request" // 400: the server calls an id malformed
  | "unsupported" // the route does not exist on this server (an empty 404, or an old server's 400)
  | "html"
  | "unparseable"
  | "invalid" // parsed, but not a valid answer (other chain, other network, bad satpoint, other inscription)
  | "aborted";

export class OrdError extends Error {
  constructor(
    readonly reason: OrdFailureReason,
    message: string,
    readonly status?: number,
    /** The inscription a 404's text names (`inscription {id} … not found`, `delegate {id} not found`). */
    readonly inscriptionId?: string,
  ) {
    super(message);
    this.name = "OrdError";
  }

  get retryable(): boolean {
    if (this.reason === "timeout" || this.reason === "network") return true;
    return this.reason === "http" && (this.status === 429 || (this.status ?? 0) >= 500);
  }
}

export type OrdResult = { ok: true; inscription: OrdInscription } | { ok: false; error: OrdError };

/** The server's own health: indexing, stopped for good after a reorg deeper than its savepoints, or no `/status`. */
export type OrdStatus = "ok" | "unrecoverable" | "unknown";

export type ValidatePair = { inscriptionId: string; address: string };

/**
 * What `/inscriptions/validate` said of many pairs; `unanswered` are ids validate could not answer (read them
 * one by one). `batchSizes`: pairs per answered request, in answer order; `timeouts`: requests that timed out.
 */
export type ValidateOutcome = {
  confirmed: Set<string>;
  refuted: Set<string>;
  unanswered: Set<string>;
  batchSizes: number[];
  timeouts: number;
};

export type OrdClientOptions = {
  baseUrl: string;
  /** The chain the answers must be about (ORD_CHAIN). */
  chain?: OrdChain;
  concurrency?: number;
  timeoutMs?: number;
  retries?: number;
  /** First retry delay; doubles each attempt, plus jitter. */
  backoffMs?: number;
  /** Decoded answers larger than this are refused (wonky-ord inlines each inscription's content as byte values). */
  maxBodyBytes?: number;
  /** Most pairs per validate request; the server refuses URIs over 65,534 bytes (about 640 pairs). */
  validateBatchSize?: number;
  /** Pairs in the first validate request; batches grow from there while the server answers fast. */
  validateStartBatchSize?: number;
  /** A validate request's own timeout: each id costs the server one node call, so a batch takes longer than a read. */
  validateTimeoutMs?: number;
};

export type OrdClient = {
  status(signal?: AbortSignal): Promise<OrdStatus>;
  blockCount(signal?: AbortSignal): Promise<number>;
  /** The hash of the block at `height` (`/blocks/{height}/{height+1}?no_inscriptions=true`), lowercase hex. */
  blockHash(height: number, signal?: AbortSignal): Promise<string>;
  inscription(inscriptionId: string, signal?: AbortSignal): Promise<OrdInscription>;
  /** Reads many inscriptions, at most `concurrency` at a time, yielding each result as it arrives. */
  inscriptions<T extends { inscriptionId: string }>(
    items: readonly T[],
    signal?: AbortSignal,
  ): AsyncGenerator<{ item: T; result: OrdResult }>;
  /** One validate request (any number of pairs; with the validate timeout; a timeout is not retried). */
  validate(pairs: readonly ValidatePair[], signal?: AbortSignal): Promise<Map<string, boolean>>;
  /**
   * Validates any number of pairs in batches sized by the server's answers: small at first, growing (at
   * most doubling) towards what the answers' pace brings within a quarter of the validate timeout, halved
   * after an answer slower than half of it or a timeout (the timed-out batch is asked again in halves; an
   * id that times out alone is left unanswered).
   * A 404 naming an id leaves that id unanswered and asks again for the others; a 400 (a malformed id) is
   * split until the id stands alone. Throws `unsupported` only when the server has no validate route.
   */
  validateAll(pairs: readonly ValidatePair[], signal?: AbortSignal): Promise<ValidateOutcome>;
  /** The pairs the next validate batch will hold (it adapts to the server's answers). */
  validateBatchSize(): number;
  /** Closes idle keep-alive connections. */
  close(): void;
};

type Answer = { status: number; type: string; body: string };

const KEEP_ALIVE_MS = 4000;
export const VALIDATE_BATCH_SIZE = 500;
export const VALIDATE_START_BATCH_SIZE = 50;
export const VALIDATE_TIMEOUT_MS = 10_000;
/** Longest validate request target we send; the server refuses more than 65,534 bytes with a 414. */
const VALIDATE_URI_BUDGET = 60_000;
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

function decoderFor(encoding: string | undefined): zlib.Gunzip | zlib.BrotliDecompress | zlib.Inflate | null {
  if (encoding === "gzip" || encoding === "x-gzip") return zlib.createGunzip();
  if (encoding === "br") return zlib.createBrotliDecompress();
  if (encoding === "deflate") return zlib.createInflate();
  return null;
}

function request(url: URL, agent: http.Agent, signal: AbortSignal, maxBodyBytes: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const get = url.protocol === "https:" ? https.get : http.get;
    const req = get(url, { agent, signal, headers: { "accept-encoding": "gzip" } }, (res) => {
      const decoder = decoderFor(res.headers["content-encoding"]);
      const body = decoder ? res.pipe(decoder) : res;
      const chunks: Buffer[] = [];
      let size = 0;
      const fail = (error: Error) => {
        res.destroy();
        decoder?.destroy();
        reject(error);
      };
      body.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBodyBytes) fail(new OrdError("invalid", `answer larger than ${maxBodyBytes} bytes`));
        else chunks.push(chunk);
      });
      body.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers["content-type"] ?? ""),
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      body.on("error", (error: Error) => fail(decoder ? new OrdError("unparseable", `answer does not decode: ${error.message}`) : error));
      res.on("error", reject);
      res.on("close", () => res.complete || reject(new Error("connection closed mid-answer")));
    });
    req.on("error", reject);
  });
}

/**
 * The fields of wonky-ord's inscription JSON that the indexer reads. The rest is not checked: `inscription`
 * holds the content as an array of byte values, thousands of numbers that need no walking.
 */
const InscriptionJson = z.object({
  chain: z.enum(["mainnet", "testnet", "signet", "regtest"]),
  inscription_id: z.string(),
  address: z.string().nullable(),
  satpoint: z.string().regex(SATPOINT_PATTERN, "not txid:vout:offset"),
});

const ValidateJson = z.record(z.string(), z.boolean());

/** `/blocks/{from}/{to}`: a JSON array (sent as text/plain); only `hash` and `height` matter here. */
const BlocksJson = z.array(z.object({ hash: z.string().regex(/^[0-9a-f]{64}$/, "not a lowercase block hash"), height: z.number().int() }));

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });

function looksLikeHtml(contentType: string, body: string): boolean {
  return contentType.includes("text/html") || /^\s*</.test(body);
}

function describeZod(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; ");
}

function parseJson(body: string, contentType: string): unknown {
  if (looksLikeHtml(contentType, body)) throw new OrdError("html", "HTML instead of JSON");
  try {
    return JSON.parse(body);
  } catch {
    throw new OrdError("unparseable", "body is not JSON");
  }
}

function ownerKind(address: string | null, chain: OrdChain): OwnerKind {
  if (address === null) return "none";
  const kind = chainAddressKind(address, chain);
  if (!kind) throw new OrdError("invalid", `address ${address} is not a ${chain} P2PKH, P2SH or witness address`);
  return kind;
}

export function parseInscription(inscriptionId: string, body: string, contentType = "", chain: OrdChain = "mainnet"): OrdInscription {
  const parsed = InscriptionJson.safeParse(parseJson(body, contentType));
  if (!parsed.success) throw new OrdError("invalid", describeZod(parsed.error));
  const answer = parsed.data;
  if (answer.chain !== chain) throw new OrdError("invalid", `answer is about ${answer.chain}, not ${chain}`);
  if (answer.inscription_id !== inscriptionId) throw new OrdError("invalid", `answer is about ${answer.inscription_id}`);
  return { inscriptionId, address: answer.address, kind: ownerKind(answer.address, chain), satpoint: answer.satpoint };
}

export function parseBlockCount(body: string, contentType = ""): number {
  if (looksLikeHtml(contentType, body)) throw new OrdError("html", "HTML instead of a block count");
  const text = body.trim();
  const count = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(count)) throw new OrdError("unparseable", "block count is not a number");
  return count;
}

/**
 * `OK`, or a reorg the server will not recover from: `unrecoverable reorg detected, please rebuild the
 * database.`, or, from servers before 2024-08-28 (which stop at any reorg), `reorg detected, please rebuild
 * the database.`.
 */
export function parseStatus(body: string, contentType = ""): OrdStatus {
  if (looksLikeHtml(contentType, body)) throw new OrdError("html", "HTML instead of a status");
  if (/reorg detected/i.test(body)) return "unrecoverable";
  if (body.trim() === "OK") return "ok";
  throw new OrdError("unparseable", `unexpected status: ${body.trim().slice(0, 80)}`);
}

/** The hash of the one block `/blocks/{height}/{height+1}` answers; any other answer is refused. */
export function parseBlockHash(height: number, body: string, contentType = ""): string {
  const parsed = BlocksJson.safeParse(parseJson(body, contentType));
  if (!parsed.success) throw new OrdError("invalid", describeZod(parsed.error));
  const [block, ...more] = parsed.data;
  if (!block || more.length > 0 || block.height !== height) throw new OrdError("invalid", `the answer is not block ${height} alone`);
  return block.hash;
}

/** Which of the asked ids the answer covers; an answer missing one of them, or naming another, is refused. */
export function parseValidation(pairs: readonly ValidatePair[], body: string, contentType = ""): Map<string, boolean> {
  const parsed = ValidateJson.safeParse(parseJson(body, contentType));
  if (!parsed.success) throw new OrdError("invalid", describeZod(parsed.error));
  const answers = new Map<string, boolean>();
  for (const { inscriptionId } of pairs) {
    const valid = parsed.data[inscriptionId];
    if (valid === undefined) throw new OrdError("invalid", `validate answer has no ${inscriptionId}`);
    answers.set(inscriptionId, valid);
  }
  return answers;
}

/** The id a wonky-ord 404 names: `inscription {id} [current transaction [output] ]not found`, `delegate {id} not found`. */
const NAMED_ID = /^(?:inscription|delegate) ([0-9a-f]{64}i\d+) (?:current transaction (?:output )?)?not found/i;

/**
 * Only an empty 404 is a missing route (axum's fallback). Any 404 with a body is about an id: wonky-ord
 * answers `inscription {id} not found` for an id it does not know, `… current transaction not found` when
 * its node lookup fails (transient), `delegate {id} not found` for an unindexed delegate; a proxy's page
 * names nothing, and is still not a missing route.
 */
function notFound(body: string): OrdError {
  const text = body.trim();
  if (text === "") return new OrdError("unsupported", "route not found (an empty 404)", 404);
  const named = NAMED_ID.exec(text)?.[1]?.toLowerCase();
  return new OrdError("not_found", text.slice(0, 200), 404, named);
}

/**
 * A 400. Servers from before the validate route (2024-10) route `/inscriptions/validate` to
 * `/inscriptions/{from}` and answer ``Invalid URL: Cannot parse `"validate"` to a `u64` ``.
 */
function badRequest(body: string): OrdError {
  const text = body.trim().slice(0, 200);
  return /cannot parse `?"validate"`?/i.test(text)
    ? new OrdError("unsupported", `no validate route: ${text}`, 400)
    : new OrdError("bad_request", text, 400);
}

function failureOf(answer: Answer): OrdError | null {
  if (answer.status === 200) return null;
  if (answer.status === 404) return notFound(answer.body);
  if (answer.status === 400) return badRequest(answer.body);
  return new OrdError("http", `HTTP ${answer.status}`, answer.status);
}

/** The metrics' name of an ord route: status, block_count, inscription or validate. */
function endpointOf(path: string): string {
  const route = /^\/([a-z-]+)(\/validate)?/.exec(path);
  if (!route) return "other";
  if (route[2]) return "validate";
  return route[1] === "block-count" ? "block_count" : route[1];
}

/**
 * The size of the next validate batch, from how fast the last ones were answered (the server's time grows
 * with the ids asked): after an answer within half the timeout it grows, at most doubling, towards the size
 * the answer's pace brings within a quarter of the timeout; after a slower answer or a timeout it halves;
 * always within 1..max.
 */
export function createBatchSizer(start: number, max: number, timeoutMs: number) {
  let size = Math.min(max, Math.max(1, start));
  return {
    size: () => size,
    answered(pairs: number, ms: number) {
      if (ms > timeoutMs / 2) size = Math.max(1, Math.min(size, Math.floor(pairs / 2)));
      else size = Math.max(size, Math.min(max, size * 2, Math.floor(timeoutMs / 4 / (Math.max(ms, 1) / pairs))));
    },
    timedOut(pairs: number) {
      size = Math.max(1, Math.min(size, Math.floor(pairs / 2)));
    },
  };
}

const pairUriBytes = (pair: ValidatePair) => encodeURIComponent(pair.inscriptionId).length + encodeURIComponent(pair.address).length + 2;

/** Takes the next batch off the front of `pending` (groups, retries first): at most `size` pairs, within the URI budget. */
function takeBatch(pending: ValidatePair[][], size: number): ValidatePair[] | null {
  while (pending.length > 0 && pending[0].length === 0) pending.shift();
  const group = pending[0];
  if (!group) return null;
  let count = 0;
  for (let bytes = 0; count < Math.min(size, group.length); count++) {
    bytes += pairUriBytes(group[count]);
    if (bytes > VALIDATE_URI_BUDGET && count > 0) break;
  }
  return group.splice(0, count);
}

const halves = <T>(list: readonly T[]): T[][] => [list.slice(0, Math.ceil(list.length / 2)), list.slice(Math.ceil(list.length / 2))];

export function createOrdClient(options: OrdClientOptions): OrdClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const chain = options.chain ?? "mainnet";
  const concurrency = options.concurrency ?? 16;
  const timeoutMs = options.timeoutMs ?? 5000;
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 200;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const validateTimeoutMs = options.validateTimeoutMs ?? VALIDATE_TIMEOUT_MS;
  const startBatchSize = Math.max(1, options.validateStartBatchSize ?? VALIDATE_START_BATCH_SIZE);
  const sizer = createBatchSizer(startBatchSize, Math.max(1, options.validateBatchSize ?? VALIDATE_BATCH_SIZE), validateTimeoutMs);

  // node:http with a keep-alive agent: about 2.5× cheaper per request than fetch for thousands of small reads.
  const secure = new URL(baseUrl).protocol === "https:";
  const agent = new (secure ? https : http).Agent({ keepAlive: true, maxSockets: concurrency, timeout: KEEP_ALIVE_MS });

  type Patience = { timeoutMs: number; retryTimeouts: boolean };
  const READ: Patience = { timeoutMs, retryTimeouts: true };

  async function getOnce(path: string, signal: AbortSignal | undefined, patience: Patience): Promise<Answer> {
    const timeout = AbortSignal.timeout(patience.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      return await request(new URL(`${baseUrl}${path}`), agent, combined, maxBodyBytes);
    } catch (error) {
      if (error instanceof OrdError) throw error;
      if (signal?.aborted) throw new OrdError("aborted", "aborted");
      if (timeout.aborted) throw new OrdError("timeout", `no answer within ${patience.timeoutMs} ms`);
      throw new OrdError("network", (error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
  }

  async function get<T>(path: string, read: (answer: Answer) => T, signal?: AbortSignal, patience = READ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      const observe = (failure?: string) => observeOrdRequest(endpointOf(path), (performance.now() - started) / 1000, failure);
      try {
        const answer = await getOnce(path, signal, patience);
        const failure = failureOf(answer);
        if (failure) throw failure;
        const value = read(answer);
        observe();
        return value;
      } catch (error) {
        observe(error instanceof OrdError ? error.reason : "network");
        const failure = error as OrdError;
        const retryable = failure instanceof OrdError && failure.retryable && (patience.retryTimeouts || failure.reason !== "timeout");
        if (!retryable || attempt >= retries || signal?.aborted) throw error;
        await sleep(backoffMs * 2 ** attempt + Math.random() * backoffMs, signal);
      }
    }
  }

  const inscription = (inscriptionId: string, signal?: AbortSignal) =>
    get(
      `/inscription/${encodeURIComponent(inscriptionId)}?json=true`,
      (a) => parseInscription(inscriptionId, a.body, a.type, chain),
      signal,
    );

  async function settle(inscriptionId: string, signal?: AbortSignal): Promise<OrdResult> {
    try {
      return { ok: true, inscription: await inscription(inscriptionId, signal) };
    } catch (error) {
      const failure = error instanceof OrdError ? error : new OrdError("network", String(error));
      return { ok: false, error: failure };
    }
  }

  // A slow batch is split rather than asked again at the same size, so timeouts are not retried here.
  const VALIDATE: Patience = { timeoutMs: validateTimeoutMs, retryTimeouts: false };

  const validate = (pairs: readonly ValidatePair[], signal?: AbortSignal) => {
    const ids = pairs.map((pair) => encodeURIComponent(pair.inscriptionId)).join(",");
    const addresses = pairs.map((pair) => encodeURIComponent(pair.address)).join(",");
    return get(
      `/inscriptions/validate?inscription_ids=${ids}&addresses=${addresses}`,
      (a) => parseValidation(pairs, a.body, a.type),
      signal,
      VALIDATE,
    );
  };

  /** Asks one batch; what it could not answer goes back to the front of `pending` or into `unanswered`. */
  async function validateBatch(batch: ValidatePair[], pending: ValidatePair[][], outcome: ValidateOutcome, signal?: AbortSignal) {
    const started = performance.now();
    try {
      const answers = await validate(batch, signal);
      sizer.answered(batch.length, performance.now() - started);
      outcome.batchSizes.push(batch.length);
      for (const [id, valid] of answers) (valid ? outcome.confirmed : outcome.refuted).add(id);
    } catch (error) {
      if (!(error instanceof OrdError) || error.reason === "unsupported" || error.reason === "aborted") throw error;
      const unanswered = (pairs: readonly ValidatePair[]) => pairs.forEach((pair) => outcome.unanswered.add(pair.inscriptionId));
      if (error.reason === "timeout") {
        outcome.timeouts += 1;
        sizer.timedOut(batch.length);
        if (batch.length === 1) unanswered(batch);
        else pending.unshift(...halves(batch));
      } else if (error.reason === "not_found" && batch.some((pair) => pair.inscriptionId === error.inscriptionId)) {
        unanswered(batch.filter((pair) => pair.inscriptionId === error.inscriptionId));
        pending.unshift(batch.filter((pair) => pair.inscriptionId !== error.inscriptionId));
      } else if (error.reason === "bad_request" && batch.length > 1) {
        pending.unshift(...halves(batch));
      } else {
        unanswered(batch);
      }
    }
  }

  async function validateAll(pairs: readonly ValidatePair[], signal?: AbortSignal): Promise<ValidateOutcome> {
    const outcome: ValidateOutcome = { confirmed: new Set(), refuted: new Set(), unanswered: new Set(), batchSizes: [], timeouts: 0 };
    const pending: ValidatePair[][] = [pairs.slice()];
    let active = 0;
    let failure: { error: unknown } | null = null;
    let wake = () => {};
    let changed = new Promise<void>((resolve) => (wake = resolve));
    const lanes = Math.min(concurrency, 4); // a few big requests at once is plenty
    const left = () => pending.reduce((sum, group) => sum + group.length, 0);
    const lane = async () => {
      while (!failure) {
        // No bigger than an even share of what is left among the lanes not waiting for an answer (but not
        // below the first size): the pairs of a slow pass are spread over the lanes, a small pass stays one request.
        const share = Math.max(Math.min(startBatchSize, VALIDATE_START_BATCH_SIZE), Math.ceil(left() / (lanes - active)));
        const batch = takeBatch(pending, Math.min(sizer.size(), share));
        if (!batch) {
          if (active === 0) return;
          await changed; // another lane may put pairs back (a timed-out batch, in halves)
          continue;
        }
        active += 1;
        await validateBatch(batch, pending, outcome, signal).catch((error: unknown) => void (failure ??= { error }));
        active -= 1;
        wake();
        changed = new Promise<void>((resolve) => (wake = resolve));
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    if (failure) throw (failure as { error: unknown }).error;
    return outcome;
  }

  return {
    status: async (signal) => {
      try {
        return await get("/status", (a) => parseStatus(a.body, a.type), signal);
      } catch (error) {
        if (error instanceof OrdError && error.reason === "unsupported") return "unknown";
        throw error;
      }
    },
    blockCount: (signal) => get("/block-count", (a) => parseBlockCount(a.body, a.type), signal),
    blockHash: (height, signal) =>
      get(`/blocks/${height}/${height + 1}?no_inscriptions=true`, (a) => parseBlockHash(height, a.body, a.type), signal),
    inscription,
    inscriptions: (items, signal) =>
      mapConcurrent(items, concurrency, async (item) => ({ item, result: await settle(item.inscriptionId, signal) })),
    validate,
    validateAll,
    validateBatchSize: () => sizer.size(),
    close: () => agent.destroy(),
  };
}

/**
 * Runs `work` over `items` with at most `limit` in flight and yields results in completion order.
 * `work` must not reject.
 */
export async function* mapConcurrent<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): AsyncGenerator<R> {
  const ready: R[] = [];
  let wake: (() => void) | undefined;
  let next = 0;
  let active = 0;
  const launch = () => {
    while (active < limit && next < items.length) {
      const item = items[next++];
      active += 1;
      void work(item).then((result) => {
        active -= 1;
        ready.push(result);
        launch();
        wake?.();
      });
    }
  };
  launch();
  for (let yielded = 0; yielded < items.length;) {
    if (ready.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    while (ready.length > 0) {
      yielded += 1;
      yield ready.shift()!;
    }
  }
}
