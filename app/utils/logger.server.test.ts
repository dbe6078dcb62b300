/**
 * The logger as whoever reads the logs meets it: JSON lines with the level's name, an ISO time, the service
 * and errors' stacks; LOG_LEVEL honoured; secrets redacted; readable lines in development on a terminal
 * (a real pseudo-terminal) and with LOG_FORMAT=pretty, JSON otherwise, and JSON when pino-pretty is absent.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger, requestLogger, withRequestLogger, type LogSettings, type Service } from "./logger.server.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

function capture(service: Service, settings: LogSettings) {
  const lines: string[] = [];
  const logger = createLogger(service, settings, { write: (line: string) => void lines.push(line) });
  return { logger, lines, json: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("JSON lines", () => {
  it("carry the level's name, an ISO time, pid, hostname, the service and the fields, in one line each", () => {
    const { logger, lines, json } = capture("indexer", { logLevel: "info" });
    logger.info({ msg: "indexer started", syncCron: "* * * * *" });
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith("}\n")).toBe(true);
    expect(lines[0].trimEnd().split("\n")).toHaveLength(1);
    const [line] = json();
    expect(line).toEqual({
      level: "info",
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      pid: process.pid,
      hostname: os.hostname(),
      service: "indexer",
      msg: "indexer started",
      syncCron: "* * * * *",
    });
  });

  it("give an error under err with its type, message and stack", () => {
    const { logger, json } = capture("web", { logLevel: "info" });
    const error = new TypeError("no such relation");
    logger.error({ msg: "unexpected API error", err: error });
    expect(json()[0]).toMatchObject({
      level: "error",
      msg: "unexpected API error",
      err: { type: "TypeError", message: "no such relation", stack: error.stack },
    });
  });

  it("never carry cookies, credentials, signatures or signed messages", () => {
    const { logger, lines, json } = capture("web", { logLevel: "info" });
    logger.info({
      msg: "careless",
      req: { headers: { cookie: "spooks_session=SECRET-1", authorization: "Bearer SECRET-2" } },
      res: { headers: { "set-cookie": "spooks_session=SECRET-3" } },
      body: { signature: "SECRET-4", message: "SECRET-5", address: "D-public" },
      signature: "SECRET-6",
    });
    expect(lines.join("")).not.toMatch(/SECRET/);
    expect(json()[0]).toMatchObject({ req: { headers: { cookie: "[redacted]" } }, body: { address: "D-public", signature: "[redacted]" } });
  });

  it("never carry tokens, keys, or the credentials of a URL (ORD_URL, DATABASE_URL), in fields, texts or errors", () => {
    const { logger, lines, json } = capture("indexer", { logLevel: "info" });
    const ordUrl = "https://spooks:SECRET-7@ord.example:8443/";
    logger.warn({
      msg: `the ord server at ${ordUrl} has no /inscriptions/validate`,
      ord: ordUrl,
      token: "SECRET-8",
      session: { token: "SECRET-9", address: "D-public" },
      wallet: { privateKeyHex: "SECRET-10" },
      urls: ["postgres://spooks:SECRET-11@db:5432/spooks"],
      err: new Error(`connect ECONNREFUSED ${ordUrl}`, { cause: new Error("postgres://u:SECRET-12@db/x") }),
    });
    expect(lines.join("")).not.toMatch(/SECRET/);
    const [line] = json();
    expect(line.ord).toBe("https://[redacted]@ord.example:8443/");
    expect(line.session).toEqual({ token: "[redacted]", address: "D-public" });
    expect((line.err as { message: string }).message).toMatch(/^connect ECONNREFUSED https:\/\/\[redacted\]@ord\.example:8443\//);
  });
});

describe("LOG_LEVEL", () => {
  it("drops what is below it", () => {
    const { logger, json } = capture("web", { logLevel: "warn" });
    logger.debug({ msg: "d" });
    logger.info({ msg: "i" });
    logger.warn({ msg: "w" });
    logger.error({ msg: "e" });
    expect(json().map((line) => line.msg)).toEqual(["w", "e"]);
  });

  it("takes pino's names, trace and fatal included", () => {
    const { logger, json } = capture("web", { logLevel: "trace" });
    logger.trace({ msg: "t" });
    logger.fatal({ msg: "f" });
    expect(json().map((line) => line.level)).toEqual(["trace", "fatal"]);
  });

  it.each([
    ["web", "development", "info"],
    ["indexer", "production", "info"],
    ["cli", "production", "warn"],
    ["web", "test", "warn"],
  ] as const)("unset: %s under NODE_ENV=%s logs from %s", (service, nodeEnv, level) => {
    expect(capture(service, { nodeEnv }).logger.level).toBe(level);
  });
});

describe("the request's logger", () => {
  it("is the one the request is answered with, and outside a request a web logger of its own", async () => {
    const { logger } = capture("web", { logLevel: "info" });
    const scoped = logger.child({ reqId: "r-1" });
    const seen = await withRequestLogger(scoped, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return requestLogger();
    });
    expect(seen).toBe(scoped);
    expect(requestLogger()).not.toBe(scoped);
    expect(requestLogger().bindings()).toMatchObject({ service: "web" });
  });
});

/** Runs a script that logs one info line, in a child process, as `npm start` would. */
function logOnce(env: Record<string, string>, { terminal = false, appDir = ROOT } = {}): string {
  const script = `import { createLogger } from ${JSON.stringify(path.join(appDir, "app/utils/logger.server.ts"))};
const logger = createLogger("web", { nodeEnv: process.env.NODE_ENV, logFormat: process.env.LOG_FORMAT });
logger.info({ msg: "listening", url: "http://localhost:3000" });`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-log-"));
  const file = path.join(dir, "log-once.ts");
  fs.writeFileSync(file, script);
  const node = [process.execPath, "--import", "tsx", file];
  const options = { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: "utf8" as const };
  try {
    if (!terminal) return execFileSync(node[0], node.slice(1), options);
    // `script` runs the command on a pseudo-terminal, as an operator's shell would.
    const quoted = node.map((part) => `'${part}'`).join(" ");
    return spawnSync("script", ["-qfec", quoted, "/dev/null"], options).stdout;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const hasScript = spawnSync("script", ["--version"]).status === 0;

describe("output format", () => {
  it("is JSON on a pipe in development", () => {
    expect(JSON.parse(logOnce({ NODE_ENV: "development" }))).toMatchObject({ level: "info", msg: "listening" });
  });

  it.runIf(hasScript)("is readable on a terminal in development, and JSON there in production", () => {
    const readable = logOnce({ NODE_ENV: "development" }, { terminal: true });
    expect(readable).toMatch(/INFO.*web: listening/);
    expect(readable).not.toContain('"level"');
    const production = logOnce({ NODE_ENV: "production" }, { terminal: true });
    expect(JSON.parse(production.trim())).toMatchObject({ level: "info", msg: "listening" });
  });

  it("is readable with LOG_FORMAT=pretty, even on a pipe; LOG_FORMAT=json keeps a terminal's JSON", () => {
    expect(logOnce({ NODE_ENV: "production", LOG_FORMAT: "pretty" })).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: web: listening \{"url":"http:\/\/localhost:3000"\}\n$/,
    );
    if (hasScript) {
      const json = logOnce({ NODE_ENV: "development", LOG_FORMAT: "json" }, { terminal: true });
      expect(JSON.parse(json.trim())).toMatchObject({ msg: "listening" });
    }
  });

  it("stays JSON, saying why, where pino-pretty is not installed (a production image)", () => {
    // The module (and what it imports of ours) alone, beside a node_modules holding its dependencies (pino, @noble/hashes) but not pino-pretty (npm ci --omit=dev).
    const app = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-prod-"));
    fs.mkdirSync(path.join(app, "app/utils"), { recursive: true });
    fs.mkdirSync(path.join(app, "app/domain"), { recursive: true });
    for (const file of ["app/utils/logger.server.ts", "app/domain/redact.ts"]) fs.copyFileSync(path.join(ROOT, file), path.join(app, file));
    fs.mkdirSync(path.join(app, "node_modules/@noble"), { recursive: true });
    for (const dependency of ["pino", "@noble/hashes"]) {
      fs.symlinkSync(path.join(ROOT, "node_modules", dependency), path.join(app, "node_modules", dependency));
    }
    try {
      const lines = logOnce({ NODE_ENV: "production", LOG_FORMAT: "pretty" }, { appDir: app })
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines).toMatchObject([
        { level: "warn", msg: expect.stringMatching(/^LOG_FORMAT=pretty needs pino-pretty .* logging JSON$/) },
        { level: "info", msg: "listening" },
      ]);
    } finally {
      fs.rmSync(app, { recursive: true, force: true });
    }
  });
});
