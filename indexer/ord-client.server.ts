/**
 * HTTP client for a wonky-ord (ord-dogecoin fork) server, as its source behaves (shared/spec/REAL-WORLD.md):
 * `GET /status`, `GET /block-count`, `GET /inscription/{id}?json=true` and `GET /inscriptions/validate`.
 * Every answer is checked (zod, chain, address network, satpoint format); a timeout, 5xx, HTML page or
 * unparseable body becomes a typed failure, never an owner. Every request asks for gzip and decodes it.
 */
import http from "node:http";
import https from "node:https";
import zlib from "node:zlib";
import { z } from "zod";
import { chainAddressKind, type AddressKind, type OrdChain } from "../app/domain/address.ts";
import { observeOrdRequest } from "../app/utils/metrics.server.ts";

export const SATPOINT_PATTERN = /^[0-9a-f]{64}:\d+:\d+$/;

/** Where an inscription sits: a P2PKH or P2SH address, or an output with no address ("none"). */
export type OwnerKind = AddressKind | "none";

export type OrdInscription = { inscriptionId: string; address: string | null; kind: OwnerKind; satpoint: string };

export type OrdFailureReason =
  | "timeout"
  | "network"
  | "http" // a status other than 200, 400 and 404
  | "not_found" // 404 naming the inscription (also transient on the real server)
  | "bad_request" // 400: the server calls an id malformed
  | "unsupported" // the route does not exist on this server (a 404 naming no inscription, or an old server's 400)
  | "html"
  | "unparseable"
  | "invalid" // parsed, but not a valid answer (other chain, other network, bad satpoint, other inscription)
  | "aborted";

export class OrdError extends Error {
  constructor(
    readonly reason: OrdFailureReason,
    message: string,
    readonly status?: number,
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

/** What `/inscriptions/validate` said of many pairs; `unanswered` are ids whose batch failed (read them one by one). */
export type ValidateOutcome = { confirmed: Set<string>; refuted: Set<string>; unanswered: Set<string> };

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
  /** Pairs per validate request; the server refuses URIs over 65,534 bytes (about 640 pairs). */
  validateBatchSize?: number;
};

export type OrdClient = {
  status(signal?: AbortSignal): Promise<OrdStatus>;
  blockCount(signal?: AbortSignal): Promise<number>;
  inscription(inscriptionId: string, signal?: AbortSignal): Promise<OrdInscription>;
  /** Reads many inscriptions, at most `concurrency` at a time, yielding each result as it arrives. */
  inscriptions<T extends { inscriptionId: string }>(
    items: readonly T[],
    signal?: AbortSignal,
  ): AsyncGenerator<{ item: T; result: OrdResult }>;
  /** One validate request (at most `validateBatchSize` pairs). */
  validate(pairs: readonly ValidatePair[], signal?: AbortSignal): Promise<Map<string, boolean>>;
  /**
   * Validates any number of pairs in batches. A batch refused for one unknown or malformed id is split
   * until that id stands alone, so the others are still answered. Throws `unsupported` when the server has
   * no validate route.
   */
  validateAll(pairs: readonly ValidatePair[], signal?: AbortSignal): Promise<ValidateOutcome>;
  /** Closes idle keep-alive connections. */
  close(): void;
};

type Answer = { status: number; type: string; body: string };

const KEEP_ALIVE_MS = 4000;
export const VALIDATE_BATCH_SIZE = 500;
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
  if (!kind) throw new OrdError("invalid", `address ${address} is not a ${chain} P2PKH or P2SH address`);
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

export function parseStatus(body: string, contentType = ""): OrdStatus {
  if (looksLikeHtml(contentType, body)) throw new OrdError("html", "HTML instead of a status");
  if (/unrecoverable/i.test(body)) return "unrecoverable";
  if (body.trim() === "OK") return "ok";
  throw new OrdError("unparseable", `unexpected status: ${body.trim().slice(0, 80)}`);
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

/**
 * wonky-ord answers `inscription {id} not found` for an id it does not know, and `inscription {id} current
 * transaction not found` when its node lookup fails (transient); any other 404 is a missing route.
 */
function notFound(body: string): OrdError {
  return /^inscription \S+ (current transaction )?not found/i.test(body.trim())
    ? new OrdError("not_found", body.trim().slice(0, 200), 404)
    : new OrdError("unsupported", `route not found${body.trim() ? `: ${body.trim().slice(0, 80)}` : ""}`, 404);
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

/** A batch refused for one of its ids (unknown or malformed): splitting it isolates that id. */
const isBlamedOnAnId = (error: OrdError) => error.reason === "not_found" || error.reason === "bad_request";

export function createOrdClient(options: OrdClientOptions): OrdClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const chain = options.chain ?? "mainnet";
  const concurrency = options.concurrency ?? 16;
  const timeoutMs = options.timeoutMs ?? 5000;
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 200;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const batchSize = Math.max(1, options.validateBatchSize ?? VALIDATE_BATCH_SIZE);

  // node:http with a keep-alive agent: about 2.5× cheaper per request than fetch for thousands of small reads.
  const secure = new URL(baseUrl).protocol === "https:";
  const agent = new (secure ? https : http).Agent({ keepAlive: true, maxSockets: concurrency, timeout: KEEP_ALIVE_MS });

  async function getOnce(path: string, signal?: AbortSignal): Promise<Answer> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      return await request(new URL(`${baseUrl}${path}`), agent, combined, maxBodyBytes);
    } catch (error) {
      if (error instanceof OrdError) throw error;
      if (signal?.aborted) throw new OrdError("aborted", "aborted");
      if (timeout.aborted) throw new OrdError("timeout", `no answer within ${timeoutMs} ms`);
      throw new OrdError("network", (error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
  }

  async function get<T>(path: string, read: (answer: Answer) => T, signal?: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      const observe = (failure?: string) => observeOrdRequest(endpointOf(path), (performance.now() - started) / 1000, failure);
      try {
        const answer = await getOnce(path, signal);
        const failure = failureOf(answer);
        if (failure) throw failure;
        const value = read(answer);
        observe();
        return value;
      } catch (error) {
        observe(error instanceof OrdError ? error.reason : "network");
        const failure = error as OrdError;
        if (!(failure instanceof OrdError) || !failure.retryable || attempt >= retries || signal?.aborted) throw error;
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

  const validate = (pairs: readonly ValidatePair[], signal?: AbortSignal) => {
    const ids = pairs.map((pair) => encodeURIComponent(pair.inscriptionId)).join(",");
    const addresses = pairs.map((pair) => encodeURIComponent(pair.address)).join(",");
    return get(
      `/inscriptions/validate?inscription_ids=${ids}&addresses=${addresses}`,
      (a) => parseValidation(pairs, a.body, a.type),
      signal,
    );
  };

  /** Validates one batch, splitting it in halves while the server blames one of its ids. */
  async function validateSplitting(pairs: readonly ValidatePair[], outcome: ValidateOutcome, signal?: AbortSignal): Promise<void> {
    try {
      for (const [id, valid] of await validate(pairs, signal)) (valid ? outcome.confirmed : outcome.refuted).add(id);
    } catch (error) {
      if (!(error instanceof OrdError) || error.reason === "unsupported" || error.reason === "aborted") throw error;
      if (!isBlamedOnAnId(error) || pairs.length === 1) {
        for (const pair of pairs) outcome.unanswered.add(pair.inscriptionId);
        return;
      }
      const half = Math.ceil(pairs.length / 2);
      await validateSplitting(pairs.slice(0, half), outcome, signal);
      await validateSplitting(pairs.slice(half), outcome, signal);
    }
  }

  async function validateAll(pairs: readonly ValidatePair[], signal?: AbortSignal): Promise<ValidateOutcome> {
    const outcome: ValidateOutcome = { confirmed: new Set(), refuted: new Set(), unanswered: new Set() };
    const batches: ValidatePair[][] = [];
    for (let start = 0; start < pairs.length; start += batchSize) batches.push(pairs.slice(start, start + batchSize));
    const lanes = Math.min(concurrency, 4); // each batch is a big request; a few in parallel is plenty
    const settled = mapConcurrent(batches, lanes, (batch) =>
      validateSplitting(batch, outcome, signal).then(
        () => null,
        (error: unknown) => ({ error }),
      ),
    );
    for await (const failure of settled) if (failure) throw failure.error;
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
    inscription,
    inscriptions: (items, signal) =>
      mapConcurrent(items, concurrency, async (item) => ({ item, result: await settle(item.inscriptionId, signal) })),
    validate,
    validateAll,
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
