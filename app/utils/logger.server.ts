/** Structured logs: one JSON line per event on stdout (errors on stderr). */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type Logger = Record<Exclude<LogLevel, "silent">, (fields: Record<string, unknown> & { msg: string }) => void>;

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLogger(level: LogLevel = "info", base: Record<string, unknown> = {}): Logger {
  const emit = (at: Exclude<LogLevel, "silent">) => (fields: Record<string, unknown> & { msg: string }) => {
    if (ORDER[at] < ORDER[level]) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level: at, ...base, ...fields });
    (at === "error" ? process.stderr : process.stdout).write(`${line}\n`);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

export const silentLogger: Logger = createLogger("silent");
