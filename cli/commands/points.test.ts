import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { UNITS_PER_POINT } from "../../app/domain/rewards.ts";
import { appendLedger, getBalanceUnits } from "../../db/queries/points.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { randomAddress } from "../testing/fixtures.ts";
import { cliEnv, runCli, runJson, type CliEnv } from "../testing/run-cli.ts";

// Each test runs several CLI processes, each starting Node, tsx and the database: more than the suite's 30 s on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: CliEnv;
const alice = randomAddress();
const bob = randomAddress();

beforeAll(async () => {
  db = await createTestDatabase();
  env = cliEnv(db.url);
});
afterAll(async () => {
  await db?.close();
});

const balance = async (address: string) => (await getBalanceUnits(db.sql, address)) / UNITS_PER_POINT;
const ledgerCount = async () => (await db.sql<{ n: number }[]>`select count(*)::int as n from points_ledger`)[0].n;
const auditActions = async () =>
  await db.sql<{ actor: string; action: string; target: string | null }[]>`select actor, action, target from audit_log order by id`;

describe("spooks-admin users and points", () => {
  it("adds points with a ledger row and a cli audit entry; lists and searches users", async () => {
    const empty = await runCli(["users"], env);
    expect(empty).toMatchObject({ code: 0, stderr: "", stdout: "No users with points found\n" });

    const [added] = await Promise.all([
      runCli(["points", "add", alice, "150", "--description", "Halloween bonus"], env),
      runJson(["points", "add", bob, "1234567"], env),
    ]);
    expect(added).toMatchObject({ code: 0, stderr: "" });
    expect(added.stdout).toBe(`✔ Points added: 150.00 to ${alice} (balance 150.00)\n`);
    expect(await runJson(["points", "add", alice, "2.5"], env)).toEqual({
      address: alice,
      totalPoints: 152.5,
      added: 2.5,
      description: "Manual adjustment by admin",
    });
    expect(await balance(alice)).toBe(152.5);

    const ledger = await db.sql`select kind, amount, description, actor from points_ledger where address = ${alice} order by id`;
    expect(ledger).toEqual([
      { kind: "admin_add", amount: 150 * UNITS_PER_POINT, description: "Halloween bonus", actor: "cli" },
      { kind: "admin_add", amount: 2.5 * UNITS_PER_POINT, description: "Manual adjustment by admin", actor: "cli" },
    ]);
    expect((await auditActions()).filter((row) => row.target === alice)).toEqual([
      { actor: "cli", action: "points.add", target: alice },
      { actor: "cli", action: "points.add", target: alice },
    ]);

    const [table, searched, none] = await Promise.all([
      runCli(["users"], env),
      runJson(["users", "--search", alice.slice(3, 12).toLowerCase()], env),
      runCli(["users", "--search", "no-such-wallet"], env),
    ]);
    expect(table.stdout.split("\n")).toEqual([
      // Issue 33, item 3: what each wallet earns per day, boosts included.
      expect.stringMatching(/^Wallet Address\s+Total Points\s+Staked Doginals\s+Per Day$/),
      expect.stringMatching(/^─+/),
      expect.stringMatching(new RegExp(`^${bob}\\s+1,234,567\\.00\\s+0\\s+0$`)),
      expect.stringMatching(new RegExp(`^${alice}\\s+152\\.50\\s+0\\s+0$`)),
      "",
    ]);
    expect(searched).toEqual([{ address: alice, totalPoints: 152.5, stakedCount: 0, dailyRate: 0 }]);
    expect(none.stdout).toBe("No users found matching search criteria\n");
  });

  it("refuses bad input with the web admin's texts and changes nothing", async () => {
    const before = await ledgerCount();
    const [badAddress, negative, zero, decimals, words, missing] = await Promise.all([
      runCli(["points", "add", "DNotAnAddress123", "5"], env),
      runCli(["points", "add", alice, "-5"], env),
      runCli(["points", "add", alice, "0", "--json"], env),
      runCli(["points", "add", alice, "1.234"], env),
      runCli(["points", "add", alice, "lots"], env),
      runCli(["points", "add", alice], env),
    ]);
    expect(badAddress).toEqual({ code: 1, stdout: "", stderr: "error: Invalid Dogecoin address\n" });
    expect(negative).toEqual({ code: 1, stdout: "", stderr: "error: Please enter a positive number of points\n" });
    expect(zero).toEqual({ code: 1, stdout: "", stderr: "error: Please enter a positive number of points\n" });
    expect(decimals).toEqual({ code: 1, stdout: "", stderr: "error: Amount can have at most 2 decimals\n" });
    expect(words).toMatchObject({ code: 1, stdout: "", stderr: "error: Please enter a positive number of points\n" });
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toContain("error: missing required argument 'amount'");
    expect(await ledgerCount()).toBe(before);
  });

  it("shows a wallet's history, newest first", async () => {
    const [history, table, unknown] = await Promise.all([
      runJson<{ address: string; entries: { kind: string; delta: number; balanceAfter: number; details: { summary: string } }[] }>(
        ["points", "history", alice],
        env,
      ),
      runCli(["points", "history", alice], env),
      runCli(["points", "history", "nope"], env),
    ]);
    expect(history.address).toBe(alice);
    expect(history.entries.map((entry) => [entry.kind, entry.delta, entry.balanceAfter, entry.details.summary])).toEqual([
      ["admin_add", 2.5, 152.5, "Added by the admin (CLI): Manual adjustment by admin"],
      ["admin_add", 150, 150, "Added by the admin (CLI): Halloween bonus"],
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Date\s+Kind\s+Points\s+Balance\s+Details\n/);
    expect(table.stdout).toMatch(/admin_add\s+\+150\.00\s+150\.00\s+Added by the admin \(CLI\): Halloween bonus/);
    expect(unknown).toEqual({ code: 1, stdout: "", stderr: "error: Invalid Dogecoin address\n" });
    const page = await runJson<{ entries: unknown[]; nextCursor: string }>(["points", "history", alice, "--limit", "1"], env);
    expect(page.entries).toHaveLength(1);
    const newest = await runCli(["points", "history", alice, "--limit", "1"], env);
    expect(newest).toMatchObject({ code: 0, stderr: "" });
    expect(newest.stdout.split("\n")).toEqual([
      expect.stringMatching(/^Date\s+Kind\s+Points\s+Balance\s+Details$/),
      expect.stringMatching(/^─+/),
      expect.stringMatching(/admin_add\s+\+2\.50\s+152\.50\s+Added by the admin \(CLI\): Manual adjustment by admin$/),
      `✔ Older entries: --cursor ${page.nextCursor}`,
      "",
    ]);
    const older = await runJson<{ entries: { delta: number }[]; nextCursor: null }>(
      ["points", "history", alice, "--cursor", page.nextCursor],
      env,
    );
    expect(older).toMatchObject({ entries: [{ delta: 150 }], nextCursor: null });
    expect(await runCli(["points", "history", alice, "--limit", "0"], env)).toMatchObject({
      code: 1,
      stderr: "error: limit must be at least 1 (--limit)\n",
    });
  });

  it("destructive commands refuse without --yes and without a terminal, and change nothing", async () => {
    await appendLedger(db.sql, [{ address: bob, kind: "admin_clear", units: -2_000_000 * UNITS_PER_POINT, actor: { kind: "system" } }]);
    const before = await ledgerCount();
    const [clear, reset] = await Promise.all([
      runCli(["points", "clear", alice], env),
      runCli(["points", "reset-negative", "--json"], env),
    ]);
    for (const refused of [clear, reset]) {
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toMatch(/^error: refused: .*no terminal.*nothing was changed \(pass --yes to confirm\)\n$/);
    }
    expect(await ledgerCount()).toBe(before);
    expect(await balance(alice)).toBe(152.5);
    expect(await balance(bob)).toBe(1234567 - 2_000_000);
  });

  it("clears, resets negative balances and recalculates with --yes", async () => {
    const [cleared, reset] = await Promise.all([
      runJson(["points", "clear", alice, "--yes"], env),
      runCli(["points", "reset-negative", "--yes"], env),
    ]);
    expect(cleared).toEqual({ address: alice, clearedPoints: 152.5 });
    expect(reset).toEqual({ code: 0, stderr: "", stdout: "✔ Negative Balances Reset: 1 adjusted\n" });
    expect(await balance(alice)).toBe(0);
    expect(await balance(bob)).toBe(0);

    await db.sql`update balances set units = 42 where address = ${alice}`; // a cache gone wrong
    const recalculated = await runCli(["points", "recalculate"], env);
    expect(recalculated).toEqual({ code: 0, stderr: "", stdout: "✔ Points Recalculated: 2 addresses processed, 1 corrected\n" });
    expect(await balance(alice)).toBe(0);

    const actions = (await auditActions()).filter((row) => row.actor === "cli").map((row) => row.action);
    expect(actions.slice(-3).sort()).toEqual(["points.clear", "points.recalculate", "points.reset-negative"]);
  });
});
