/**
 * The outbox (issue 24 item 1): every cause writes its event in its own transaction (a cause rolled back leaves
 * none), once per (event, subject, recipient); the timed events come from the worker's pass at their time; the
 * site's list is the public events and the address's personal ones, newest first.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HOUR_MS } from "../../app/domain/clock.ts";
import type { Sql } from "../../db/client.server.ts";
import { closeEntries, recordDraw } from "../../db/queries/draws.server.ts";
import { createGiveaway, drawGiveawayWinner, enterGiveaway, setGiveawayActive } from "../../db/queries/giveaways.server.ts";
import { notificationsFor, raiseTimedEvents } from "../../db/queries/notifications.server.ts";
import { endForeignStakes } from "../../db/queries/ownership.server.ts";
import { addPoints, clearPoints, resetNegativeBalances, appendLedger } from "../../db/queries/points.server.ts";
import { createProposal } from "../../db/queries/proposals.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { at, openStake, seedItems, testAddress, testClock } from "../test-support.ts";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let clock: ReturnType<typeof testClock> | undefined;
const CLI = { kind: "cli" } as const;
const SYSTEM = { kind: "system" } as const;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());
afterEach(() => {
  clock?.restore();
  clock = undefined;
});

type Row = {
  event: string;
  subject: string;
  recipient: string | null;
  title: string;
  body: string;
  link: string;
  data: Record<string, unknown>;
};

async function eventsOf(sql: Sql, subject: string | number, event?: string): Promise<Row[]> {
  return sql<Row[]>`
    select event, subject, recipient, title, body, link, data from notification_events
    where subject = ${String(subject)} ${event ? sql`and event like ${event.endsWith(".") ? `${event}%` : event}` : sql``} order by id`;
}

const giveawayInput = (title: string, endDate: Date) => ({
  title,
  description: "d",
  imageUrl: "/uploads/x.png",
  pointsCost: 1,
  endDate,
  winners: 1,
});

/** Runs `cause` in a transaction that is then rolled back. */
async function rolledBack(cause: (tx: Sql) => Promise<unknown>) {
  await db.sql
    .begin(async (tx) => {
      await cause(tx as unknown as Sql);
      throw new Error("roll back");
    })
    .catch((error: Error) => expect(error.message).toBe("roll back"));
}

describe("written with their cause", () => {
  it("giveaway.opened with the giveaway, once, even when it is ended and activated again; none when the creation rolls back", async () => {
    clock = testClock(at(0));
    const giveaway = await createGiveaway(db.sql, giveawayInput("Haunted Hoodie", at(72)), CLI);
    const [opened] = await eventsOf(db.sql, giveaway.id, "giveaway.opened");
    expect(opened).toMatchObject({ recipient: null, title: "New giveaway: Haunted Hoodie", link: "/rewards" });
    expect(opened.data).toMatchObject({ giveawayId: giveaway.id, pointsCost: 1 });
    await setGiveawayActive(db.sql, giveaway.id, false, CLI);
    await setGiveawayActive(db.sql, giveaway.id, true, CLI);
    expect(await eventsOf(db.sql, giveaway.id, "giveaway.opened")).toHaveLength(1);

    const before = await db.sql`select count(*)::int as n from notification_events`;
    await rolledBack((tx) => createGiveaway(tx, giveawayInput("Never", at(72)), CLI));
    expect(await db.sql`select count(*)::int as n from notification_events`).toEqual(before);
  });

  it("giveaway.drawn (winners and the verify link) and giveaway.won to each winner, version 2 and version 1", async () => {
    clock = testClock(at(0));
    const alice = testAddress("outbox-winner-a");
    await addPoints(db.sql, { address: alice, points: 10, actor: CLI });
    const giveaway = await createGiveaway(db.sql, giveawayInput("Pumpkin", at(1)), CLI);
    await enterGiveaway(db.sql, { giveawayId: giveaway.id, address: alice, tickets: 2 });
    await closeEntries(db.sql, giveaway.id, 100, SYSTEM, "end date");
    await recordDraw(db.sql, giveaway.id, "ab".repeat(32), SYSTEM);
    const events = await eventsOf(db.sql, giveaway.id, "giveaway.");
    const drawn = events.find((row) => row.event === "giveaway.drawn")!;
    expect(drawn.data).toMatchObject({ winners: [alice], verifyLink: `/giveaways/${giveaway.id}/verify` });
    expect(drawn.link).toBe(`/giveaways/${giveaway.id}/verify`);
    // Issue 33, item 2: the win says what to do, and leads to the claim dialog.
    expect(events.filter((row) => row.event === "giveaway.won")).toEqual([
      expect.objectContaining({ recipient: alice, title: "You won: Pumpkin. Claim your prize", link: `/rewards?claim=${giveaway.id}` }),
    ]);
    // Drawing again answers the first draw and announces nothing more.
    await recordDraw(db.sql, giveaway.id, "ab".repeat(32), SYSTEM);
    expect(await eventsOf(db.sql, giveaway.id, "giveaway.")).toHaveLength(events.length);

    // Version 1 (older giveaways): drawn by the admin at once.
    const [{ id: v1 }] = await db.sql<{ id: number }[]>`
      insert into giveaways (title, description, image_url, points_cost, end_date, active, draw_commitment, draw_seed, draw_version, winners, created_at)
      values ('Old one', 'd', '/uploads/x.png', 1, ${at(10)}, true, ${"c".repeat(64)}, ${"d".repeat(64)}, 1, 1, ${at(0)}) returning id`;
    await enterGiveaway(db.sql, { giveawayId: v1, address: alice, tickets: 1 });
    await drawGiveawayWinner(db.sql, v1, CLI);
    expect((await eventsOf(db.sql, v1, "giveaway.")).map((row) => [row.event, row.recipient])).toEqual([
      ["giveaway.drawn", null],
      ["giveaway.won", alice],
    ]);
  });

  it("issue 33: a win still unclaimed 24 h after its draw is reminded once, leading to the claim dialog; a claimed one is not", async () => {
    clock = testClock(at(0));
    const [bob, carol] = [testAddress("outbox-remind-b"), testAddress("outbox-remind-c")];
    for (const address of [bob, carol]) await addPoints(db.sql, { address, points: 10, actor: CLI });
    const giveaway = await createGiveaway(db.sql, { ...giveawayInput("Lantern", at(1)), winners: 2 }, CLI);
    for (const address of [bob, carol]) await enterGiveaway(db.sql, { giveawayId: giveaway.id, address, tickets: 1 });
    await closeEntries(db.sql, giveaway.id, 100, SYSTEM, "end date");
    clock.set(at(2));
    await recordDraw(db.sql, giveaway.id, "cd".repeat(32), SYSTEM);
    // Carol claims; Bob does not.
    await db.sql`insert into giveaway_claims (giveaway_id, address, contact, message, signature, claimed_at)
      values (${giveaway.id}, ${carol}, 'carol@example.com', 'm', 's', ${at(3)})`;
    const reminders = () => eventsOf(db.sql, `${giveaway.id}:reminder`, "giveaway.won");
    await raiseTimedEvents(db.sql, at(25, 59));
    expect(await reminders()).toEqual([]);
    await raiseTimedEvents(db.sql, at(26));
    await raiseTimedEvents(db.sql, at(27));
    expect(await reminders()).toEqual([
      expect.objectContaining({
        recipient: bob,
        title: "Claim your prize: Lantern",
        link: `/rewards?claim=${giveaway.id}`,
        data: expect.objectContaining({ reminder: true }),
      }),
    ]);
  });

  it("issue 33: proposal notifications lead to the proposal's own page", async () => {
    clock = testClock(at(0));
    const proposal = await createProposal(
      db.sql,
      { title: "Links", description: "d", startDate: at(1), endDate: at(30), voteType: "yes_no" as const, createdBy: "cli" },
      CLI,
    );
    await raiseTimedEvents(db.sql, at(1));
    await raiseTimedEvents(db.sql, at(7));
    await raiseTimedEvents(db.sql, at(31));
    const rows = await eventsOf(db.sql, proposal.id, "proposal.");
    expect(rows.map((row) => [row.event, row.link])).toEqual([
      ["proposal.opened", `/governance/${proposal.id}`],
      ["proposal.closing_soon", `/governance/${proposal.id}`],
      ["proposal.closed", `/governance/${proposal.id}`],
    ]);
  });

  it("proposal.opened at its start (a proposal starts after its creation); closing_soon 24 h before the end; closed with the result", async () => {
    clock = testClock(at(0));
    const input = (title: string, startDate: Date, endDate: Date) => ({
      title,
      description: "d",
      startDate,
      endDate,
      voteType: "yes_no" as const,
      createdBy: "cli",
    });
    const later = await createProposal(db.sql, input("Open later", at(10), at(40)), CLI);
    expect(await eventsOf(db.sql, later.id, "proposal.")).toEqual([]);

    clock.set(at(9, 59));
    await raiseTimedEvents(db.sql, at(9, 59));
    expect(await eventsOf(db.sql, later.id, "proposal.")).toEqual([]);
    await raiseTimedEvents(db.sql, at(10));
    expect((await eventsOf(db.sql, later.id, "proposal.")).map((row) => row.event)).toEqual(["proposal.opened"]);

    await raiseTimedEvents(db.sql, at(15, 59));
    expect(await eventsOf(db.sql, later.id, "proposal.closing_soon")).toEqual([]);
    await raiseTimedEvents(db.sql, at(16));
    await raiseTimedEvents(db.sql, at(16, 1));
    expect(await eventsOf(db.sql, later.id, "proposal.closing_soon")).toHaveLength(1);

    await db.sql`insert into votes (proposal_id, option_id, address, weight, signature, message, voted_at)
      select ${later.id}, ${later.options[0].id}, ${testAddress("outbox-voter")}, 3, 's', 'm', ${at(12)}`;
    await raiseTimedEvents(db.sql, at(40));
    expect(await eventsOf(db.sql, later.id, "proposal.closed")).toEqual([]);
    await raiseTimedEvents(db.sql, at(40, 1));
    await raiseTimedEvents(db.sql, at(41));
    const [closed] = await eventsOf(db.sql, later.id, "proposal.closed");
    expect(closed.title).toBe("Vote closed: Open later");
    expect(closed.body).toBe('"Yes" won with 3 of 3 votes.');
    expect(closed.data.results).toHaveLength(2);
  });

  it("giveaway.closing_soon 24 h before the end date, while entries are open, once", async () => {
    clock = testClock(at(0));
    const giveaway = await createGiveaway(db.sql, giveawayInput("Closing", at(48)), CLI);
    await raiseTimedEvents(db.sql, at(23, 59));
    expect(await eventsOf(db.sql, giveaway.id, "giveaway.closing_soon")).toEqual([]);
    await raiseTimedEvents(db.sql, at(24));
    await raiseTimedEvents(db.sql, at(30));
    expect(await eventsOf(db.sql, giveaway.id, "giveaway.closing_soon")).toEqual([
      expect.objectContaining({ title: "Giveaway closing soon: Closing", body: "Entries close at Jan 3, 2031, 00:00 UTC." }),
    ]);
  });

  it("points.adjusted to the holder for each admin change (add, clear, negative reset); none when it rolls back", async () => {
    clock = testClock(at(0));
    const holder = testAddress("outbox-points");
    await addPoints(db.sql, { address: holder, points: 150, description: "Halloween bonus", actor: CLI });
    await clearPoints(db.sql, { address: holder, actor: CLI });
    await appendLedger(db.sql, [{ address: holder, kind: "admin_clear", units: -2400 * 5, actor: SYSTEM }]);
    await resetNegativeBalances(db.sql, CLI);
    const rows = await db.sql<Row[]>`select * from notification_events where recipient = ${holder} order by id`;
    expect(rows.map((row) => [row.event, row.title, row.body])).toEqual([
      ["points.adjusted", "You received 150 points", "Halloween bonus. Your balance is now 150 points."],
      ["points.adjusted", "150 points removed from your balance", "Cleared by admin. Your balance is now 0 points."],
      ["points.adjusted", "You received 5 points", "Negative balance reset to 0. Your balance is now 0 points."],
    ]);
    await rolledBack((tx) => addPoints(tx, { address: holder, points: 1, actor: CLI }));
    expect(await db.sql`select id from notification_events where recipient = ${holder}`).toHaveLength(3);
  });

  it("stake.ended to the holder a transfer ended the stake of, naming the item, in the statement that ends it", async () => {
    clock = testClock(at(0));
    const [item] = await seedItems(db.sql, 1);
    const [{ name }] = await db.sql<{ name: string }[]>`select name from items where id = ${item.id}`;
    const staker = testAddress("outbox-staker");
    const buyer = testAddress("outbox-buyer");
    await db.sql`insert into ownership (item_id, owner_address, owner_kind, satpoint, block_height, seen_at)
      values (${item.id}, ${buyer}, 'p2pkh', ${"a".repeat(64) + ":0:0"}, 1, ${at(0)})
      on conflict (item_id) do update set owner_address = excluded.owner_address`;
    const stakeId = await openStake(db.sql, item.id, staker, at(-5));
    expect(await endForeignStakes(db.sql, at(1))).toBeGreaterThanOrEqual(1);
    expect(await eventsOf(db.sql, stakeId, "stake.ended")).toEqual([
      expect.objectContaining({
        recipient: staker,
        title: "Your stake ended",
        body: `${name} moved to another wallet, so its stake ended.`,
        data: expect.objectContaining({ stakeId, item: name, inscriptionId: item.inscriptionId }),
      }),
    ]);
  });
});

describe("GET /api/notifications/{address}'s list", () => {
  it("holds the public events and the address's own, newest first, by pages", async () => {
    const mine = testAddress("outbox-list-mine");
    const theirs = testAddress("outbox-list-theirs");
    clock = testClock(at(0));
    await addPoints(db.sql, { address: mine, points: 1, actor: CLI });
    await addPoints(db.sql, { address: theirs, points: 1, actor: CLI });
    await createGiveaway(db.sql, giveawayInput("Listed", at(72)), CLI);
    const first = await notificationsFor(db.sql, mine, { limit: 2 });
    expect(first.entries.map((entry) => entry.title)).toEqual(["New giveaway: Listed", "You received 1 point"]);
    expect(first.nextCursor).toBe(String(first.entries[1].id));
    const all = await notificationsFor(db.sql, mine, { limit: 100 });
    expect(all.entries.some((entry) => entry.event === "points.adjusted" && entry.id !== first.entries[1].id)).toBe(
      (await db.sql`select 1 from notification_events where recipient = ${mine}`).length > 1,
    );
    const ids = all.entries.map((entry) => entry.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    const personal = await db.sql<{ id: number }[]>`select id from notification_events where recipient = ${theirs}`;
    expect(ids).not.toContain(personal[0].id);
    const next = await notificationsFor(db.sql, mine, { limit: 100, cursor: Number(first.nextCursor) });
    expect(next.entries[0].id).toBeLessThan(first.entries[1].id);
    expect(HOUR_MS).toBe(3_600_000);
  });
});
