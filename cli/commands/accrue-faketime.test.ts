/**
 * "Now" is the process clock: the same `points accrue` credits hours that have ended under faketime and
 * refuses them under the real clock. Needs Debian's faketime (installed by .ci/run); skipped without it.
 */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HOUR_MS } from "../../app/domain/clock.ts";
import { hourlyCreditUnits } from "../../app/domain/rewards.ts";
import { getBalanceUnits } from "../../db/queries/points.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { randomAddress, stakeDemoItems } from "../testing/fixtures.ts";
import { cliEnv, runCli, type CliEnv } from "../testing/run-cli.ts";

// Each test runs several CLI processes, each starting Node, tsx and the database: more than the suite's 30 s on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

function hasFaketime(): boolean {
  try {
    execFileSync("faketime", ["2030-01-01 00:00:00", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const STAKED_AT = new Date("2030-01-01T08:00:00.000Z");
const holder = randomAddress();
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: CliEnv;

describe.skipIf(!hasFaketime())("spooks-admin points accrue under faketime", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    await stakeDemoItems(db.sql, holder, 2, STAKED_AT);
    // Monotonic time stays real so Node's timers keep working.
    env = cliEnv(db.url, { FAKETIME_DONT_FAKE_MONOTONIC: "1" });
  });
  afterAll(async () => {
    await db?.close();
  });

  it("refuses a 2030 hour under the real clock, and credits it when faketime says it has ended", async () => {
    const hour = new Date(STAKED_AT.getTime() + 2 * HOUR_MS).toISOString();
    const real = await runCli(["points", "accrue", "--hour", hour, "--json"], env);
    expect(real.code).toBe(1);
    expect(real.stderr).toMatch(/has not ended yet/);
    expect(await getBalanceUnits(db.sql, holder)).toBe(0);

    const faked = await runCli(["points", "accrue", "--json"], env, { via: ["faketime", "2030-01-01 12:30:00"] });
    expect(faked.code, faked.stderr).toBe(0);
    const report = JSON.parse(faked.stdout) as { credited: { hour: string }[] };
    expect(report.credited.map((credit) => credit.hour).sort()).toEqual(
      [8, 9, 10, 11].map((h) => `2030-01-01T${String(h).padStart(2, "0")}:00:00.000Z`),
    );
    expect(await getBalanceUnits(db.sql, holder)).toBe(4 * hourlyCreditUnits(2));
  });
});
