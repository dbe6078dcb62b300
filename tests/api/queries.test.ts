/** The query modules on their own (no HTTP): transactions, points arithmetic, listings, snapshots. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Refusal } from "../../app/domain/errors.ts";
import type { Database } from "../../db/client.server.ts";
import { demoCatalogue } from "../../db/demo-catalogue.ts";
import { importCatalogue } from "../../db/queries/catalogue.server.ts";
import { createGiveaway, enterGiveaway, listEntriesOfAddress } from "../../db/queries/giveaways.server.ts";
import { leaderboardRank } from "../../db/queries/holdings.server.ts";
import { addPoints, clearPoints, getBalanceUnits, listUsers, recalculateAllPoints } from "../../db/queries/points.server.ts";
import { pointsHistoryPage } from "../../db/queries/points-history.server.ts";
import { votingPower } from "../../db/queries/proposals.server.ts";
import { findItems, stakeItems, unstakeItems } from "../../db/queries/stakes.server.ts";
import { inTransaction } from "../../db/queries/transaction.server.ts";
import { createTestDatabase } from "../support/test-database.ts";
import { giveItems, newWallet, spooks } from "./support.ts";

let db: Database;
const cli = { kind: "cli" } as const;

beforeAll(async () => {
  db = await createTestDatabase();
  await importCatalogue(db.sql, demoCatalogue());
});
afterAll(() => db.close());

describe("points", () => {
  it("adds exact hundredths, keeps a ledger history with the actor, and clears to 0", async () => {
    const { address } = newWallet();
    for (const points of [0.01, 1.15, 100]) await addPoints(db.sql, { address, points, actor: cli });
    expect(await getBalanceUnits(db.sql, address)).toBe(24 + 2760 + 240_000);
    const history = await pointsHistoryPage(db.sql, { address }, 50);
    expect(history.entries.map((entry) => [entry.kind, entry.delta, entry.details.by, entry.details.description])).toEqual([
      ["admin_add", 100, "the admin (CLI)", "Manual adjustment by admin"],
      ["admin_add", 1.15, "the admin (CLI)", "Manual adjustment by admin"],
      ["admin_add", 0.01, "the admin (CLI)", "Manual adjustment by admin"],
    ]);
    expect(await clearPoints(db.sql, { address, actor: cli })).toEqual({ address, clearedPoints: 101.16 });
    expect(await getBalanceUnits(db.sql, address)).toBe(0);
    await expect(addPoints(db.sql, { address, points: 0.001, actor: cli })).rejects.toThrow("at most 2 decimals");
    await expect(addPoints(db.sql, { address: "x", points: 1, actor: cli })).rejects.toBeInstanceOf(Refusal);
  });

  it("joins the caller's transaction, so a later refusal undoes the earlier writes", async () => {
    const { address } = newWallet();
    await expect(
      inTransaction(db.sql, async (tx) => {
        await addPoints(tx, { address, points: 50, actor: cli });
        throw new Refusal(409, "changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await getBalanceUnits(db.sql, address)).toBe(0);
    const [{ n }] = await db.sql`select count(*)::int as n from audit_log where target = ${address}`;
    expect(n).toBe(0);
  });

  it("recalculates with progress and lists users by a case-insensitive search", async () => {
    const { address } = newWallet();
    await addPoints(db.sql, { address, points: 3, actor: cli });
    const progress: number[] = [];
    const result = await recalculateAllPoints(db.sql, cli, (done) => progress.push(done));
    expect(result.addressesProcessed).toBeGreaterThanOrEqual(1);
    expect(progress.at(-1)).toBe(result.addressesProcessed);
    const users = await listUsers(db.sql, { search: address.slice(-8).toUpperCase() });
    expect(users).toEqual([{ address, totalPoints: 3, stakedCount: 0, dailyRate: 0 }]);
  });
});

describe("giveaway entries", () => {
  it("refuses an entry costing more than the balance and leaves it unchanged", async () => {
    const { address } = newWallet();
    await addPoints(db.sql, { address, points: 250, actor: cli });
    const giveaway = await createGiveaway(
      db.sql,
      { title: "T", description: "D", imageUrl: "/uploads/a.png", pointsCost: 100, endDate: new Date(Date.now() + 3_600_000) },
      cli,
    );
    await enterGiveaway(db.sql, { giveawayId: giveaway.id, address, tickets: 2 });
    await expect(enterGiveaway(db.sql, { giveawayId: giveaway.id, address, tickets: 1 })).rejects.toMatchObject({ status: 409 });
    expect(await getBalanceUnits(db.sql, address)).toBe(50 * 2400);
    expect(await listEntriesOfAddress(db.sql, address)).toEqual([expect.objectContaining({ tickets: 2, giveawayTitle: "T" })]);
  });
});

describe("stakes and snapshots", () => {
  it("finds items in the order asked, stakes for the owner, and refuses unknown ids", async () => {
    const { address } = newWallet();
    const owned = await giveItems(db.sql, address, spooks(500, 501));
    const items = await findItems(db.sql, [owned[1].inscriptionId.toUpperCase().replace("I0", "i0"), owned[0].inscriptionId]);
    expect(items.map((item) => item.name)).toEqual(["Spooks #501", "Spooks #500"]);
    expect(await stakeItems(db.sql, address, items)).toEqual({ count: 2, alreadyStaked: 0 });
    expect(await votingPower(db.sql, address)).toBe(2);
    expect(await unstakeItems(db.sql, address, items.slice(0, 1))).toEqual({ count: 1, alreadyStaked: 0 });
    await expect(findItems(db.sql, [`${"f".repeat(64)}i0`])).rejects.toMatchObject({ status: 404 });
  });

  it("ranks within the leaderboard's longest list only", async () => {
    expect(await leaderboardRank(db.sql, newWallet().address, 0)).toBe(0);
    expect(await leaderboardRank(db.sql, newWallet().address, Number.MAX_SAFE_INTEGER)).toBe(1);
  });
});
