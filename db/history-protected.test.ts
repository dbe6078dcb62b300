/**
 * History the app's own role cannot rewrite (issue 32, items 9, 10 and 11; migration 0026), as that role (the
 * harness's `sql`: on PostgreSQL a member of spooks_runtime, on PGlite the embedded socket's runtime login), on
 * either engine:
 * - a giveaway's id is never used again once deleted, and every deletion needs its own `giveaway.delete` audit
 *   row written in the same transaction;
 * - votes and used signatures are never deleted or truncated; a vote changes only in `superseded_by`, from null
 *   to a newer vote of the same wallet on the same proposal; a vote's signed time is at most a minute after it
 *   was recorded;
 * - housekeeping still prunes used signatures, but only those no message could be replayed with.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../tests/support/test-database.ts";
import { testAddress } from "../indexer/test-support.ts";
import type { Sql } from "./client.server.ts";
import { closeEntries, recordDraw } from "./queries/draws.server.ts";
import { createGiveaway, deleteGiveaway, enterGiveaway } from "./queries/giveaways.server.ts";
import { pruneExpired } from "./queries/housekeeping.server.ts";
import { addPoints } from "./queries/points.server.ts";

let db: TestDatabase;
let sql: Sql;
const SYSTEM = { kind: "system" } as const;
let run = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db?.close();
});

/** The SQLSTATE the database answers, or "accepted". */
async function outcome(query: PromiseLike<unknown>): Promise<string> {
  return Promise.resolve(query).then(
    () => "accepted",
    (error: { code?: string }) => error.code ?? "no code",
  );
}

async function drawnGiveaway(): Promise<number> {
  run += 1;
  const giveaway = await createGiveaway(
    sql,
    {
      title: `Kept ${run}`,
      description: "d",
      imageUrl: "/uploads/x.png",
      pointsCost: 1,
      endDate: new Date(Date.now() + 86_400_000),
      winners: 1,
    },
    SYSTEM,
  );
  const address = testAddress(`kept-${run}`);
  await addPoints(sql, { address, points: 10, actor: SYSTEM });
  await enterGiveaway(sql, { giveawayId: giveaway.id, address, tickets: 2 });
  await closeEntries(sql, giveaway.id, 5_000_000, SYSTEM, "winners selected");
  await recordDraw(sql, giveaway.id, randomBytes(32).toString("hex"), SYSTEM);
  return giveaway.id;
}

const auditDelete = (tx: Sql, id: number) =>
  tx`insert into audit_log (actor, action, target, details, created_at) values ('system', 'giveaway.delete', ${`giveaway:${id}`}, '{}', now())`;

/** A copy of giveaway `from` (every column) under the id `id`. */
const copyUnderId = (from: number, id: number) =>
  sql`insert into giveaways select (jsonb_populate_record(null::giveaways, to_jsonb(g) || jsonb_build_object('id', ${id}::int))).*
      from giveaways g where g.id = ${from}`;

describe("giveaway deletions (item 9)", () => {
  it("an id once deleted is never used again: not by an insert, not by moving another giveaway onto it", async () => {
    const id = await drawnGiveaway();
    // What the review did: its own audit row, then the delete, in one transaction (allowed: that is a deletion with its trace).
    await sql.begin(async (tx) => {
      await auditDelete(tx as unknown as Sql, id);
      await tx`delete from giveaways where id = ${id}`;
    });
    const other = await drawnGiveaway();
    expect(await outcome(copyUnderId(other, id))).toBe("23514");
    expect(await outcome(sql`update giveaways set id = ${id} where id = ${other}`)).toBe("23514");
    expect(await sql`select id from giveaways where id = ${id}`).toEqual([]);
    // The record of deleted ids is the database's own: the app's role cannot write or erase it.
    for (const statement of [
      `delete from giveaway_deletions where giveaway_id = ${id}`,
      `truncate giveaway_deletions`,
      `update giveaway_deletions set giveaway_id = 0`,
      `insert into giveaway_deletions (giveaway_id, audit_id) values (999999, 1)`,
    ]) {
      expect(await outcome(sql.unsafe(statement)), statement).toBe("42501");
    }
  });

  it("each deletion needs its own giveaway.delete row from its own transaction: an earlier row does not do", async () => {
    const id = await drawnGiveaway();
    await auditDelete(sql, id);
    expect(await outcome(sql`delete from giveaways where id = ${id}`)).toBe("23514");
    // Open giveaways too: every deletion leaves its trace.
    const open = await createGiveaway(
      sql,
      { title: "Open", description: "d", imageUrl: "/uploads/x.png", pointsCost: 1, endDate: new Date(Date.now() + 86_400_000) },
      SYSTEM,
    );
    expect(await outcome(sql`delete from giveaways where id = ${open.id}`)).toBe("23514");
    // One row, one deletion: two giveaways deleted in one transaction need two rows.
    const second = await drawnGiveaway();
    expect(
      await outcome(
        sql.begin(async (tx) => {
          await auditDelete(tx as unknown as Sql, id);
          await tx`delete from giveaways where id = any(${[id, second]}::int[])`;
        }),
      ),
    ).toBe("23514");
    expect((await sql`select id from giveaways where id = any(${[id, open.id, second]}::int[]) order by id`).length).toBe(3);
  });

  it("the product's own deletion still works, and records which audit row it came with", async () => {
    const id = await drawnGiveaway();
    await deleteGiveaway(sql, id, SYSTEM);
    const [deletion] = await sql<{ giveawayId: number; action: string; target: string }[]>`
      select d.giveaway_id, a.action, a.target from giveaway_deletions d join audit_log a on a.id = d.audit_id where d.giveaway_id = ${id}`;
    expect(deletion).toEqual({ giveawayId: id, action: "giveaway.delete", target: `giveaway:${id}` });
  });
});

type VoteRow = { id: number };

async function proposalWithVotes(address: string) {
  run += 1;
  const [{ id: proposalId }] = await sql<{ id: number }[]>`
    insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at, allow_vote_change)
    values (${`Votes ${run}`}, 'd', now() - interval '1 day', now() + interval '1 day', 'yes_no', 'test', now() - interval '2 days', true)
    returning id`;
  const options = await sql<{ id: number }[]>`
    insert into proposal_options (proposal_id, position, option_text) values (${proposalId}, 0, 'Yes'), (${proposalId}, 1, 'No') returning id`;
  const vote = async (optionIndex: number, signedAt: Date, superseded: number | null = null) => {
    const [row] = await sql<VoteRow[]>`
      insert into votes (proposal_id, option_id, address, weight, signature, message, voted_at, signed_at, superseded_by)
      values (${proposalId}, ${options[optionIndex].id}, ${address}, 1, ${randomBytes(8).toString("hex")}, 'm', now(), ${signedAt}, ${superseded})
      returning id`;
    return row.id;
  };
  /** What castVote does for a later vote: the one it replaces names it first, then it is written (the key is checked at commit). */
  const replace = async (replaced: number, optionIndex: number, signedAt: Date) => {
    const [{ id }] = await sql<{ id: number }[]>`select nextval(pg_get_serial_sequence('votes', 'id'))::int as id`;
    await sql.begin(async (tx) => {
      await tx`update votes set superseded_by = ${id} where id = ${replaced}`;
      await tx`
        insert into votes (id, proposal_id, option_id, address, weight, signature, message, voted_at, signed_at)
        values (${id}, ${proposalId}, ${options[optionIndex].id}, ${address}, 1, ${randomBytes(8).toString("hex")}, 'm', now(), ${signedAt})`;
    });
    return id;
  };
  return { proposalId, options, vote, replace };
}

describe("votes and used signatures (items 10 and 11)", () => {
  it("are never deleted or truncated by the app's role, and a vote's own fields never change", async () => {
    const address = testAddress("voter-a");
    const { vote, options } = await proposalWithVotes(address);
    const id = await vote(0, new Date(Date.now() - 60_000));
    await sql`insert into used_signatures (address, message, signature, action, used_at) values (${address}, 'kept', 'sig', 'vote', now())`;
    for (const statement of [
      `delete from votes where id = ${id}`,
      `truncate votes`,
      `truncate votes cascade`,
      `update votes set option_id = ${options[1].id} where id = ${id}`,
      `update votes set weight = 1000 where id = ${id}`,
      `update votes set signed_at = now() + interval '1 year' where id = ${id}`,
      `update votes set address = 'DSomeoneElse' where id = ${id}`,
      `delete from used_signatures`,
      `truncate used_signatures`,
      `update used_signatures set used_at = now() - interval '1 year'`,
    ]) {
      expect(await outcome(sql.unsafe(statement)), statement).toBe("42501");
    }
    expect(await sql`select id from votes where id = ${id}`).toEqual([{ id }]);
    expect((await sql`select 1 from used_signatures where message = 'kept'`).length).toBe(1);
  });

  it("superseded_by goes only from null to a newer vote of the same wallet on the same proposal", async () => {
    const address = testAddress("voter-b");
    const { vote, replace } = await proposalWithVotes(address);
    const older = await vote(0, new Date(Date.now() - 120_000));
    const stranger = await (await proposalWithVotes(testAddress("voter-c"))).vote(0, new Date());
    const elsewhere = await (await proposalWithVotes(address)).vote(0, new Date());
    // Pointing a vote at another wallet's vote, at the same wallet's vote on another proposal, at itself: refused.
    for (const target of [stranger, elsewhere, older]) {
      expect(await outcome(sql`update votes set superseded_by = ${target} where id = ${older}`), `→ ${target}`).not.toBe("accepted");
    }
    // The product's change: the vote replaced names the newer one, written after it in the same transaction.
    const newer = await replace(older, 1, new Date(Date.now() - 60_000));
    // A newer vote never points at an older one; a replaced vote never comes back, nor moves to another.
    expect(await outcome(sql`update votes set superseded_by = ${older} where id = ${newer}`)).toBe("23514");
    expect(await outcome(sql`update votes set superseded_by = null where id = ${older}`)).toBe("23514");
    const newest = await replace(newer, 0, new Date());
    expect(await outcome(sql`update votes set superseded_by = ${newest} where id = ${older}`)).toBe("23514");
    // A vote written already replaced (arriving late) names a newer one too.
    expect(await outcome(vote(0, new Date(Date.now() - 30_000), older))).toBe("23514");
    expect(await outcome(vote(0, new Date(Date.now() - 30_000), newest))).toBe("accepted");
    const current = await sql<
      { id: number }[]
    >`select id from votes where address = ${address} and superseded_by is null and id <> ${elsewhere}`;
    expect(current).toEqual([{ id: newest }]);
  });

  it("a vote's signed time is at most a minute after it was recorded", async () => {
    const { vote } = await proposalWithVotes(testAddress("voter-d"));
    expect(await outcome(vote(0, new Date(Date.now() + 5 * 60_000)))).toBe("23514");
    expect(await outcome(vote(0, new Date(Date.now() + 30_000)))).toBe("accepted");
  });

  it("a proposal still goes with its votes; housekeeping still prunes used signatures no message can be replayed with", async () => {
    const address = testAddress("voter-e");
    const { proposalId, vote } = await proposalWithVotes(address);
    await vote(0, new Date());
    await sql`delete from proposals where id = ${proposalId}`;
    expect(await sql`select 1 from votes where proposal_id = ${proposalId}`).toEqual([]);

    await sql`
      insert into used_signatures (address, message, signature, action, used_at)
      values (${address}, 'old', 's', 'stake', now() - interval '2 hours'), (${address}, 'fresh', 's', 'stake', now() - interval '5 minutes')`;
    // Even told that "now" is far ahead, the database keeps what could still be replayed.
    const pruned = await pruneExpired(sql, new Date(Date.now() + 365 * 86_400_000));
    expect(pruned.usedSignatures).toBeGreaterThanOrEqual(1);
    const left = await sql<{ message: string }[]>`select message from used_signatures where address = ${address} order by message`;
    expect(left.map((row) => row.message)).toEqual(["fresh"]);
  });
});
