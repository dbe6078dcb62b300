/**
 * The public log of a deployment that already had history (issue 34, item 1): migration 0040 starts its log
 * with a genesis snapshot (every wallet's balance, the open stakes, the giveaways with their entries, the
 * proposals with their votes), and `log verify` recomputes the site's balances, draws and tallies from those
 * entries and what follows them, and names a wallet whose history was rewritten before the log began.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drawWinner, newDrawSeed } from "../../app/domain/giveaways.ts";
import { voteMessage } from "../../app/domain/messages.ts";
import { openCheckpoint, readAllEntries } from "../../app/domain/tlog/client.ts";
import { formatVerifierKey, signerFromSeed, verifierOf } from "../../app/domain/tlog/note.ts";
import { claimLogKey } from "../../app/utils/log-service.server.ts";
import { verifyLog } from "../../cli/log-verify.ts";
import type { Sql } from "../../db/client.server.ts";
import { createGiveaway, drawGiveawayWinner, enterGiveaway } from "../../db/queries/giveaways.server.ts";
import { databaseTiles, integrate, latestCheckpoint, servedNote } from "../../db/queries/log.server.ts";
import { addPoints } from "../../db/queries/points.server.ts";
import { databaseBefore } from "../../db/testing/older-database.ts";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { minutesFromNow, newWallet, type Wallet } from "./support.ts";

const CLI = { kind: "cli" } as const;
const signer = signerFromSeed("genesis.test/log", new Uint8Array(32).fill(7));
const verifierKey = formatVerifierKey(verifierOf(signer));

let sql: Sql;
let server: TestServer;
let closeDatabase: () => Promise<void>;
const [alice, bob, carol] = [newWallet(), newWallet(), newWallet()];
let openGiveaway: number;
let drawnGiveaway: number;
let proposal: number;

/** History made before the log existed: points, stakes (one ended), giveaways (one open, one drawn), a proposal with votes. */
async function historyBeforeTheLog(): Promise<void> {
  for (const [wallet, points] of [
    [alice, 120],
    [bob, 80],
    [carol, 15],
  ] as const) {
    await addPoints(sql, { address: wallet.address, points, description: "before the log", actor: CLI });
  }
  const items = await sql<{ id: number }[]>`
    insert into items (inscription_id, collection, name, number, rank, rarity)
    select md5('genesis' || g) || md5('item' || g) || 'i0', 'spooks', 'Genesis #' || g, g, 500 + g, 'Common' from generate_series(1, 3) g
    returning id`;
  const started = new Date(Date.now() - 86_400_000);
  await sql`insert into stakes (item_id, address, started_at) values (${items[0].id}, ${alice.address}, ${started}), (${items[1].id}, ${alice.address}, ${started})`;
  await sql`insert into stakes (item_id, address, started_at, ended_at, end_reason)
            values (${items[2].id}, ${bob.address}, ${started}, ${new Date(Date.now() - 3_600_000)}, 'unstaked')`;

  const giveaway = { description: "d", imageUrl: "/uploads/genesis.png", pointsCost: 2, endDate: minutesFromNow(60) };
  openGiveaway = (await createGiveaway(sql, { ...giveaway, title: "Open at genesis", winners: 2 }, CLI)).id;
  for (const [wallet, tickets] of [
    [alice, 3],
    [bob, 1],
    [alice, 2],
  ] as const) {
    await enterGiveaway(sql, { giveawayId: openGiveaway, address: wallet.address, tickets });
  }
  // A version-1 giveaway (from before draw version 2), drawn over its entry rows.
  const { seed, commitment } = newDrawSeed();
  [{ id: drawnGiveaway }] = await sql<{ id: number }[]>`
    insert into giveaways (title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, created_at)
    values ('Drawn at genesis', 'v1', '/x.png', 1, ${minutesFromNow(60)}, ${commitment}, ${seed}, now()) returning id`;
  for (const [wallet, tickets] of [
    [bob, 4],
    [carol, 5],
    [bob, 1],
  ] as const) {
    await enterGiveaway(sql, { giveawayId: drawnGiveaway, address: wallet.address, tickets });
  }
  await drawGiveawayWinner(sql, drawnGiveaway, CLI);

  const start = new Date(Date.now() - 60_000);
  [{ id: proposal }] = await sql<{ id: number }[]>`
    insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at)
    values ('Before the log', 'Which?', ${start}, ${minutesFromNow(60)}, 'yes_no', 'test', ${start}) returning id`;
  const options = await sql<{ id: number }[]>`
    insert into proposal_options (proposal_id, position, option_text) values (${proposal}, 0, 'Yes'), (${proposal}, 1, 'No') returning id`;
  for (const [wallet, option] of [
    [alice, 0],
    [bob, 1],
  ] as const) {
    await vote(wallet, options[option].id, 2);
  }
}

async function vote(wallet: Wallet, optionId: number, weight: number): Promise<void> {
  const message = voteMessage(proposal, "Before the log", optionId, new Date());
  await sql`
    insert into votes (proposal_id, option_id, address, weight, signature, message, voted_at, staked_at_start)
    values (${proposal}, ${optionId}, ${wallet.address}, ${weight}, ${wallet.sign(message)}, ${message}, ${new Date()},
            ${Array.from({ length: weight }, (_, i) => `item-${i}`)}::text[])`;
}

async function loggedEntries(): Promise<Record<string, unknown>[]> {
  await integrate(sql, signer, new Date());
  const checkpoint = openCheckpoint(servedNote((await latestCheckpoint(sql))!), verifierOf(signer));
  const entries: Record<string, unknown>[] = [];
  await readAllEntries(databaseTiles(sql), checkpoint.size, (_, found) => {
    for (const entry of found) entries.push(JSON.parse(new TextDecoder().decode(entry)) as Record<string, unknown>);
  });
  return entries;
}

beforeAll(async () => {
  const older = await databaseBefore("genesis", "0040", { max: 2 });
  ({ sql } = older);
  closeDatabase = older.close;
  await historyBeforeTheLog();
  await older.migrateTheRest();
  server = await startTestServer({ sql, adminAddress: newWallet().address });
  expect((await claimLogKey(sql, signer)).ok).toBe(true);
});

afterAll(async () => {
  await server?.close();
  await closeDatabase?.();
});

describe("a deployment with history before the log", () => {
  it("starts its log with genesis entries: balances, open stakes, giveaways with their entries, proposals and votes", async () => {
    const entries = await loggedEntries();
    const genesis = entries.filter((entry) => String(entry.type).startsWith("genesis."));
    // The snapshot comes first, as one batch; nothing of the history is logged otherwise.
    expect(entries.slice(0, genesis.length)).toEqual(genesis);
    const of = (type: string) => genesis.filter((entry) => entry.type === `genesis.${type}`);
    const units = await sql<
      { address: string; units: number }[]
    >`select address, units::int8 as units from wallet_balances where units <> 0`;
    expect(new Map(of("balance").map((e) => [e.address, Number(e.units)]))).toEqual(
      new Map(units.map((w) => [w.address, Number(w.units)])),
    );
    expect(of("stake").map((e) => e.address)).toEqual([alice.address, alice.address]);
    expect(of("giveaway").map((e) => [e.giveaway, e.drawVersion, e.seed !== null])).toEqual([
      [openGiveaway, 2, false],
      [drawnGiveaway, 1, true],
    ]);
    const entriesOf = (giveaway: number) =>
      of("giveaway_entry")
        .filter((e) => e.giveaway === giveaway)
        .map((e) => [e.address, e.tickets, e.entry !== null]);
    // Version 2 draws over one row per address; version 1 over the entry rows, each with its id.
    expect(entriesOf(openGiveaway)).toEqual(
      expect.arrayContaining([
        [alice.address, 5, false],
        [bob.address, 1, false],
      ]),
    );
    expect(entriesOf(openGiveaway)).toHaveLength(2);
    expect(entriesOf(drawnGiveaway).sort()).toEqual(
      [
        [bob.address, 4, true],
        [carol.address, 5, true],
        [bob.address, 1, true],
      ].sort(),
    );
    expect(of("proposal").map((e) => e.proposal)).toEqual([proposal]);
    expect(of("vote").map((e) => [e.address, e.weight])).toEqual([
      [alice.address, 2],
      [bob.address, 2],
    ]);
    const [{ winner }] = await sql<{ winner: string }[]>`select winner_address as winner from giveaways where id = ${drawnGiveaway}`;
    expect(of("giveaway").find((e) => e.giveaway === drawnGiveaway)?.winnerAddresses).toEqual([winner]);
    const rows = of("giveaway_entry")
      .filter((e) => e.giveaway === drawnGiveaway)
      .map((e) => ({ id: Number(e.entry), address: String(e.address), tickets: Number(e.tickets) }));
    expect(drawWinner(String(of("giveaway").find((e) => e.giveaway === drawnGiveaway)?.seed), rows).address).toBe(winner);
  });

  it("log verify recomputes every balance, draw and tally from the genesis entries and what follows them", async () => {
    // After the log began: more points, a vote.
    await addPoints(sql, { address: carol.address, points: 7, description: "after the log began", actor: CLI });
    await vote(
      carol,
      (await sql<{ id: number }[]>`select id from proposal_options where proposal_id = ${proposal} and position = 0`)[0].id,
      1,
    );
    await integrate(sql, signer, new Date());
    const report = await verifyLog({ url: server.url, key: verifierKey });
    expect(report.differences).toEqual([]);
    expect(report.wallets).toBe(3);
    expect(report.giveaways).toBe(1);
    expect(report.proposals).toBe(1);
  });

  it("names a wallet whose history before the log was rewritten: its balance is no longer the one genesis logged", async () => {
    await sql.begin(async (tx) => {
      await tx`alter table points_ledger disable trigger points_ledger_no_update`;
      await tx`update points_ledger set amount = amount + 240000 where address = ${bob.address} and kind = 'admin_add'`;
      await tx`update balances set units = units + 240000 where address = ${bob.address}`;
      await tx`alter table points_ledger enable trigger points_ledger_no_update`;
    });
    const report = await verifyLog({ url: server.url, key: verifierKey });
    expect(report.differences).toEqual([
      expect.stringMatching(new RegExp(`^wallet ${bob.address}: the site says \\d+(\\.\\d+)? points, the log`)),
    ]);
  });
});
