/**
 * The runtime role's preparation runs its statements once per data folder (an in-memory PGlite): a later start
 * only reads the mark they left, and a folder without the mark (older, or its mark changed) is prepared again.
 */
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { prepareRuntimeRole } from "./embedded-runtime.server.ts";
import { RUNTIME_ROLE } from "./roles.server.ts";
import { freshPGlite } from "./testing/fresh-pglite.ts";

let db: PGlite;
beforeAll(async () => {
  db = await freshPGlite();
});
afterAll(async () => {
  await db.close();
});

describe("prepareRuntimeRole", () => {
  it("prepares a folder once, and again only where the mark is missing", async () => {
    const exec = vi.spyOn(db, "exec");
    await prepareRuntimeRole(db);
    expect(exec).toHaveBeenCalledTimes(1);
    const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from pg_roles where rolname = '${RUNTIME_ROLE}'`);
    expect(rows).toEqual([{ n: 1 }]);

    await prepareRuntimeRole(db);
    expect(exec).toHaveBeenCalledTimes(1);

    await db.query("comment on schema spooks_embedded is null");
    await prepareRuntimeRole(db);
    expect(exec).toHaveBeenCalledTimes(2);
    const temporary = await db.query<{ allowed: boolean }>(
      `select has_database_privilege('${RUNTIME_ROLE}', current_database(), 'temporary') as allowed`,
    );
    expect(temporary.rows).toEqual([{ allowed: false }]);
  });
});
