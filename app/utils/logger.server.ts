/**
 * Structured logs with pino: one JSON line per event, each with the level's name, an ISO `time`, `pid`,
 * `hostname` and `service` (web, indexer, cli); an error goes under `err` with its type, message and stack.
 * Secrets never reach a line (REDACTED). Lines go to stdout (the CLI's to stderr, its stdout being its
 * result). Readable lines instead of JSON (pino-pretty, a devDependency: production images lack it) with
 * LOG_FORMAT=pretty, or when LOG_FORMAT is unset in development on a terminal. docs/decisions.md, "Logs".
 *
 * Call style: `logger.info({ msg: "listening", url })`; pino also takes `logger.info({ url }, "listening")`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createRequire } from "node:module";
import os from "node:os";
import { pino, type DestinationStream, type Logger as PinoLogger } from "pino";
import type { PrettyOptions } from "pino-pretty";
import { redactUrlsDeep } from "../domain/redact.ts";

export type Logger = PinoLogger;
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ["json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export type Service = "web" | "indexer" | "cli";

/** What the configuration says (LOG_LEVEL, LOG_FORMAT, NODE_ENV); unset means each program's default. */
export type LogSettings = { logLevel?: LogLevel; logFormat?: LogFormat; nodeEnv?: "development" | "production" | "test" };

/** stdout (1), stderr (2), or any stream with write(line) (tests). */
export type LogDestination = 1 | 2 | DestinationStream;

/**
 * Process-wide, kept on globalThis: the server build bundles its own copy of this module beside the one
 * server/start.ts imports, and both must share the request scope and write through one stream per fd.
 */
const shared = ((globalThis as Record<symbol, unknown>)[Symbol.for("spooks.logging")] ??= {
  requestScope: new AsyncLocalStorage<Logger>(),
  destinations: new Map<number, DestinationStream>(),
}) as { requestScope: AsyncLocalStorage<Logger>; destinations: Map<number, DestinationStream> };

/**
 * Whatever a line might carry that must not be read by whoever reads logs: session cookies, credentials,
 * tokens, keys, signatures and signed messages. No code logs these today; this keeps a future
 * `log.info({ req })` safe. Credentials inside a URL (`ORD_URL=https://user:pass@…`) are stripped from every
 * text of a line, errors' messages and stacks included (app/domain/redact.ts).
 */
const REDACTED = [
  "token",
  "*.token",
  "sessionToken",
  "*.sessionToken",
  "password",
  "*.password",
  "privateKeyHex",
  "*.privateKeyHex",
  "secret",
  "*.secret",
  "req.headers.cookie",
  "req.headers.authorization",
  'res.headers["set-cookie"]',
  "headers.cookie",
  "headers.authorization",
  'headers["set-cookie"]',
  "signature",
  "body.signature",
  "body.message",
  "req.body.signature",
  "req.body.message",
];

/** LOG_LEVEL unset: info, except the CLI (warn: its output is its result) and test runs (warn: quiet suites). */
function defaultLevel(service: Service, nodeEnv: LogSettings["nodeEnv"]): LogLevel {
  return service === "cli" || nodeEnv === "test" ? "warn" : "info";
}

export function createLogger(service: Service, settings: LogSettings = {}, destination: LogDestination = 1): Logger {
  const wanted = wantsPretty(settings, destination);
  const pretty = wanted ? prettyDestination(destination) : undefined;
  const logger = pino(
    {
      level: settings.logLevel ?? defaultLevel(service, settings.nodeEnv),
      base: { pid: process.pid, hostname: os.hostname(), service },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: (error: Error) => redactUrlsDeep({ ...pino.stdSerializers.err(error) }) },
      formatters: { level: (label) => ({ level: label }), log: (fields) => redactUrlsDeep(fields) },
      redact: { paths: REDACTED, censor: "[redacted]" },
    },
    pretty ?? outputStream(destination),
  );
  if (wanted && !pretty && settings.logFormat === "pretty") {
    logger.warn({ msg: "LOG_FORMAT=pretty needs pino-pretty (a devDependency), which is not installed here: logging JSON" });
  }
  return logger;
}

/** A logger that writes nothing (the indexer's passes when their caller gives none, tests). */
export const silentLogger: Logger = pino({ level: "silent" });

// Readable output ---------------------------------------------------------------------------------

function isTerminal(destination: LogDestination): boolean {
  if (typeof destination !== "number") return false;
  return Boolean(destination === 1 ? process.stdout.isTTY : process.stderr.isTTY);
}

function wantsPretty({ logFormat, nodeEnv = "development" }: LogSettings, destination: LogDestination): boolean {
  if (logFormat) return logFormat === "pretty";
  return nodeEnv === "development" && isTerminal(destination);
}

/** pino-pretty run in this thread, line by line (no worker): nothing is lost when the process exits at once. */
function prettyDestination(destination: LogDestination): DestinationStream | undefined {
  let prettyFactory: (options: PrettyOptions) => (line: string) => string;
  try {
    ({ prettyFactory } = createRequire(import.meta.url)("pino-pretty") as { prettyFactory: typeof prettyFactory });
  } catch {
    return undefined;
  }
  const prettify = prettyFactory({
    colorize: isTerminal(destination),
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,service",
    singleLine: true,
    messageFormat: (line, messageKey) => `${String(line.service)}: ${requestSummary(line) ?? String(line[messageKey])}`,
  });
  const out = outputStream(destination);
  return { write: (line: string) => void out.write(prettify(line)) };
}

/** A request line (server/request-log.ts) reads as `GET /api/health 200 3 ms`, or `… (request aborted)`. */
function requestSummary({ method, path, status, durationMs, msg }: Record<string, unknown>): string | undefined {
  if (typeof status !== "number" || typeof durationMs !== "number") return undefined;
  const outcome = msg === "request completed" ? "" : ` (${String(msg)})`;
  return `${String(method)} ${String(path)} ${status} ${durationMs} ms${outcome}`;
}

// Where lines go -----------------------------------------------------------------------------------

/** stdout is written asynchronously (pino's default, flushed at exit); stderr synchronously, in order with the CLI's own messages. */
function outputStream(destination: LogDestination): DestinationStream {
  if (typeof destination !== "number") return destination;
  let stream = shared.destinations.get(destination);
  if (!stream) {
    stream = pino.destination({ dest: destination, sync: destination === 2 });
    shared.destinations.set(destination, stream);
  }
  return stream;
}

// The request being answered --------------------------------------------------------------------

/** Runs `work` (React Router answering one request) with `logger` as the request's logger. */
export function withRequestLogger<T>(logger: Logger, work: () => T): T {
  return shared.requestScope.run(logger, work);
}

let fallback: Logger | undefined;

/**
 * The logger of the request being answered (its lines carry the request id), for code that has only the
 * Request (app/utils/api.server.ts); loaders and actions have it as `context.logger`. Outside a request (a
 * handler called directly by a test or a benchmark): a web logger at LOG_LEVEL.
 */
export function requestLogger(): Logger {
  const level = process.env.LOG_LEVEL as LogLevel | undefined;
  return (
    shared.requestScope.getStore() ??
    (fallback ??= createLogger("web", { logLevel: level && LOG_LEVELS.includes(level) ? level : undefined, logFormat: "json" }))
  );
}
