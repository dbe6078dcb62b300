/** The rules the schema itself enforces (db/migrations), on the migrated test database of either engine. */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../tests/support/test-database.ts";
import type { Sql } from "./client.server.ts";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: Sql;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db?.close();
});

const T0 = new Date("2030-01-01T00:00:00.000Z");
const hour = (n: number) => new Date(T0.getTime() + n * 3_600_000);
const hex64 = () => randomBytes(32).toString("hex");
let counter = 0;
const uniqueAddress = () => `Dtest${++counter}${randomBytes(4).toString("hex")}`;

/** The query fails with this SQLSTATE (and constraint, when given). */
async function refused(query: PromiseLike<unknown>, code: string, constraint?: string | RegExp): Promise<void> {
  const error = (await Promise.resolve(query).then(
    () => null,
    (caught: unknown) => caught,
  )) as { code?: string; constraint_name?: string; message?: string } | null;
  expect(error, "expected the database to refuse").not.toBeNull();
  expect(error?.code, error?.message).toBe(code);
  if (typeof constraint === "string") expect(error?.constraint_name).toBe(constraint);
  if (constraint instanceof RegExp) expect(error?.message).toMatch(constraint);
}

async function insertItem(
  fields: { collection?: string; number?: number; rank?: number; rarity?: string; inscriptionId?: string; name?: string } = {},
) {
  const number = fields.number ?? 100_000 + ++counter;
  const collection = fields.collection ?? "spooks";
  const rank = fields.rank ?? 1000 + counter;
  const rarity = fields.rarity ?? (rank <= 44 ? "Legendary" : rank <= 178 ? "Epic" : rank <= 444 ? "Rare" : "Common");
  const [row] = await sql<{ id: number }[]>`
    insert into items (inscription_id, collection, name, number, rank, rarity)
    values (${fields.inscriptionId ?? `${hex64()}i0`}, ${collection}, ${fields.name ?? `${collection === "spooks" ? "Spooks" : "Spook Society"} #${number}`},
            ${number}, ${rank}, ${rarity})
    returning id`;
  return row.id;
}

/** An accrual of `amount` units is written as one Spooks item at that hourly rate, a giveaway row as 1 ticket of giveaway 1. */
async function ledger(address: string, kind: string, amount: number, accrualHour: Date | null = null) {
  const accrual = kind === "accrual";
  const giveaway = kind.startsWith("giveaway_");
  await sql`
    insert into points_ledger (address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units,
                               giveaway_id, tickets, actor, created_at)
    values (${address}, ${kind}, ${amount}, ${accrualHour}, ${accrual ? 1 : null}, ${accrual ? 0 : null}, ${accrual ? 1 : null},
            ${accrual ? amount : null}, ${giveaway ? 1 : null}, ${giveaway ? 1 : null}, 'test', ${T0})`;
}

async function balance(address: string): Promise<number | null> {
  const [row] = await sql<{ units: number }[]>`select units from wallet_balances where address = ${address}`;
  return row ? row.units : null;
}

async function ledgerSum(address: string): Promise<number> {
  const [row] = await sql<{ sum: number }[]>`select coalesce(sum(amount), 0)::bigint as sum from points_ledger where address = ${address}`;
  return row.sum;
}

describe("points ledger", () => {
  it("is append-only: update, delete and truncate are refused, to its owner too", async () => {
    const address = uniqueAddress();
    await ledger(address, "admin_add", 2400);
    const owner = db.owner.sql;
    await refused(owner`update points_ledger set amount = 999999 where address = ${address}`, "P0001", /append-only/);
    await refused(owner`delete from points_ledger where address = ${address}`, "P0001", /append-only/);
    await refused(owner`truncate points_ledger`, "P0001", /append-only/);
    expect(await ledgerSum(address)).toBe(2400);
    expect(await balance(address)).toBe(2400);
  });

  it("keeps balances equal to the ledger sum, for single rows and multi-row statements", async () => {
    const [a, b] = [uniqueAddress(), uniqueAddress()];
    await ledger(a, "admin_add", 24_000);
    await ledger(a, "accrual", 10_000, hour(0));
    await sql`
      insert into points_ledger (address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units,
                                 giveaway_id, tickets, actor, created_at) values
        (${a}, 'accrual', 10000, ${hour(1)}, 1, 0, 1, 10000, null, null, 'test', ${T0}),
        (${b}, 'accrual', 12000, ${hour(1)}, 0, 1, 2, 12000, null, null, 'test', ${T0}),
        (${b}, 'admin_clear', -12000, null, null, null, null, null, null, null, 'test', ${T0}),
        (${a}, 'giveaway_entry', -4800, null, null, null, null, null, 1, 2, 'test', ${T0})`;
    await ledger(b, "admin_add", 1);
    expect(await balance(a)).toBe(24_000 + 10_000 + 10_000 - 4800);
    expect(await balance(b)).toBe(1);
    const mismatches = await sql`
      select b.address from wallet_balances b
      full join (select address, sum(amount) as total from points_ledger group by address) l using (address)
      where b.units is distinct from l.total`;
    expect(mismatches).toEqual([]);
  });

  it("refuses a zero amount and kinds it does not know, and signs each kind", async () => {
    const address = uniqueAddress();
    await refused(ledger(address, "admin_add", 0), "23514");
    await refused(ledger(address, "bonus", 5), "23514");
    await refused(ledger(address, "admin_add", -5), "23514");
    await refused(ledger(address, "giveaway_refund", -5), "23514");
    await refused(ledger(address, "giveaway_entry", 5), "23514");
    await refused(ledger(address, "accrual", -5, hour(0)), "23514");
    await refused(ledger(address, "accrual", 5), "23514"); // accrual needs its hour
    await refused(ledger(address, "admin_add", 5, hour(0)), "23514"); // only accruals have one
    expect(await balance(address)).toBeNull();
  });

  it("refuses a giveaway entry that would take a balance below 0, atomically", async () => {
    const address = uniqueAddress();
    await ledger(address, "admin_add", 1000);
    await refused(ledger(address, "giveaway_entry", -1001), "23514", /insufficient points/);
    // Two entries in one statement that together overspend: neither is kept.
    await refused(
      sql`insert into points_ledger (address, kind, amount, giveaway_id, tickets, actor, created_at) values
            (${address}, 'giveaway_entry', -600, 1, 1, 'test', ${T0}), (${address}, 'giveaway_entry', -600, 1, 1, 'test', ${T0})`,
      "23514",
    );
    // A transaction whose entry fails keeps none of its other rows.
    await refused(
      sql.begin(async (tx) => {
        await tx`insert into points_ledger (address, kind, amount, actor, created_at) values (${address}, 'admin_add', 100, 'test', ${T0})`;
        await tx`insert into points_ledger (address, kind, amount, giveaway_id, tickets, actor, created_at) values (${address}, 'giveaway_entry', -1200, 1, 1, 'test', ${T0})`;
      }),
      "23514",
    );
    expect(await balance(address)).toBe(1000);
    expect(await ledgerSum(address)).toBe(1000);
    // Spending it exactly to zero is fine.
    await ledger(address, "giveaway_entry", -1000);
    expect(await balance(address)).toBe(0);
  });

  it("two concurrent entries can never overspend a balance together", async () => {
    const address = uniqueAddress();
    await ledger(address, "admin_add", 1000);
    const spend = () =>
      sql.begin(async (tx) => {
        await tx`insert into points_ledger (address, kind, amount, giveaway_id, tickets, actor, created_at) values (${address}, 'giveaway_entry', -600, 1, 1, 'test', ${T0})`;
        await tx`select pg_sleep(0.2)`;
      });
    const results = await Promise.allSettled([spend(), spend()]);
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(await balance(address)).toBe(400);
    expect(await ledgerSum(address)).toBe(400);
  });

  it("other kinds may leave a balance negative (a reset brings it back)", async () => {
    const address = uniqueAddress();
    await ledger(address, "admin_clear", -500);
    expect(await balance(address)).toBe(-500);
    await ledger(address, "negative_reset", 500);
    expect(await balance(address)).toBe(0);
  });

  it("an in_basis row is an accrual, and a row's schedule must exist (checked per statement)", async () => {
    const address = uniqueAddress();
    await refused(
      sql`insert into points_ledger (address, kind, amount, actor, created_at, in_basis) values (${address}, 'admin_add', 100, 'test', ${T0}, true)`,
      "23514",
      "points_ledger_in_basis_is_accrual",
    );
    await refused(
      sql`insert into points_ledger (address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units,
                                     boost_version, rarity_percent_sum, boost_percent_sum, actor, created_at)
          values (${address}, 'accrual', 10000, ${hour(9)}, 1, 0, 1, 10000, 2000000000, 100, 100, 'test', ${T0})`,
      "23503",
      /not a boost schedule/,
    );
    expect(await ledgerSum(address)).toBe(0);
  });

  it("credits one accrual row per wallet and hour, on whole hours only", async () => {
    const [a, b] = [uniqueAddress(), uniqueAddress()];
    await ledger(a, "accrual", 10_000, hour(5));
    await refused(ledger(a, "accrual", 10_000, hour(5)), "23505", "points_ledger_one_accrual_per_wallet_hour");
    await ledger(a, "accrual", 10_000, hour(6));
    await ledger(b, "accrual", 10_000, hour(5));
    await refused(ledger(a, "accrual", 10_000, new Date(hour(7).getTime() + 60_000)), "23514");
    expect(await balance(a)).toBe(20_000);
  });
});

describe("stakes", () => {
  it("allow at most one open stake per item", async () => {
    const item = await insertItem();
    const [a, b] = [uniqueAddress(), uniqueAddress()];
    await sql`insert into stakes (item_id, address, started_at) values (${item}, ${a}, ${hour(0)})`;
    await refused(
      sql`insert into stakes (item_id, address, started_at) values (${item}, ${b}, ${hour(1)})`,
      "23505",
      "stakes_one_open_per_item",
    );
    await refused(
      sql`insert into stakes (item_id, address, started_at) values (${item}, ${a}, ${hour(1)})`,
      "23505",
      "stakes_one_open_per_item",
    );
    await sql`update stakes set ended_at = ${hour(2)}, end_reason = 'transferred' where item_id = ${item} and ended_at is null`;
    await sql`insert into stakes (item_id, address, started_at) values (${item}, ${b}, ${hour(2)})`;
    const [row] = await sql<{ count: number }[]>`select count(*)::int as count from stakes where item_id = ${item}`;
    expect(row.count).toBe(2);
  });

  it("need an end reason exactly when ended, a known reason, and an end not before the start", async () => {
    const item = await insertItem();
    const address = uniqueAddress();
    await refused(
      sql`insert into stakes (item_id, address, started_at, ended_at) values (${item}, ${address}, ${hour(0)}, ${hour(1)})`,
      "23514",
    );
    await refused(
      sql`insert into stakes (item_id, address, started_at, end_reason) values (${item}, ${address}, ${hour(0)}, 'unstaked')`,
      "23514",
    );
    await refused(
      sql`insert into stakes (item_id, address, started_at, ended_at, end_reason) values (${item}, ${address}, ${hour(0)}, ${hour(1)}, 'sold')`,
      "23514",
    );
    await refused(
      sql`insert into stakes (item_id, address, started_at, ended_at, end_reason) values (${item}, ${address}, ${hour(1)}, ${hour(0)}, 'unstaked')`,
      "23514",
    );
  });
});

describe("catalogue items", () => {
  it.each([
    [1, "Legendary", "Epic"],
    [44, "Legendary", "Epic"],
    [45, "Epic", "Legendary"],
    [178, "Epic", "Rare"],
    [179, "Rare", "Epic"],
    [444, "Rare", "Common"],
    [445, "Common", "Rare"],
  ])("rank %i must be %s, not %s", async (rank, right, wrong) => {
    const collection = "spook-society";
    const [existing] = await sql`select 1 from items where collection = ${collection} and rank = ${rank}`;
    expect(existing).toBeUndefined();
    await refused(insertItem({ collection, rank, rarity: wrong }), "23514");
    await insertItem({ collection, rank, rarity: right });
  });

  it("inscription ids must be 64 lowercase hex + 'i' + index", async () => {
    const hex = hex64();
    for (const bad of [hex.toUpperCase() + "i0", hex, `${hex.slice(1)}i0`, `${hex}i`, `${hex}i0 `]) {
      await refused(insertItem({ inscriptionId: bad }), "23514");
    }
    await insertItem({ inscriptionId: `${hex}i3` });
    await refused(insertItem({ inscriptionId: `${hex}i3` }), "23505");
  });

  it("rank and number are unique within a collection, names unique, collection known", async () => {
    await insertItem({ collection: "spooks", rank: 50_000, number: 50_000 });
    await refused(insertItem({ collection: "spooks", rank: 50_000 }), "23505");
    await refused(insertItem({ collection: "spooks", number: 50_000, name: "Spooks #50000b" }), "23505");
    await insertItem({ collection: "spook-society", rank: 50_000, number: 50_000 });
    await refused(insertItem({ collection: "spooks", name: "Spooks #50000" }), "23505");
    await refused(insertItem({ collection: "ghosts" }), "23514");
    await refused(insertItem({ rank: 0, rarity: "Legendary" }), "23514");
  });
});

async function insertGiveaway(title = "Giveaway") {
  const [row] = await sql<{ id: number }[]>`
    insert into giveaways (title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, created_at)
    values (${title}, 'd', '/uploads/x.png', 100, ${hour(48)}, ${hex64()}, ${hex64()}, ${T0}) returning id`;
  return row.id;
}

async function insertProposal(fields: { title?: string; start?: Date; end?: Date } = {}) {
  const [row] = await sql<{ id: number }[]>`
    insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at)
    values (${fields.title ?? "Proposal"}, 'd', ${fields.start ?? hour(1)}, ${fields.end ?? hour(2)}, 'yes_no', 'admin', ${T0})
    returning id`;
  return row.id;
}

async function insertOption(proposalId: number, position: number, text: string) {
  const [row] = await sql<{ id: number }[]>`
    insert into proposal_options (proposal_id, position, option_text) values (${proposalId}, ${position}, ${text}) returning id`;
  return row.id;
}

function vote(proposalId: number, optionId: number, address: string) {
  return sql`
    insert into votes (proposal_id, option_id, address, weight, signature, message, voted_at)
    values (${proposalId}, ${optionId}, ${address}, 1, 'sig', 'msg', ${T0})`;
}

describe("giveaways", () => {
  it("entries need at least one ticket", async () => {
    const giveaway = await insertGiveaway();
    const entry = (tickets: number) => sql`
      insert into giveaway_entries (giveaway_id, address, tickets, cost_units, entered_at)
      values (${giveaway}, ${uniqueAddress()}, ${tickets}, 240000, ${T0})`;
    await refused(entry(0), "23514");
    await refused(entry(-1), "23514");
    await entry(1);
  });

  it("a giveaway has at most one winning entry", async () => {
    const giveaway = await insertGiveaway();
    const winner = (address: string) => sql`
      insert into giveaway_entries (giveaway_id, address, tickets, cost_units, entered_at, is_winner)
      values (${giveaway}, ${address}, 1, 240000, ${T0}, true)`;
    await winner(uniqueAddress());
    await refused(winner(uniqueAddress()), "23505", "giveaway_entries_one_winner");
  });

  it("commitment and seed are 64 lowercase hex; the winner and its draw time go together", async () => {
    const insert = (commitment: string, seed: string, winner: string | null, drawnAt: Date | null) => sql`
      insert into giveaways (title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, winner_address, drawn_at, created_at)
      values ('t', 'd', '/uploads/x.png', 1, ${hour(1)}, ${commitment}, ${seed}, ${winner}, ${drawnAt}, ${T0})`;
    await refused(insert(hex64().toUpperCase(), hex64(), null, null), "23514");
    await refused(insert(hex64(), hex64().slice(2), null, null), "23514");
    await refused(insert(hex64(), hex64(), "Dwinner", null), "23514");
    await insert(hex64(), hex64(), "Dwinner", T0);
  });

  it("limit title length to 1..200 characters and need a points cost ≥ 1", async () => {
    await insertGiveaway("g".repeat(200));
    await refused(insertGiveaway("g".repeat(201)), "23514");
    await refused(insertGiveaway(""), "23514");
    await refused(
      sql`insert into giveaways (title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, created_at)
          values ('t', 'd', '/x.png', 0, ${hour(1)}, ${hex64()}, ${hex64()}, ${T0})`,
      "23514",
    );
  });
});

describe("governance", () => {
  it("one vote per wallet per proposal", async () => {
    const proposal = await insertProposal();
    const [yes, no] = [await insertOption(proposal, 0, "Yes"), await insertOption(proposal, 1, "No")];
    const [a, b] = [uniqueAddress(), uniqueAddress()];
    await vote(proposal, yes, a);
    await refused(vote(proposal, no, a), "23505");
    await refused(vote(proposal, yes, a), "23505");
    await vote(proposal, no, b);
    // The same wallet may vote on another proposal.
    const other = await insertProposal();
    await vote(other, await insertOption(other, 0, "Yes"), a);
  });

  it("a vote must name an option of its own proposal", async () => {
    const first = await insertProposal();
    const second = await insertProposal();
    await insertOption(first, 0, "Yes");
    const foreign = await insertOption(second, 0, "Yes");
    await refused(vote(first, foreign, uniqueAddress()), "23503");
    await refused(vote(first, 2_000_000_000, uniqueAddress()), "23503");
  });

  it("votes need a positive weight", async () => {
    const proposal = await insertProposal();
    const option = await insertOption(proposal, 0, "Yes");
    await refused(
      sql`insert into votes (proposal_id, option_id, address, weight, signature, message, voted_at)
          values (${proposal}, ${option}, ${uniqueAddress()}, 0, 's', 'm', ${T0})`,
      "23514",
    );
  });

  it("a proposal ends after it starts", async () => {
    await refused(insertProposal({ start: hour(3), end: hour(3) }), "23514");
    await refused(insertProposal({ start: hour(3), end: hour(2) }), "23514");
    await insertProposal({ start: hour(3), end: new Date(hour(3).getTime() + 1) });
  });

  it("limits title and option text to 1..200 characters, and positions are unique", async () => {
    await insertProposal({ title: "p".repeat(200) });
    await refused(insertProposal({ title: "p".repeat(201) }), "23514");
    await refused(insertProposal({ title: "" }), "23514");
    const proposal = await insertProposal();
    await insertOption(proposal, 0, "o".repeat(200));
    await refused(insertOption(proposal, 1, "o".repeat(201)), "23514");
    await refused(insertOption(proposal, 1, ""), "23514");
    await refused(insertOption(proposal, 0, "Again"), "23505");
  });
});

describe("signatures and sessions", () => {
  it("each signed message is accepted once per address", async () => {
    const address = uniqueAddress();
    const use = () =>
      sql`insert into used_signatures (address, message, signature, action, used_at) values (${address}, 'm', 's', 'stake', ${T0})`;
    await use();
    await refused(use(), "23505");
  });

  it("audit actors are web, cli or system", async () => {
    await sql`insert into audit_log (actor, action, created_at) values ('cli', 'test', ${T0})`;
    await refused(sql`insert into audit_log (actor, action, created_at) values ('robot', 'test', ${T0})`, "23514");
  });
});
