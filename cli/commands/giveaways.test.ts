import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { drawV2ResultSchema, giveawayClaimsSchema, giveawaySchema } from "../../app/api/giveaways.ts";
import { claimMessage } from "../../app/domain/messages.ts";
import { claimPrize } from "../../db/queries/claims.server.ts";
import { UNITS_PER_POINT } from "../../app/domain/rewards.ts";
import { getGiveawayDraw } from "../../db/queries/draws.server.ts";
import { enterGiveaway } from "../../db/queries/giveaways.server.ts";
import { runDrawPass } from "../../indexer/draws.server.ts";
import { publishDemoChain } from "../../indexer/draw-chain.server.ts";
import { createOrdClient } from "../../indexer/ord-client.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { addPoints, getBalanceUnits } from "../../db/queries/points.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { randomAddress } from "../testing/fixtures.ts";
import { cliEnv, runCli, runJson, type CliEnv } from "../testing/run-cli.ts";

// Each test runs several CLI processes, each starting Node, tsx and the database: more than the suite's 30 s on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const PNG_1X1 = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const FUTURE = "2099-10-31T18:00:00Z";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: CliEnv;
let dataDir: string;
let chain: SimulatedChain;

type Giveaway = {
  id: number;
  title: string;
  imageUrl: string;
  pointsCost: number;
  active: boolean;
  winnerAddress: string | null;
  drawCommitment: string;
};

beforeAll(async () => {
  db = await createTestDatabase();
  chain = await startSimulatedChain({ owners: new Map() });
  env = cliEnv(db.url, { ORD_URL: chain.url });
  dataDir = env.DATA_DIR!;
});
afterAll(async () => {
  await chain?.close();
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** `json` is exactly what `schema` (the /api contract) builds: read back and built again, nothing changes. */
function expectBuiltBy(schema: z.ZodType, json: unknown): void {
  expect(schema.parse(z.encode(schema, json as never))).toEqual(json);
}

const giveawayCount = async () => (await db.sql<{ n: number }[]>`select count(*)::int as n from giveaways`)[0].n;
const create = (...extra: string[]) => ["giveaways", "create", "--title", "Spooky raffle", "--description", "Win a Spook", ...extra];

describe("spooks-admin giveaways", () => {
  it("refuses incomplete or invalid giveaways with the web admin's texts", async () => {
    fs.writeFileSync(path.join(dataDir, "notes.txt"), "not an image");
    const results = await Promise.all([
      runCli(["giveaways", "create", "--title", "Spooky raffle"], env),
      runCli(create("--image", "https://example.com/a.png"), env),
      runCli(create("--image", "https://example.com/a.png", "--end", "2000-01-01T00:00:00Z"), env),
      runCli(create("--image", "https://example.com/a.png", "--end", FUTURE, "--cost", "0"), env),
      runCli(create("--image", "no-such-file.png", "--end", FUTURE), env),
      runCli(create("--image", path.join(dataDir, "notes.txt"), "--end", FUTURE, "--json"), env),
      runCli(["giveaways", "list"], env),
    ]);
    const empty = results.pop();
    expect(empty).toEqual({ code: 0, stderr: "", stdout: "No giveaways created yet\n" });
    expect(results.map((result) => [result.code, result.stdout, result.stderr])).toEqual([
      [1, "", "error: Please fill out all required fields (--description)\n"],
      [1, "", "error: Please fill out all required fields (--end)\n"],
      [1, "", "error: End date must be in the future (--end)\n"],
      [1, "", "error: Points cost must be at least 1 (--cost)\n"],
      [1, "", "error: image 'no-such-file.png' is neither a file nor a URL (give an image file, an http(s) URL or a /uploads/ path)\n"],
      [1, "", "error: Only PNG, JPEG, GIF and WebP images are accepted\n"],
    ]);
    expect(await giveawayCount()).toBe(0);
    expect(fs.existsSync(path.join(dataDir, "uploads")) ? fs.readdirSync(path.join(dataDir, "uploads")) : []).toEqual([]);
  });

  it("creates giveaways from an image file or a URL, ends, activates and changes the image", async () => {
    const imageFile = path.join(dataDir, "spook.png");
    fs.writeFileSync(imageFile, PNG_1X1);
    const created = await runCli(create("--image", imageFile, "--end", FUTURE, "--cost", "250"), env);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(
      /^✔ Giveaway Created: #1 Spooky raffle\nStatus: +Active\nCost: +250 SPOOK per ticket\nEnds: +2099-10-31 18:00 UTC\nImage: +\/uploads\/[\w-]+\.png\n/,
    );
    const [uploaded] = fs.readdirSync(path.join(dataDir, "uploads"));
    expect(fs.readFileSync(path.join(dataDir, "uploads", uploaded))).toEqual(PNG_1X1);

    const second = await runJson<Giveaway>(create("--image", "https://example.com/a.png", "--end", FUTURE), env);
    expect(second).toMatchObject({ id: 2, pointsCost: 100, active: true, imageUrl: "https://example.com/a.png", winnerAddress: null });

    // Ending is confirmed as the other lasting changes are: --yes without a terminal, refused otherwise.
    const unconfirmed = await runCli(["giveaways", "end", "2"], env);
    expect(unconfirmed).toMatchObject({ code: 1, stdout: "" });
    expect(unconfirmed.stderr).toContain("nothing was changed (pass --yes to confirm)");
    expect(await db.sql`select active from giveaways where id = 2`).toEqual([{ active: true }]);
    expect(await runJson<Giveaway>(["giveaways", "end", "2", "--yes"], env)).toMatchObject({ id: 2, active: false });
    const [activated, image, notFound, badId] = await Promise.all([
      runCli(["giveaways", "activate", "2"], env),
      runJson<Giveaway>(["giveaways", "set-image", "1", "/uploads/other.webp"], env),
      runCli(["giveaways", "end", "999", "--yes"], env),
      runCli(["giveaways", "end", "abc", "--yes"], env),
    ]);
    expect(activated.stdout).toMatch(/^✔ Giveaway Updated: now active: #2 Spooky raffle\n/);
    expect(image).toMatchObject({ id: 1, imageUrl: "/uploads/other.webp" });
    expect(notFound).toEqual({ code: 1, stdout: "", stderr: "error: Giveaway not found\n" });
    expect(badId).toEqual({ code: 1, stdout: "", stderr: "error: Giveaway id must be a positive whole number (got 'abc')\n" });

    const [list, listed] = await Promise.all([
      runCli(["giveaways", "list"], env),
      runJson<{ id: number; endDate: string }[]>(["giveaways", "list"], env),
    ]);
    expect(list.stdout.split("\n").slice(0, 4)).toEqual([
      expect.stringMatching(/^ID\s+Title\s+Status\s+Cost\s+Ends\s+Entries\s+Tickets\s+Winners$/),
      expect.stringMatching(/^─/),
      expect.stringMatching(/^ 2\s+Spooky raffle\s+Active\s+100\s+2099-10-31 18:00 UTC\s+0\s+0$/),
      expect.stringMatching(/^ 1\s+Spooky raffle\s+Active\s+250\s+2099-10-31 18:00 UTC\s+0\s+0$/),
    ]);
    // --json prints what GET /api/giveaways answers, built by its contract schema (ISO dates).
    expectBuiltBy(z.array(giveawaySchema), listed);
    expect(listed.map((giveaway) => [giveaway.id, giveaway.endDate])).toEqual([
      [2, "2099-10-31T18:00:00.000Z"],
      [1, "2099-10-31T18:00:00.000Z"],
    ]);

    const audit = await db.sql`select actor, action, target from audit_log order by id`;
    expect(audit.map((row) => `${row.actor} ${row.action} ${row.target}`).sort()).toEqual([
      "cli giveaway.activate giveaway:2",
      "cli giveaway.create giveaway:1",
      "cli giveaway.create giveaway:2",
      "cli giveaway.end giveaway:2",
      "cli giveaway.image giveaway:1",
      expect.stringMatching(/^cli upload\.image \/uploads\/[0-9a-f-]{36}\.png$/),
    ]);
  });

  it("lists entries, draws a winner and deletes with refunds, only with --yes when there is no terminal", async () => {
    const [alice, bob] = [randomAddress(), randomAddress()];
    for (const address of [alice, bob]) await addPoints(db.sql, { address, points: 1000, actor: { kind: "system" } });
    await enterGiveaway(db.sql, { giveawayId: 1, address: alice, tickets: 2 });
    await enterGiveaway(db.sql, { giveawayId: 1, address: bob, tickets: 1 });
    await enterGiveaway(db.sql, { giveawayId: 2, address: bob, tickets: 3 });

    const [entries, table, draw, remove] = await Promise.all([
      runJson<{ address: string; tickets: number; isWinner: boolean }[]>(["giveaways", "entries", "1"], env),
      runCli(["giveaways", "entries", "1"], env),
      runCli(["giveaways", "draw", "1"], env),
      runCli(["giveaways", "delete", "2", "--json"], env),
    ]);
    expect(entries.map((entry) => [entry.address, entry.tickets, entry.isWinner])).toEqual([
      [alice, 2, false],
      [bob, 1, false],
    ]);
    expect(table.stdout).toMatch(new RegExp(`^Entry\\s+Address\\s+Tickets\\s+Entered\\s+Winner\\n─.*\\n\\s+1\\s+${alice}\\s+2\\s+`));

    for (const refused of [draw, remove]) {
      expect(refused).toMatchObject({ code: 1, stdout: "" });
      expect(refused.stderr).toContain(
        "refused: this change needs confirmation and there is no terminal to ask on; nothing was changed (pass --yes to confirm)",
      );
    }
    expect(await db.sql`select winner_address from giveaways where id = 1`).toEqual([{ winnerAddress: null }]);
    expect(await giveawayCount()).toBe(2);

    // Version 2: entries close at the ord server's block count + 6; the indexer draws once 6 blocks sit on top.
    const count = chain.blockCount();
    const result = await runJson<{ giveawayId: number }>(["giveaways", "draw", "1", "--yes"], env);
    const { giveawayId, ...drawAnswer } = result;
    expect(giveawayId).toBe(1);
    expectBuiltBy(drawV2ResultSchema, drawAnswer);
    expect(drawAnswer).toEqual({
      version: 2,
      status: "drawing",
      blockHeight: count + 6,
      closedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      blockHash: null,
      seed: null,
      winnerAddresses: [],
    });
    const drawing = await runCli(["giveaway", "draw", "1", "--yes"], env);
    expect(drawing).toMatchObject({ code: 0, stderr: "" });
    expect(drawing.stdout).toMatch(
      new RegExp(`^✔ Drawing at block ${count + 6}: entries closed at \\d{4}-.* UTC; the indexer draws once 6 blocks sit on top of it\n$`),
    );
    // Issue 27, item 8: the list says "Drawing", where, and how far (the indexer's last read block count).
    await db.sql`
      insert into chain_cursor (highest_block_count, updated_at, advanced_at) values (${count + 3}, now(), now())
      on conflict (id) do update set highest_block_count = excluded.highest_block_count`;
    const whileDrawing = await runCli(["giveaways", "list"], env);
    expect(whileDrawing.stdout).toMatch(
      new RegExp(`\n\\s*1\\s+Spooky raffle\\s+Drawing\\s.*Drawing at block ${count + 6} \\(10 blocks to go, about 10 min\\)\n`),
    );
    chain.mine(13);
    const client = createOrdClient({ baseUrl: chain.url, retries: 0 });
    expect((await runDrawPass({ sql: db.sql, chain: client }).finally(() => client.close())).drawn).toEqual([1]);
    const [winner] = (await getGiveawayDraw(db.sql, 1)).winnerAddresses;
    expect([alice, bob]).toContain(winner);
    const before = await getBalanceUnits(db.sql, bob);
    const [again, deleted] = await Promise.all([
      runCli(["giveaways", "draw", "1", "--yes"], env),
      runCli(["giveaways", "delete", "2", "--yes"], env),
    ]);
    expect(again).toEqual({ code: 1, stdout: "", stderr: "error: The winners of this giveaway have already been drawn\n" });
    // Issue 27, item 8: a drawn giveaway is "Drawn" (not "Active"), with every winner.
    const drawnList = await runCli(["giveaways", "list"], env);
    expect(drawnList.stdout).toMatch(new RegExp(`\n\\s*1\\s+Spooky raffle\\s+Drawn\\s.*\\s${winner}\n`));
    expect(deleted).toEqual({ code: 0, stderr: "", stdout: "✔ Giveaway Deleted: #2 (1 entries refunded, 300.00 points)\n" });
    expect(await getBalanceUnits(db.sql, bob)).toBe(before + 300 * UNITS_PER_POINT);
    expect(await giveawayCount()).toBe(1);
    const audit = await db.sql`
      select actor, action from audit_log where action in ('giveaway.close', 'giveaway.draw', 'giveaway.delete') order by action desc`;
    expect(audit).toEqual([
      { actor: "system", action: "giveaway.draw" },
      { actor: "cli", action: "giveaway.delete" },
      { actor: "cli", action: "giveaway.close" },
    ]);
  });

  it("claims ID: each winner with their claim and contact, or 'not claimed' (issue 27, item 9)", async () => {
    const [winner] = (await getGiveawayDraw(db.sql, 1)).winnerAddresses;
    const before = await runCli(["giveaways", "claims", "1"], env);
    expect(before).toMatchObject({ code: 0, stderr: "" });
    expect(before.stdout.split("\n").slice(0, 4)).toEqual([
      "ℹ Claims of giveaway #1 Spooky raffle: 0 claimed, 1 not claimed",
      expect.stringMatching(/^#\s+Winner\s+Claimed\s+Contact$/),
      expect.stringMatching(/^─/),
      expect.stringMatching(new RegExp(`^1\\s+${winner}\\s+not claimed$`)),
    ]);
    const message = claimMessage("Spooky raffle", 1, winner, "ghost@example.com", new Date());
    await claimPrize(db.sql, { giveawayId: 1, address: winner, contact: "ghost@example.com", message, signature: "c2ln" });
    const after = await runCli(["giveaways", "claims", "1"], env);
    expect(after.stdout.split("\n")[0]).toBe("ℹ Claims of giveaway #1 Spooky raffle: 1 claimed, 0 not claimed");
    expect(after.stdout).toMatch(new RegExp(`1\\s+${winner}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\s+ghost@example\\.com\n`));
    const json = await runJson<unknown>(["giveaways", "claims", "1"], env);
    expectBuiltBy(giveawayClaimsSchema, json);
    expect(json).toMatchObject({
      giveawayId: 1,
      claimed: 1,
      unclaimed: 0,
      winners: [{ address: winner, contact: "ghost@example.com", message }],
    });
    expect(await runCli(["giveaways", "claims", "99"], env)).toEqual({ code: 1, stdout: "", stderr: "error: Giveaway not found\n" });
  });

  it("verify: recomputes a draw from the database or from a site's published draw; a tampered one fails at its step", async () => {
    const published = await getGiveawayDraw(db.sql, 1);
    let served: unknown = published;
    const site = http.createServer((req, res) => {
      res.writeHead(req.url === "/api/giveaways/1/draw" ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url === "/api/giveaways/1/draw" ? served : { message: "Giveaway not found" }));
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    try {
      const fromDatabase = await runCli(["giveaway", "verify", "1"], env);
      expect(fromDatabase.code).toBe(0);
      expect(fromDatabase.stdout).toMatch(/^✔ Giveaway #1: verified, every step of the draw checks out\n/);
      expect(fromDatabase.stdout).toContain(`✓ Winner 1`);
      // When entries closed, and where to check that the draw block was mined after it.
      expect(fromDatabase.stdout.replace(/\s+/g, " ")).toContain(
        `Check that block ${published.blockHeight} was mined after entries closed at ${published.closedAt}: nobody could know its hash ` +
          `then. Mainnet explorer: https://blockchair.com/dogecoin/block/${published.blockHeight}`,
      );
      expect(fromDatabase.stdout).toContain(published.winnerAddresses[0]);
      const json = await runJson<{ outcome: string; steps: { title: string; ok: boolean }[] }>(
        ["giveaways", "verify", "1", "--url", origin],
        env,
      );
      expect(json.outcome).toBe("verified");
      expect(json.steps.map((step) => step.title)).toEqual([
        "The seed matches the commitment",
        "Entries are one per address, in ascending address order",
        "The draw block",
        "Winner 1",
        "The number of winners",
      ]);

      served = { ...published, seed: "00".repeat(32) };
      const tampered = await runCli(["giveaways", "verify", "1", "--url", origin], env);
      expect(tampered.code).toBe(1);
      expect(tampered.stdout).toMatch(/^✖ Giveaway #1: the draw does not check out at "The seed matches the commitment"\n/);
      expect(tampered.stdout).toContain(`but the commitment published at creation is ${published.commitment}`);
      expect(await runCli(["giveaways", "verify", "2", "--url", origin], env)).toMatchObject({ code: 1, stdout: "" });
      expect(await runCli(["giveaways", "verify", "99"], env)).toEqual({ code: 1, stdout: "", stderr: "error: Giveaway not found\n" });
    } finally {
      site.close();
    }
  });

  it("draws in demo mode (no ORD_URL) on the simulated chain a running npm start publishes, and says what to start without one", async () => {
    const demoEnv = { ...env, ORD_URL: undefined };
    const created = await runJson<Giveaway>(create("--image", "https://example.com/a.png", "--end", FUTURE), demoEnv);
    const holder = randomAddress();
    await addPoints(db.sql, { address: holder, points: 500, actor: { kind: "system" } });
    await enterGiveaway(db.sql, { giveawayId: created.id, address: holder, tickets: 1 });

    const noDemoRunning = await runCli(["giveaways", "draw", String(created.id), "--yes"], demoEnv);
    expect(noDemoRunning).toMatchObject({ code: 1, stdout: "" });
    expect(noDemoRunning.stderr).toContain(
      `none runs with DATA_DIR=${dataDir}; start \`npm start\` with the same DATA_DIR (or set ORD_URL)`,
    );
    expect(await getGiveawayDraw(db.sql, created.id)).toMatchObject({ closedAt: null });

    const unpublish = publishDemoChain(dataDir, chain.url); // what a demo `npm start` on this DATA_DIR does
    try {
      const count = chain.blockCount();
      const drawing = await runJson<{ status: string; blockHeight: number }>(["giveaways", "draw", String(created.id), "--yes"], demoEnv);
      expect(drawing).toMatchObject({ version: 2, status: "drawing", blockHeight: count + 6 });
    } finally {
      await unpublish();
    }
  });
});
