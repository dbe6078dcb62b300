/**
 * The public log in the database (issue 34, items 1 and 2; migration 0040): every row that makes a number
 * gets its entry in the statement that writes it, whatever writes it; entries are canonical JSON; indexes are
 * given at commit without gaps; a rolled-back row leaves no entry; the runtime role cannot write entries;
 * integration builds tiles and a signed checkpoint that our own client reads and proves, on either engine.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isCanonicalJson } from "../app/domain/tlog/canonical.ts";
import { openCheckpoint, proveConsistent, proveIncluded, readAllEntries } from "../app/domain/tlog/client.ts";
import { signerFromSeed, verifierOf } from "../app/domain/tlog/note.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { testAddress } from "../indexer/test-support.ts";
import type { Sql } from "./client.server.ts";
import { demoCatalogue } from "./demo-catalogue.ts";
import { createSchedule } from "./queries/boosts.server.ts";
import { importCatalogue } from "./queries/catalogue.server.ts";
import { recordUsedSignature } from "./queries/auth.server.ts";
import { addPoints } from "./queries/points.server.ts";
import { castVote } from "./queries/proposals.server.ts";
import { stakeItems, unstakeItems } from "./queries/stakes.server.ts";
import { databaseTiles, integrate, latestCheckpoint, logIndexOf, logSizes, servedNote, withLogIndex } from "./queries/log.server.ts";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: Sql;
const signer = signerFromSeed("spooks.test/log", new Uint8Array(32).fill(3));
const SYSTEM = { kind: "system" } as const;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db?.close();
});

async function allEntries(): Promise<{ index: number; json: Record<string, unknown>; text: string }[]> {
  await integrate(sql, signer, new Date());
  const checkpoint = openCheckpoint(servedNote((await latestCheckpoint(sql))!), verifierOf(signer));
  const found: { index: number; json: Record<string, unknown>; text: string }[] = [];
  const root = await readAllEntries(databaseTiles(sql), checkpoint.size, (first, entries) => {
    entries.forEach((entry, i) => {
      const text = new TextDecoder().decode(entry);
      found.push({ index: first + i, text, json: JSON.parse(text) as Record<string, unknown> });
    });
  });
  expect(Buffer.from(root).equals(Buffer.from(checkpoint.root))).toBe(true);
  return found;
}

describe("entries in the same statement as their rows", () => {
  it("logs a ledger row, its audit row, in order, as canonical JSON, with gapless indexes", async () => {
    const address = testAddress("log-1");
    const before = (await logSizes(sql)).sequenced;
    const { logIndex } = await withLogIndex(sql, (tx) =>
      addPoints(tx, { address, points: 5, description: 'thanks \u2028 "quoted"', actor: SYSTEM }),
    );
    expect(logIndex).toBe(before);
    const entries = await allEntries();
    expect(entries.map((e) => e.index)).toEqual(entries.map((_, i) => i));
    for (const entry of entries) expect(isCanonicalJson(entry.text), entry.text).toBe(true);
    const ledger = entries.find((e) => e.json.type === "ledger" && e.json.address === address)!;
    expect(ledger.json).toMatchObject({ kind: "admin_add", amount: 5 * 2400, description: 'thanks \u2028 "quoted"', actor: "system" });
    const [{ id }] = await sql<{ id: number }[]>`select id from points_ledger where address = ${address}`;
    expect(await logIndexOf(sql, "points_ledger", id)).toBe(ledger.index);
    const audit = entries.find(
      (e) => e.json.type === "audit" && (e.json.details as { address?: string }).address === undefined && e.json.target === address,
    );
    expect(audit?.json).toMatchObject({ action: "points.add", actor: "system" });
  });

  it("leaves no entry and no gap behind a rolled-back row", async () => {
    const before = await logSizes(sql);
    await expect(
      sql.begin(async (tx) => {
        await addPoints(tx, { address: testAddress("log-rollback"), points: 1, actor: SYSTEM });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect((await logSizes(sql)).sequenced).toBe(before.sequenced);
    await addPoints(sql, { address: testAddress("log-after"), points: 1, actor: SYSTEM });
    const entries = await allEntries();
    expect(entries.map((e) => e.index)).toEqual(entries.map((_, i) => i));
    expect(entries.some((e) => e.json.address === testAddress("log-rollback"))).toBe(false);
  });

  it("gives a transaction its indexes in its last statement: a writer waits for it, a rollback after it gives them back", async () => {
    const before = (await logSizes(sql)).sequenced;
    let asked: (() => void) | undefined;
    let release: (() => void) | undefined;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const first = sql.begin(async (tx) => {
      await addPoints(tx, { address: testAddress("log-seq-1"), points: 1, actor: SYSTEM });
      const [{ index }] = await tx<{ index: number }[]>`select log_sequence_now() as index`;
      asked?.();
      await holding;
      throw Object.assign(new Error("rolled back after its indexes"), { index });
    });
    await new Promise<void>((resolve) => (asked = resolve));
    // A second writer: its entries wait for the first transaction's end, then take the indexes it gave back.
    const second = withLogIndex(sql, (tx) => addPoints(tx, { address: testAddress("log-seq-2"), points: 1, actor: SYSTEM }));
    release!();
    await expect(first).rejects.toMatchObject({ index: before });
    expect((await second).logIndex).toBe(before);
    const entries = await allEntries();
    expect(entries.map((e) => e.index)).toEqual(entries.map((_, i) => i));
    expect(entries.some((e) => e.json.address === testAddress("log-seq-1"))).toBe(false);
    expect(entries.find((e) => e.index === before)?.json.address).toBe(testAddress("log-seq-2"));
    expect(await withLogIndex(sql, async () => "no entries")).toEqual({ result: "no entries", logIndex: null });
  });

  it("logs a bulk stake and an unstake as the stake rows stand, every field, with the signed message's hash", async () => {
    const address = testAddress("log-stakes");
    const items = demoCatalogue().filter((item) => item.collection === "spooks" && item.number <= 3);
    await importCatalogue(db.owner.sql, items);
    const rows = await sql<{ id: number; inscriptionId: string; name: string }[]>`
      select id, inscription_id, name from items where inscription_id = any(${items.map((item) => item.inscriptionId)}) order by id`;
    await db.owner.sql`
      insert into ownership (item_id, owner_address, satpoint, seen_at)
      select id, ${address}, ${`${"cd".repeat(32)}:0:0`}, now() from items where id = any(${rows.map((row) => row.id)}::int[])`;
    // As the routes do: the signature is recorded in the transaction of the change, and the entries name its message's hash.
    const signed = async (action: "stake-bulk" | "unstake-bulk", message: string, work: (tx: Sql) => Promise<unknown>) => {
      await sql.begin(async (tx) => {
        await recordUsedSignature(tx, { address, message, signature: "not checked here", action });
        await work(tx as unknown as Sql);
      });
      return createHash("sha256").update(message).digest("hex");
    };
    const stakedBy = await signed("stake-bulk", "stake all, log test", (tx) => stakeItems(tx, address, rows));
    const unstakedBy = await signed("unstake-bulk", "unstake one, log test", (tx) => unstakeItems(tx, address, rows.slice(0, 1)));

    const stakes = await sql<{ id: number; itemId: number; startedAt: Date; endedAt: Date | null; endReason: string | null }[]>`
      select id, item_id, started_at, ended_at, end_reason from stakes where address = ${address} order by id`;
    const inscriptionOf = new Map(rows.map((row) => [row.id, row.inscriptionId]));
    const expected = (stake: (typeof stakes)[number], type: "stake" | "unstake") => ({
      address,
      at: (type === "stake" ? stake.startedAt : stake.endedAt!).toISOString(),
      collection: "spooks",
      endReason: type === "stake" ? null : stake.endReason,
      endedAt: type === "stake" ? null : stake.endedAt!.toISOString(),
      id: stake.id,
      item: inscriptionOf.get(stake.itemId),
      rarity: expect.stringMatching(/^(Common|Rare|Epic|Legendary)$/),
      reopenedFrom: null,
      signed: type === "stake" ? stakedBy : unstakedBy,
      startedAt: stake.startedAt.toISOString(),
      // A stake that reopens none counts its tenure from its own start.
      tenureFrom: stake.startedAt.toISOString(),
      type,
    });
    const entries = (await allEntries()).filter((entry) => entry.json.address === address && entry.json.type !== "signed");
    expect(entries.map((entry) => entry.json)).toEqual([
      ...stakes.map((stake) => expected({ ...stake, endedAt: null, endReason: null }, "stake")),
      expected(stakes[0], "unstake"),
    ]);
    expect(stakes[0].endReason).toBe("unstaked");
  });

  it("logs each vote as it stands: a change names the vote it supersedes, a late loser the vote that superseded it", async () => {
    const address = testAddress("log-votes");
    const items = demoCatalogue().filter((item) => item.collection === "spooks" && item.number >= 4 && item.number <= 5);
    await importCatalogue(db.owner.sql, items);
    await db.owner.sql`
      insert into stakes (item_id, address, started_at)
      select id, ${address}, now() - interval '2 hours' from items where inscription_id = any(${items.map((item) => item.inscriptionId)})`;
    const [proposal] = await db.owner.sql<{ id: number }[]>`
      insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at, allow_vote_change)
      values ('Log test', 'Which?', now() - interval '1 hour', now() + interval '1 day', 'yes_no', 'test', now() - interval '1 hour', true)
      returning id`;
    const options = await db.owner.sql<{ id: number }[]>`
      insert into proposal_options (proposal_id, position, option_text) values (${proposal.id}, 0, 'Yes'), (${proposal.id}, 1, 'No') returning id`;
    const signedAt = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
    const vote = (option: number, minutesAgo: number, signature: string) =>
      castVote(sql, {
        proposalId: proposal.id,
        optionId: options[option].id,
        address,
        signature,
        message: `vote ${signature}`,
        signedAt: signedAt(minutesAgo),
      });
    // The genesis snapshot's definition of an entry, read while the vote stands as it was written.
    const genesisText = async (id: number) =>
      (await db.owner.sql<{ text: string }[]>`select log_vote_entry('vote', ${id}::int) as text`)[0].text;
    const first = await vote(0, 30, "first");
    const changed = await vote(1, 10, "changed"); // signed later: counts, and supersedes the first
    const changedText = await genesisText(changed.id);
    const late = await vote(0, 20, "late"); // arrives last, signed before the change: superseded by it

    const rows = await sql<{ id: number; optionId: number; votedAt: Date; signedAt: Date; stakedAtStart: string[] }[]>`
      select id, option_id, voted_at, signed_at, staked_at_start from votes where address = ${address} order by id`;
    const expected = (row: (typeof rows)[number], signature: string, supersededBy: number | null, supersedes: number | null) => ({
      address,
      at: row.votedAt.toISOString(),
      id: row.id,
      message: `vote ${signature}`,
      option: row.optionId,
      proposal: proposal.id,
      signature,
      signedAt: row.signedAt.toISOString(),
      stakedAtStart: row.stakedAtStart,
      supersededBy,
      supersedes,
      type: "vote",
      weight: 2,
    });
    const entries = (await allEntries()).filter((entry) => entry.json.address === address && entry.json.type === "vote");
    expect(entries.map((entry) => entry.json)).toEqual([
      expected(rows[0], "first", null, null),
      expected(rows[1], "changed", null, first.id),
      expected(rows[2], "late", changed.id, null),
    ]);
    expect(rows.map((row) => row.id)).toEqual([first.id, changed.id, late.id]);
    // The very bytes of the genesis snapshot's definition.
    expect([entries[1].text, entries[2].text]).toEqual([changedText, await genesisText(late.id)]);
    expect(entries.every((entry) => isCanonicalJson(entry.text))).toBe(true);
  });

  it("refuses the runtime role any write to the entries, and the owner any change of a batch", async () => {
    await expect(
      sql`insert into log_batches (source, first_row, last_row, entry_count, bundle) values ('x', 1, 1, 1, '\\x0000')`,
    ).rejects.toThrow();
    await expect(sql`update log_head set size = 0`).rejects.toThrow();
    await expect(sql`delete from log_batches`).rejects.toThrow();
    await expect(sql`select log_write_batch('points_ledger', array[1]::int8[], array['{}'])`).rejects.toThrow(/permission denied/);
    // Even the schema's owner (short of disabling the triggers) changes no batch: only the sequencing sets first_index, once.
    const owner = db.owner.sql;
    await expect(owner`update log_batches set bundle = bundle`).rejects.toThrow(/append-only/);
    await expect(owner`update log_batches set first_index = first_index + 1 where first_index is not null`).rejects.toThrow(/append-only/);
    await expect(owner`update log_batches set first_index = first_index, source = source`).rejects.toThrow(/append-only/);
    await expect(owner`delete from log_batches`).rejects.toThrow(/append-only/);
  });

  it("writes an accrual hour's rows in one batch, and the tiles prove every entry and every older checkpoint", async () => {
    const first = (await latestCheckpoint(sql))!;
    const hour = new Date(Date.UTC(2030, 0, 1));
    await sql`
      insert into points_ledger (address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units, actor, created_at)
      select 'W' || lpad(g::text, 6, '0'), 'accrual', 10000, ${hour}, 1, 0, 1, 10000, 'system', ${hour}
      from generate_series(1, 600) as g`;
    const entries = await allEntries();
    const accruals = entries.filter((e) => e.json.kind === "accrual");
    expect(accruals.length).toBe(600);
    expect(accruals[0].json).toMatchObject({
      address: "W000001",
      amount: 10000,
      hour: hour.toISOString(),
      stakedSpooks: 1,
      type: "ledger",
    });
    const [{ batches }] = await sql<
      { batches: number }[]
    >`select count(*)::int as batches from log_batches where source = 'points_ledger' and entry_count = 600 and template is not null`;
    expect(batches).toBe(1);
    const latest = openCheckpoint(servedNote((await latestCheckpoint(sql))!), verifierOf(signer));
    const tiles = databaseTiles(sql);
    await proveConsistent(tiles, openCheckpoint(servedNote(first), verifierOf(signer)), latest);
    for (const index of [0, 255, 256, 300, latest.size - 1]) {
      await proveIncluded(tiles, latest, index, new TextEncoder().encode(entries[index].text));
    }
    const [{ id }] = await sql<{ id: number }[]>`select max(id)::int as id from points_ledger where kind = 'accrual'`;
    expect(await logIndexOf(sql, "points_ledger", id)).toBe(accruals.at(-1)!.index);
  });

  it("keeps an accrual hour's common text once, and rebuilds the very entries a statement written in full gives", async () => {
    const hour = new Date(Date.UTC(2030, 0, 2));
    const at = new Date(hour.getTime() + 3_600_000);
    // Addresses JSON must escape (a quote, a separator the compact form uses, a line separator), and boost figures.
    const odd = ['W"quoted"', "W\u001fsep", "W\u2028ls"];
    const [{ version }] = await sql<{ version: number }[]>`select coalesce(max(version), 0)::int as version from boost_schedules`;
    const boost =
      version ||
      (
        await createSchedule(
          sql,
          { rarity: { Common: 100, Rare: 100, Epic: 100, Legendary: 100 }, tenure: [], cap: 250, effectiveFrom: hour },
          SYSTEM,
          hour,
        )
      ).version;
    // One item staked each, under the schedule: 15,000 units an hour at 150 %, or (a rarer item) 25,000 at 250 %.
    const rows = (suffix: string) => odd.map((address, i) => ({ address: `${address}-${suffix}`, boosted: i > 0 }));
    const insert = (created: (i: number) => Date, suffix: string) =>
      sql`
        insert into points_ledger (address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units,
                                   boost_version, rarity_percent_sum, boost_percent_sum, actor, created_at)
        select r.address, 'accrual', case when r.boosted then 25000 else 15000 end, ${hour}, 1, 0, 1, 10000,
               ${boost}::int, case when r.boosted then 200 else 100 end, case when r.boosted then 250 else 150 end,
               'system', r.created
        from jsonb_to_recordset(${sql.json(rows(suffix).map((row, i) => ({ ...row, created: created(i).toISOString() })))})
          as r(address text, boosted boolean, created timestamptz)`;
    await insert(() => at, "compact");
    await insert((i) => new Date(at.getTime() + i), "full");
    const batches = await sql<{ template: string[] | null; entryCount: number }[]>`
      select template, entry_count from log_batches where source = 'points_ledger' order by id desc limit 2`;
    expect(batches.map((b) => b.template !== null)).toEqual([false, true]);
    const entries = await allEntries();
    const of = (suffix: string) => entries.filter((e) => String(e.json.address).endsWith(`-${suffix}`));
    const [compact, full] = [of("compact"), of("full")];
    expect(compact).toHaveLength(3);
    expect(full).toHaveLength(3);
    compact.forEach((entry, i) => {
      expect(isCanonicalJson(entry.text), entry.text).toBe(true);
      const written = full[i].json;
      expect({ ...entry.json, address: "", at: "", id: 0 }).toEqual({ ...written, address: "", at: "", id: 0 });
      expect(entry.json.address).toBe(`${odd[i]}-compact`);
    });
    expect(compact[0].json).toMatchObject({
      amount: 15000,
      boostVersion: boost,
      boostPercentSum: 150,
      at: at.toISOString(),
      hour: hour.toISOString(),
    });
    expect(compact[1].json).toMatchObject({ amount: 25000, boostVersion: boost, boostPercentSum: 250, rarityPercentSum: 200 });
  });

  it("keeps an accrual statement whose ids are out of order or have gaps compact too, in id order, each row found at its entry", async () => {
    const hour = new Date(Date.UTC(2030, 0, 3));
    const [{ top }] = await sql<{ top: number }[]>`select max(id)::int8 as top from points_ledger`;
    const ids = [Number(top) + 9, Number(top) + 2, Number(top) + 5];
    await sql`
      insert into points_ledger (id, address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units, actor, created_at)
      select id, 'W-gap-' || id, 'accrual', 10000, ${hour}, 1, 0, 1, 10000, 'system', ${hour} from unnest(${ids}::int8[]) as t(id)`;
    const [batch] = await sql<{ template: string[] | null; skipped: number[] | null; firstRow: number }[]>`
      select template, skipped, first_row from log_batches where source = 'points_ledger' order by id desc limit 1`;
    expect(batch.template).not.toBeNull();
    expect(Number(batch.firstRow)).toBe(Number(top) + 2);
    expect(batch.skipped?.map(Number)).toEqual([3, 4, 6, 7, 8].map((k) => Number(top) + k));
    const entries = await allEntries();
    for (const id of ids) {
      const index = await logIndexOf(sql, "points_ledger", id);
      expect(entries[index!].json).toMatchObject({ id, address: `W-gap-${id}`, kind: "accrual", hour: hour.toISOString() });
    }
  });
});
