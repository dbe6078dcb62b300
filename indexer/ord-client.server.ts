/**
 * HTTP client for a wonky-ord (ord-dogecoin fork) server. It uses only `GET /inscription/{id}?json=true`
 * and `GET /block-count`. Every answer is checked (zod, Dogecoin address, satpoint format); a timeout,
 * 5xx, HTML page or unparseable body becomes a typed failure, never an owner.
 */
import http from "node:http";
import https from "node:https";
import { z } from "zod";
import { isDogecoinAddress } from "../app/domain/address.ts";

export const SATPOINT_PATTERN = /^[0-9a-f]{64}:\d+:\d+$/;

export type OrdInscription = { inscriptionId: string; address: string; satpoint: string };

export type OrdFailureReason =
  | "timeout"
  | "network"
  | "http" // a status other than 200 and 404
  | "not_found"
  | "html"
  | "unparseable"
  | "invalid" // parsed, but not a valid answer (bad address, satpoint, other inscription)
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

export type OrdClientOptions = {
  baseUrl: string;
  concurrency?: number;
  timeoutMs?: number;
  retries?: number;
  /** First retry delay; doubles each attempt, plus jitter. */
  backoffMs?: number;
  /** Answers larger than this are refused (wonky-ord inlines the inscription's content as base64). */
  maxBodyBytes?: number;
};

export type OrdClient = {
  blockCount(signal?: AbortSignal): Promise<number>;
  inscription(inscriptionId: string, signal?: AbortSignal): Promise<OrdInscription>;
  /** Reads many inscriptions, at most `concurrency` at a time, yielding each result as it arrives. */
  inscriptions<T extends { inscriptionId: string }>(
    items: readonly T[],
    signal?: AbortSignal,
  ): AsyncGenerator<{ item: T; result: OrdResult }>;
  /** Closes idle keep-alive connections. */
  close(): void;
};

type Answer = { status: number; type: string; body: string };

const KEEP_ALIVE_MS = 4000;

function request(url: URL, agent: http.Agent, signal: AbortSignal, maxBodyBytes: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const get = url.protocol === "https:" ? https.get : http.get;
    const req = get(url, { agent, signal, headers: { accept: "application/json" } }, (res) => {
      const tooLarge = () => {
        res.destroy();
        reject(new OrdError("invalid", `answer larger than ${maxBodyBytes} bytes`));
      };
      if (Number(res.headers["content-length"] ?? 0) > maxBodyBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBodyBytes) tooLarge();
        else chunks.push(chunk);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
      res.on("close", () => res.complete || reject(new Error("connection closed mid-answer")));
    });
    req.on("error", reject);
  });
}

const InscriptionJson = z.object({
  inscription_id: z.string(),
  address: z.string().refine(isDogecoinAddress, "not a valid Dogecoin address"),
  satpoint: z.string().regex(SATPOINT_PATTERN, "not txid:vout:offset"),
});

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

export function parseInscription(inscriptionId: string, body: string, contentType = ""): OrdInscription {
  if (looksLikeHtml(contentType, body)) throw new OrdError("html", "HTML instead of JSON");
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new OrdError("unparseable", "body is not JSON");
  }
  const parsed = InscriptionJson.safeParse(json);
  if (!parsed.success) throw new OrdError("invalid", describeZod(parsed.error));
  if (parsed.data.inscription_id !== inscriptionId) {
    throw new OrdError("invalid", `answer is about ${parsed.data.inscription_id}`);
  }
  return { inscriptionId, address: parsed.data.address, satpoint: parsed.data.satpoint };
}

export function parseBlockCount(body: string, contentType = ""): number {
  if (looksLikeHtml(contentType, body)) throw new OrdError("html", "HTML instead of a height");
  const text = body.trim();
  const height = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(height)) throw new OrdError("unparseable", "block count is not a number");
  return height;
}

export function createOrdClient(options: OrdClientOptions): OrdClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const concurrency = options.concurrency ?? 16;
  const timeoutMs = options.timeoutMs ?? 5000;
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 200;
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;

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
      try {
        const answer = await getOnce(path, signal);
        if (answer.status === 404) throw new OrdError("not_found", "not found (404)", 404);
        if (answer.status !== 200) throw new OrdError("http", `HTTP ${answer.status}`, answer.status);
        return read(answer);
      } catch (error) {
        const failure = error as OrdError;
        if (!(failure instanceof OrdError) || !failure.retryable || attempt >= retries || signal?.aborted) throw error;
        await sleep(backoffMs * 2 ** attempt + Math.random() * backoffMs, signal);
      }
    }
  }

  const inscription = (inscriptionId: string, signal?: AbortSignal) =>
    get(`/inscription/${encodeURIComponent(inscriptionId)}?json=true`, (a) => parseInscription(inscriptionId, a.body, a.type), signal);

  async function settle(inscriptionId: string, signal?: AbortSignal): Promise<OrdResult> {
    try {
      return { ok: true, inscription: await inscription(inscriptionId, signal) };
    } catch (error) {
      const failure = error instanceof OrdError ? error : new OrdError("network", String(error));
      return { ok: false, error: failure };
    }
  }

  return {
    blockCount: (signal) => get("/block-count", (a) => parseBlockCount(a.body, a.type), signal),
    inscription,
    inscriptions: (items, signal) => mapConcurrent(items, concurrency, async (item) => ({ item, result: await settle(item.inscriptionId, signal) })),
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
  for (let yielded = 0; yielded < items.length; ) {
    if (ready.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    while (ready.length > 0) {
      yielded += 1;
      yield ready.shift()!;
    }
  }
}
