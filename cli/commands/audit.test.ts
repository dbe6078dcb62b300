/** `spooks-admin audit` and `proposals verify`, and the audit row each admin action of the CLI writes (the real binary). */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { voteMessage } from "../../app/domain/messages.ts";
import { addressOfPrivateKey, newPrivateKey, signMessage } from "../../app/domain/signature.ts";
import { enterGiveaway } from "../../db/queries/giveaways.server.ts";
import { addPoints } from "../../db/queries/points.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { randomAddress, stakeDemoItems } from "../testing/fixtures.ts";
import { cliEnv, runCli, runJson, type CliEnv } from "../testing/run-cli.ts";
import { parseSince } from "./audit.tsx";

// Each test runs several CLI processes, each starting Node, tsx and the database: more than the suite's 30 s on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: CliEnv;
let imageFile: string;
let chain: SimulatedChain; // `giveaways draw` closes entries at the ord server's next block

beforeAll(async () => {
  db = await createTestDatabase();
  chain = await startSimulatedChain({ owners: new Map() });
  env = cliEnv(db.url, { ORD_URL: chain.url });
  imageFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "spooks-audit-")), "prize.png");
  fs.writeFileSync(imageFile, Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex"));
});
afterAll(async () => {
  await chain?.close();
  await db?.close();
});

type AuditJson = {
  entries: { id: number; at: string; actor: string; action: string; target: string | null; before: unknown; after: unknown }[];
  nextCursor: number | null;
};

async function lastId(): Promise<number> {
  return (await db.sql<{ id: number }[]>`select coalesce(max(id), 0)::int8 as id from audit_log`)[0].id;
}

/** Runs the CLI command and answers the audit rows it wrote, oldest first. */
async function rowsOf(args: string[]) {
  const before = await lastId();
  const result = await runCli(args, env);
  expect(result, args.join(" ")).toMatchObject({ code: 0, stderr: "" });
  return db.sql<{ actor: string; action: string; target: string; before: unknown; after: unknown }[]>`
    select actor, action, target, before, after from audit_log where id > ${before} order by id`;
}

describe("every admin action of the CLI writes one audit row (actor cli) with before → after", () => {
  it("points add, clear, reset-negative, recalculate", async () => {
    const address = randomAddress();
    expect(await rowsOf(["points", "add", address, "12.5"])).toEqual([
      { actor: "cli", action: "points.add", target: address, before: { points: 0 }, after: { points: 12.5 } },
    ]);
    expect(await rowsOf(["points", "clear", address, "--yes"])).toEqual([
      { actor: "cli", action: "points.clear", target: address, before: { points: 12.5 }, after: { points: 0 } },
    ]);
    await db.sql`insert into points_ledger (address, kind, amount, actor, created_at) values (${address}, 'admin_clear', -2400, 'cli', now())`;
    expect(await rowsOf(["points", "reset-negative", "--yes"])).toEqual([
      {
        actor: "cli",
        action: "points.reset-negative",
        target: null,
        before: { balances: { [address]: -1 } },
        after: { balances: { [address]: 0 } },
      },
    ]);
    expect(await rowsOf(["points", "recalculate"])).toEqual([
      { actor: "cli", action: "points.recalculate", target: null, before: { balances: {} }, after: { balances: {} } },
    ]);
  });

  it("giveaways create (with its upload), end, activate, set-image, draw, delete; proposals create, delete", async () => {
    const created = await rowsOf([
      "giveaways",
      "create",
      "--title",
      "T",
      "--description",
      "D",
      "--image",
      imageFile,
      "--end",
      "2099-01-01T00:00:00Z",
    ]);
    expect(created.map((row) => [row.actor, row.action])).toEqual([
      ["cli", "upload.image"],
      ["cli", "giveaway.create"],
    ]);
    expect(created[0]).toMatchObject({
      target: expect.stringMatching(/^\/uploads\//),
      before: null,
      after: { filePath: created[0].target },
    });
    const target = created[1].target;
    const id = target.split(":")[1];
    expect(created[1]).toMatchObject({ before: null, after: { title: "T", imageUrl: created[0].target, active: true, drawSeed: null } });
    expect(await rowsOf(["giveaways", "end", id, "--yes"])).toMatchObject([
      { action: "giveaway.end", target, before: { active: true }, after: { active: false } },
    ]);
    expect(await rowsOf(["giveaways", "activate", id])).toMatchObject([
      { action: "giveaway.activate", before: { active: false }, after: { active: true } },
    ]);
    expect(await rowsOf(["giveaways", "set-image", id, "https://example.com/x.png"])).toMatchObject([
      { action: "giveaway.image", before: { imageUrl: created[0].target }, after: { imageUrl: "https://example.com/x.png" } },
    ]);
    const holder = randomAddress();
    await addPoints(db.sql, { address: holder, points: 500, actor: { kind: "system" } });
    await enterGiveaway(db.sql, { giveawayId: Number(id), address: holder, tickets: 1 });
    expect(await rowsOf(["giveaways", "draw", id, "--yes"])).toMatchObject([
      { action: "giveaway.close", before: { drawBlockHeight: null }, after: { drawBlockHeight: chain.blockCount() + 6 } },
    ]);
    expect(await rowsOf(["giveaways", "delete", id, "--yes"])).toMatchObject([
      { action: "giveaway.delete", target, before: { title: "T", winnerAddress: null }, after: null },
    ]);

    const proposal = await rowsOf([
      "proposals",
      "create",
      "--title",
      "P",
      "--description",
      "D",
      "--start",
      "2099-01-01T00:00:00Z",
      "--end",
      "2099-02-01T00:00:00Z",
    ]);
    expect(proposal).toMatchObject([{ actor: "cli", action: "proposal.create", before: null, after: { title: "P", voteType: "yes_no" } }]);
    const proposalId = proposal[0].target.split(":")[1];
    expect(await rowsOf(["proposals", "delete", proposalId, "--yes"])).toMatchObject([
      { action: "proposal.delete", before: { title: "P", totalVotes: 0 }, after: null },
    ]);
  }, 120_000); // a dozen CLI processes, each a few seconds on a loaded machine
});

describe("spooks-admin audit", () => {
  it("prints the trail newest first, filtered by action, actor and --since; --json is the API's answer", async () => {
    await db.sql`
      insert into audit_log (actor, action, target, details, before, after, created_at)
      values ('system', 'stake.transferred', 'DOld', '{}', '{"staked": true}', '{"staked": false}', '2020-01-01T00:00:00Z')`;
    const all = await runJson<AuditJson>(["audit"], env);
    expect(all.entries.length).toBeGreaterThan(10);
    expect(all.entries.map((entry) => entry.id)).toEqual([...all.entries.map((entry) => entry.id)].sort((a, b) => b - a));
    // Newest written first: the row inserted last, whatever time it names.
    expect(all.entries[0]).toMatchObject({ actor: "system", action: "stake.transferred", at: "2020-01-01T00:00:00.000Z" });

    const recent = await runJson<AuditJson>(["audit", "--since", "1h"], env);
    expect(recent.entries).toHaveLength(all.entries.length - 1);
    const points = await runJson<AuditJson>(["audit", "--action", "points", "--actor", "cli", "--limit", "2"], env);
    expect(points.entries.map((entry) => entry.action)).toEqual(["points.recalculate", "points.reset-negative"]);
    expect(points.nextCursor).toBe(points.entries[1].id);

    const table = await runCli(["audit", "--since", "2019-12-31T00:00:00Z", "--actor", "system"], env);
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n").slice(0, 3)).toEqual([
      expect.stringMatching(/^When\s+Who\s+Action\s+Target\s+Before → After$/),
      expect.stringMatching(/^─/),
      expect.stringMatching(
        /^2020-01-01 00:00 UTC\s+system\s+stake\.transferred \(Stake ended by a transfer\)\s+DOld\s+\{"staked":true\} → \{"staked":false\}$/,
      ),
    ]);
    // On an 80-column terminal every line fits: the widest columns are cut with "…", the time stays whole.
    const narrow = await runCli(["audit"], { ...env, COLUMNS: "80" });
    expect(narrow).toMatchObject({ code: 0, stderr: "" });
    const lines = narrow.stdout.trimEnd().split("\n");
    expect(lines.length).toBe(all.entries.length + 2);
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^When\s+Who\s+Action\s+Target\s+Before → After$/);
    expect(lines[2]).toMatch(/^2020-01-01 00:00 UTC {2}system {2}stake\.t.*…/);
    const bad = await runCli(["audit", "--since", "last week"], env);
    expect(bad).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: --since must be an ISO 8601 time (2030-10-31T18:00:00Z) or an age (30m, 24h, 7d) (got 'last week')\n",
    });
  });

  it("reads --since as an ISO time or an age", () => {
    const at = new Date("2030-01-02T00:00:00Z");
    expect(parseSince("24h", at)).toEqual(new Date("2030-01-01T00:00:00Z"));
    expect(parseSince("7d", at)).toEqual(new Date("2029-12-26T00:00:00Z"));
    expect(parseSince("2030-01-01", at)).toEqual(new Date("2030-01-01T00:00:00Z"));
  });
});

describe("spooks-admin proposals verify", () => {
  it("verifies real votes, and exits 1 naming the vote when one was altered in the database", async () => {
    const start = new Date(Date.now() - 30 * 60_000);
    const voter = newPrivateKey();
    const address = addressOfPrivateKey(voter);
    const items = await stakeDemoItems(db.sql, address, 2, new Date(start.getTime() - 60_000));
    const [{ id }] = await db.sql<{ id: number }[]>`
      insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at)
      values ('Verify me', 'D', ${start}, ${new Date(Date.now() + 3_600_000)}, 'yes_no', 'cli', now()) returning id`;
    const [yes, no] = await db.sql<{ id: number }[]>`
      insert into proposal_options (proposal_id, position, option_text) values (${id}, 0, 'Yes'), (${id}, 1, 'No') returning id`;
    const votedAt = new Date();
    const message = voteMessage(id, "Verify me", yes.id, votedAt);
    const inscriptions = items.map((item) => item.inscriptionId).sort();
    await db.sql`
      insert into votes (proposal_id, option_id, address, weight, signature, message, voted_at, staked_at_start)
      values (${id}, ${yes.id}, ${address}, 2, ${signMessage(voter, message, { magic: "dogecoin" })}, ${message}, ${votedAt}, ${inscriptions}::text[])`;

    const good = await runCli(["proposals", "verify", String(id)], env);
    expect(good).toMatchObject({ code: 0, stderr: "" });
    expect(good.stdout).toContain("✔ Verified: 1 vote, every signature and message checks out and the tally matches the published results");

    // Tampered with by someone with more than the app's role: the app's own cannot change a vote (migration 0026).
    await db.owner.sql`update votes set option_id = ${no.id} where proposal_id = ${id}`;
    const [bad, badJson] = await Promise.all([
      runCli(["proposals", "verify", String(id)], env),
      runCli(["proposals", "verify", String(id), "--json"], env),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("✖ Not verified: 1 of 1 vote does not check out");
    expect(bad.stdout).toMatch(new RegExp(`1\\s+${address}\\s+The signed message names option ${yes.id}, the vote counts option ${no.id}`));
    expect(bad.stderr).toBe(`error: proposal #${id} does not verify: 1 vote does not check out, 0 differences in the tally\n`);
    expect(JSON.parse(badJson.stdout)).toMatchObject({
      proposalId: id,
      votes: 1,
      verified: false,
      failed: [{ vote: 1, address, problems: [`The signed message names option ${yes.id}, the vote counts option ${no.id}`] }],
      tally: { totalVotes: 2, uniqueVoters: 1 },
    });
    expect(await runCli(["proposals", "verify", "999999"], env)).toEqual({ code: 1, stdout: "", stderr: "error: Proposal not found\n" });
  });
});
