import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYNC_RUN_RETENTION_MS, USED_SIGNATURE_RETENTION_MS } from "../../app/domain/retention.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import type { Database } from "../client.server.ts";
import { pruneExpired } from "./housekeeping.server.ts";

let db: Database;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

// Now: used signatures are pruned by the database's own clock as well (migration 0026), never ahead of it.
const at = new Date();
const ago = (ms: number) => new Date(at.getTime() - ms);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const hash = (n: number) => n.toString(16).padStart(64, "0");

async function seed() {
  const { sql } = db;
  const challenge = (nonce: string, expiresAt: Date, usedAt: Date | null = null) =>
    sql`insert into auth_challenges (nonce, address, message, issued_at, expires_at, used_at)
        values (${nonce}, 'D-holder', 'sign in', ${new Date(expiresAt.getTime() - 5 * MINUTE)}, ${expiresAt}, ${usedAt})`;
  for (const [i, minutes] of [90, 60, 30, 1].entries()) await challenge(`expired-${i}`, ago(minutes * MINUTE));
  await challenge("expires-now", at);
  await challenge("fresh", new Date(at.getTime() + 1));
  await challenge("used-not-expired", new Date(at.getTime() + 5 * MINUTE), ago(MINUTE));

  const session = (n: number, expiresAt: Date, revoked = false) =>
    sql`insert into sessions (token_hash, address, created_at, expires_at, revoked_at)
        values (${hash(n)}, 'D-holder', ${ago(30 * DAY)}, ${expiresAt}, ${revoked ? ago(DAY) : null})`;
  await session(1, ago(10 * DAY));
  await session(2, ago(DAY), true);
  await session(3, at);
  await session(4, new Date(at.getTime() + DAY), true); // revoked: kept until it expires, as findSession ignores it
  await session(5, new Date(at.getTime() + 7 * DAY));

  const used = (message: string, usedAt: Date) =>
    sql`insert into used_signatures (address, message, signature, action, used_at)
        values ('D-holder', ${message}, 'sig', 'stake', ${usedAt})`;
  for (const [i, days] of [30, 2, 1].entries()) await used(`past-${i}`, ago(days * DAY));
  await used("just-past", ago(USED_SIGNATURE_RETENTION_MS + 1));
  await used("at-the-edge", ago(USED_SIGNATURE_RETENTION_MS));
  await used("recent", ago(MINUTE));

  const run = (name: string, finishedAt: Date, state = "ok") =>
    sql`insert into sync_runs (source, started_at, finished_at, state, reason, items_checked, owners_changed, stakes_ended, errors)
        values ('scheduled', ${finishedAt}, ${finishedAt}, ${state}, ${state === "ok" ? null : name}, 0, 0, 0, 0)`;
  await run("old applied", ago(40 * DAY));
  await run("old held back", ago(40 * DAY), "unavailable");
  await run("old applied 2", ago(SYNC_RUN_RETENTION_MS + 1));
  await run("last applied, old", ago(SYNC_RUN_RETENTION_MS + DAY));
  await run("held back since, old", ago(SYNC_RUN_RETENTION_MS + DAY), "rewinding");
  await run("held back since, recent", ago(MINUTE), "stalled");
}

describe("pruneExpired", () => {
  it("removes exactly what is expired or past its retention, in batches, and nothing else", async () => {
    await seed();
    const pruned = await pruneExpired(db.sql, at, 2);
    // 5 expired challenges: batches of 2, 2, 1; 4 sessions: 2, 2, 0; 4 signatures: 2, 2, 0; 3 runs: 2, 1.
    expect(pruned).toEqual({ challenges: 5, sessions: 3, usedSignatures: 4, syncRuns: 3, rateLimitHits: 0, batches: 3 + 2 + 3 + 2 + 1 });

    const left = async (query: Promise<{ key: string }[]>) => (await query).map((row) => row.key).sort();
    expect(await left(db.sql`select nonce as key from auth_challenges`)).toEqual(["fresh", "used-not-expired"]);
    expect(await left(db.sql`select token_hash as key from sessions`)).toEqual([hash(4), hash(5)]);
    expect(await left(db.sql`select message as key from used_signatures`)).toEqual(["at-the-edge", "recent"]);
    expect(
      await db.sql`select state, coalesce(reason, 'applied') as reason from sync_runs order by id`.then((rows) =>
        rows.map((row) => row.reason),
      ),
    ).toEqual(["applied", "held back since, old", "held back since, recent"]);

    expect(await pruneExpired(db.sql, at, 2)).toEqual({
      challenges: 0,
      sessions: 0,
      usedSignatures: 0,
      syncRuns: 0,
      rateLimitHits: 0,
      batches: 5,
    });
  });
});
