/**
 * The probes (app/api/system.ts): /api/live answers while the process does, whatever the database; /api/ready
 * only while the database answers and every migration this code knows is applied; /api/health judges the
 * indexer by its last APPLIED pass (INDEXER_STALE_AFTER_S), not by held-back ones.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSql, type Sql } from "../../db/client.server.ts";
import { readMigrations } from "../../db/migrate.server.ts";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { createTestDatabase } from "../support/test-database.ts";
import { useApi } from "./support.ts";

const ctx = useApi();

describe("liveness and readiness", () => {
  it("live and ready answer 200 while everything is up", async () => {
    expect(await ctx.call("GET", "/api/live")).toMatchObject({ status: 200, body: { ok: true } });
    const ready = await ctx.call("GET", "/api/ready");
    expect(ready).toMatchObject({ status: 200, body: { ok: true } });
    expect(ready.headers.get("cache-control")).toBe("no-store");
  });

  it("ready is 503 while a migration this code knows is not applied, and 200 again once it is", async () => {
    const last = readMigrations().at(-1)!.version;
    const [row] = await ctx.ownerSql<{ appliedAt: Date }[]>`delete from schema_migrations where version = ${last} returning applied_at`;
    try {
      const ready = await ctx.call("GET", "/api/ready");
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ ok: false, message: `Migrations not applied yet: ${last}` });
      expect(ready.headers.get("retry-after")).toBe("5");
    } finally {
      await ctx.ownerSql`insert into schema_migrations (version, applied_at) values (${last}, ${row.appliedAt})`;
    }
    // A migration the database has beyond this code's (a newer release's, mid-upgrade) does not count.
    await ctx.ownerSql`insert into schema_migrations (version, applied_at) values ('9999_from_a_newer_release', now())`;
    expect((await ctx.call("GET", "/api/ready")).status).toBe(200);
  });

  describe("with the database gone", () => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let sql: Sql;
    let server: TestServer;
    beforeAll(async () => {
      db = await createTestDatabase();
      sql = createSql(db.url, { max: 1 });
      server = await startTestServer({ sql, adminAddress: ctx.admin.address });
      await sql.end();
    });
    afterAll(async () => {
      await server?.close();
      await db?.close();
    });

    it("live stays 200; ready is 503 saying so", async () => {
      const live = await fetch(`${server.url}/api/live`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ ok: true });
      const ready = await fetch(`${server.url}/api/ready`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get("retry-after")).toBe("5");
      expect(await ready.json()).toEqual({ ok: false, message: "The database is unreachable" });
    });
  });
});

describe("the indexer's health in /api/health", () => {
  it("is unhealthy while no pass has been applied within INDEXER_STALE_AFTER_S, whatever held-back passes come", async () => {
    await ctx.sql`delete from sync_runs`;
    const none = await ctx.call("GET", "/api/health");
    expect(none.body.indexer).toMatchObject({ healthy: false, problem: "no ownership pass has been applied yet (limit 600 s)" });

    await ctx.sql`
      insert into sync_runs (source, started_at, finished_at, items_checked, owners_changed, stakes_ended, errors)
      values ('scheduled', now() - interval '20 minutes', now() - interval '20 minutes', 0, 0, 0, 0)`;
    await ctx.sql`
      insert into sync_runs (source, started_at, finished_at, items_checked, owners_changed, stakes_ended, errors, state, reason)
      values ('scheduled', now(), now(), 0, 0, 0, 0, 'stalled', 'the ord server reports an unrecoverable reorg and has stopped indexing')`;
    const stalled = await ctx.call("GET", "/api/health");
    expect(stalled.status).toBe(200);
    expect(stalled.body.indexer.healthy).toBe(false);
    expect(stalled.body.indexer.problem).toMatch(
      /^no ownership pass applied for 1[23]\d\d s \(limit 600 s\); 1 held back in a row, the last stalled: the ord server reports an unrecoverable reorg and has stopped indexing$/,
    );

    await ctx.sql`
      insert into sync_runs (source, started_at, finished_at, items_checked, owners_changed, stakes_ended, errors)
      values ('scheduled', now(), now(), 0, 0, 0, 0)`;
    expect((await ctx.call("GET", "/api/health")).body.indexer).toMatchObject({ healthy: true, problem: null });
  });
});
