/**
 * The CLI's log, from the real `spooks-admin`: the indexer's passes it runs log as service "cli" on stderr,
 * at warn unless LOG_LEVEL says otherwise, and `--json` keeps stdout pure JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR_MS } from "../app/domain/clock.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { randomAddress, stakeDemoItems } from "./testing/fixtures.ts";
import { cliEnv, runCli, type CliEnv } from "./testing/run-cli.ts";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: CliEnv;

beforeAll(async () => {
  db = await createTestDatabase();
  // Staked ten hours ago, with a catch-up limit of two hours: every pass leaves older hours alone, and warns.
  await stakeDemoItems(db.sql, randomAddress(), 1, new Date(Date.now() - 10 * HOUR_MS));
  env = cliEnv(db.url, { ACCRUAL_CATCHUP_HOURS: "2" });
});
afterAll(async () => {
  await db?.close();
});

const logLines = (stderr: string) =>
  stderr
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("spooks-admin's log", () => {
  it("goes to stderr as JSON lines of service cli, at warn by default, leaving --json's stdout pure JSON", async () => {
    const run = await runCli(["points", "accrue", "--json"], { ...env, LOG_LEVEL: undefined });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ hours: 2, beyondLimit: expect.any(Number) });
    expect(logLines(run.stderr)).toEqual([
      expect.objectContaining({
        level: "warn",
        service: "cli",
        msg: "uncredited hours older than the catch-up limit were left alone",
        maxHours: 2,
      }),
    ]);
  });

  it("follows LOG_LEVEL: info adds each pass's summary, silent says nothing", async () => {
    const chatty = await runCli(["points", "accrue", "--json"], { ...env, LOG_LEVEL: "info" });
    expect(chatty.code, chatty.stderr).toBe(0);
    expect(JSON.parse(chatty.stdout)).toMatchObject({ hours: 0 });
    expect(logLines(chatty.stderr).map((line) => [line.level, line.service, line.msg])).toEqual([
      ["info", "cli", "accrual"],
      ["warn", "cli", "uncredited hours older than the catch-up limit were left alone"],
    ]);

    const quiet = await runCli(["points", "accrue", "--json"], { ...env, LOG_LEVEL: "silent" });
    expect(quiet).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(quiet.stdout)).toMatchObject({ hours: 0 });
  });
});
