/**
 * The two database roles (docs/decisions.md "Database roles"): the owner, which migrations run as
 * (MIGRATE_DATABASE_URL, else DATABASE_URL), and the runtime role the web server, indexer and CLI run as
 * (DATABASE_URL), which owns nothing and holds the rows' privileges through the group role RUNTIME_ROLE
 * (created and granted by migration 0016).
 */
import type { Database, Queryable } from "./client.server.ts";

export const RUNTIME_ROLE = "spooks_runtime";

/** What the role a connection acts as may do beyond the runtime role's grants. */
export type RolePowers = { role: string; superuser: boolean; ownsSchema: boolean };

/** `ownsSchema`: it owns (or inherits the owner of) the public schema or any table in it, so it can alter them. */
export async function rolePowers(sql: Queryable): Promise<RolePowers> {
  const [row] = await sql<RolePowers[]>`
    select current_user as role,
      (select rolsuper from pg_roles where rolname = current_user) as superuser,
      exists (
        select from pg_namespace n where n.nspname = 'public' and pg_has_role(current_user, n.nspowner, 'usage')
      ) or exists (
        select from pg_class c where c.relnamespace = 'public'::regnamespace and pg_has_role(current_user, c.relowner, 'usage')
      ) as owns_schema`;
  return row;
}

/**
 * The start-up warning when the app's own connection can change the schema (a superuser, or the owner:
 * MIGRATE_DATABASE_URL unset and DATABASE_URL the owner), or null when it holds the runtime grants only.
 */
export function powersWarning(powers: RolePowers, migrateDatabaseUrlSet: boolean): string | null {
  if (!powers.superuser && !powers.ownsSchema) return null;
  const what = powers.superuser ? "a superuser" : "the owner of the schema";
  const advice = migrateDatabaseUrlSet
    ? "point DATABASE_URL at a role that owns nothing"
    : "set MIGRATE_DATABASE_URL to the owner and DATABASE_URL to a role that owns nothing";
  return (
    `DATABASE_URL's role ${powers.role} is ${what}: the app could disable the append-only triggers or drop tables; ` +
    `${advice} (docs/operations.md, "Database roles")`
  );
}

/**
 * Makes `user` (DATABASE_URL's role) a member of RUNTIME_ROLE, as the migrating role. Nothing to do when it
 * already is (a superuser counts as one). A migrator that may not grant it is told what to run instead.
 */
export async function grantRuntimeRole(migrator: Queryable, user: string): Promise<void> {
  const [{ member }] = await migrator<{ member: boolean }[]>`select pg_has_role(${user}, ${RUNTIME_ROLE}, 'member') as member`;
  if (member) return;
  try {
    await migrator`grant ${migrator(RUNTIME_ROLE)} to ${migrator(user)}`;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "23505" || code === "42710") return; // granted meanwhile by another process
    if (code !== "42501") throw error;
    throw new Error(
      `the migrating role may not make ${user} a member of ${RUNTIME_ROLE}; as its admin run: GRANT ${RUNTIME_ROLE} TO "${user}"`,
      { cause: error },
    );
  }
}

/** The start-up check of web and indexer: the warning to log, if the app's connection has more than it needs. */
export async function appRoleWarning(db: Database, migrateDatabaseUrlSet: boolean): Promise<string | null> {
  return powersWarning(await rolePowers(db.sql), migrateDatabaseUrlSet || db.migratorUrl !== undefined);
}
