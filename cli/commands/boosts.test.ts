/** `spooks-admin boosts show|set` and `proposals create --allow-vote-change --quorum` (issue 26, item 6). */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { demoCatalogue } from "../../db/demo-catalogue.ts";
import { importCatalogue } from "../../db/queries/catalogue.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { cliEnv, runCli, runJson, type CliEnv } from "../testing/run-cli.ts";

// Each test runs several CLI processes, each starting Node, tsx and the database: more than the suite's 30 s on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: CliEnv;

beforeAll(async () => {
  db = await createTestDatabase();
  env = cliEnv(db.url);
});
afterAll(async () => {
  await db?.close();
});

const HOUR = 3_600_000;
const nextHour = (n: number) => new Date((Math.floor(Date.now() / HOUR) + n) * HOUR).toISOString();

describe("spooks-admin boosts", () => {
  it("shows the defaults, refuses a bad field naming it, previews with --dry-run, and sets a version (audited)", async () => {
    expect((await runJson<{ current: { version: number | null; cap: number } }>(["boosts", "show"], env)).current).toMatchObject({
      version: null,
      cap: 300,
    });
    const bad = await runCli(["boosts", "set", "--from", nextHour(2), "--epic", "125"], env);
    expect(bad).toMatchObject({ code: 1, stderr: "error: rarity.Epic must be a whole multiple of 10 from 100 to 300 (percent)\n" });
    const steps = await runCli(["boosts", "set", "--from", nextHour(2), "--tenure", "30:120,7:110"], env);
    expect(steps.stderr).toBe("error: tenure[1].days must be more than tenure[0].days (ascending days)\n");

    // Today's stakes: the demo catalogue's first 40 items, 10 per wallet, Legendary ones among them.
    await importCatalogue(db.sql, demoCatalogue().slice(0, 40));
    await db.sql`
      insert into stakes (item_id, address, started_at)
      select id, 'W' || (id % 4), now() - interval '40 days' from items order by id limit 40`;
    const args = ["boosts", "set", "--from", nextHour(2), "--legendary", "200", "--tenure", "7:110,30:120", "--cap", "300"];
    const preview = await runJson<{ items: number; before: { pointsPerDay: number }; after: { pointsPerDay: number } }>(
      [...args, "--dry-run"],
      env,
    );
    const [{ legendary }] = await db.sql<{ legendary: number }[]>`
      select count(*)::int as legendary from stakes where rarity = 'Legendary'`;
    // 10 items a wallet: 150 a day each; Legendary 200% × 120% = 240%, the others 120%.
    expect(preview).toMatchObject({
      items: 40,
      before: { pointsPerDay: 40 * 150 },
      after: { pointsPerDay: legendary * 150 * 2.4 + (40 - legendary) * 150 * 1.2 },
    });
    const human = await runCli([...args, "--dry-run"], env);
    expect({ code: human.code, stderr: human.stderr }).toEqual({ code: 0, stderr: "" });
    expect(human.stdout).toMatch(/Points per day: +6,000 → /);
    expect((await db.sql`select count(*)::int as n from boost_schedules`)[0].n).toBe(0);

    const created = await runJson<{ version: number; rarity: { Legendary: number } }>(args, env);
    expect(created).toMatchObject({ version: expect.any(Number), rarity: { Legendary: 200 } });
    const shown = await runJson<{ upcoming: { version: number }[] }>(["boosts", "show"], env);
    expect(shown.upcoming.map((s) => s.version)).toEqual([created.version]);
    const [audit] = await db.sql`select actor, action, before, after from audit_log where action = 'boosts.set'`;
    expect(audit).toMatchObject({ actor: "cli", before: { version: null }, after: { version: created.version, cap: 300 } });
  }, 180_000);

  it("proposals create --allow-vote-change --quorum freezes both into the proposal", async () => {
    const base = [
      "proposals",
      "create",
      "--title",
      "Change",
      "--description",
      "x",
      "--start",
      "2099-01-01T00:00:00Z",
      "--end",
      "2099-02-01T00:00:00Z",
    ];
    const made = await runJson<{ allowVoteChange: boolean; quorum: unknown }>([...base, "--allow-vote-change", "--quorum", "20%"], env);
    expect(made).toMatchObject({ allowVoteChange: true, quorum: { kind: "percent", value: 20 } });
    const power = await runJson<{ allowVoteChange: boolean; quorum: unknown }>([...base, "--quorum", "150"], env);
    expect(power).toMatchObject({ allowVoteChange: false, quorum: { kind: "power", value: 150 } });
    const bad = await runCli([...base, "--quorum", "150%"], env);
    expect(bad.stderr).toBe("error: quorum.value must be at most 100 for a percent quorum (--quorum)\n");
  }, 120_000);
});
