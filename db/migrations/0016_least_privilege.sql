-- Least privilege (issue 23; docs/decisions.md "Database roles"). Migrations run as the owner role; the web
-- server, indexer and CLI run as a role that owns nothing and holds only what the group role spooks_runtime
-- is granted here: rows, never the schema. The migration runner makes DATABASE_URL's role a member of it
-- (db/roles.server.ts); the embedded database acts as it on every connection but the migrator's.

-- Roles are cluster-wide, and several databases of one cluster may run this at once (the tests do): the
-- loser of a race sees the winner's role, as a duplicate or as a unique violation of pg_authid.
do $$
begin
  if not exists (select from pg_roles where rolname = 'spooks_runtime') then
    begin
      create role spooks_runtime nologin;
    exception
      when duplicate_object or unique_violation then null;
      when insufficient_privilege then
        raise exception 'the migrating role % may not create roles', current_user
          using hint = 'as a role with CREATEROLE, run: CREATE ROLE spooks_runtime NOLOGIN; then migrate again (docs/operations.md)';
    end;
  end if;
end $$;

-- The schema: usable, never changed (a PostgreSQL before 15 lets every role create in public). No temporary
-- tables either: one named like an app table would shadow it for the rest of that session. (A migrator that
-- owns neither the schema nor the database gets a warning here, not an error: docs/operations.md.)
revoke create on schema public from public;
grant usage on schema public to spooks_runtime;
do $$ begin
  execute format('revoke temporary on database %I from public', current_database());
end $$;

-- Rows: read and write every table, now and in every later migration run by this owner ...
grant select, insert, update, delete on all tables in schema public to spooks_runtime;
grant usage, select on all sequences in schema public to spooks_runtime;
alter default privileges in schema public grant select, insert, update, delete on tables to spooks_runtime;
alter default privileges in schema public grant usage, select on sequences to spooks_runtime;

-- ... but what is history stays history: the append-only tables take new rows only (their triggers refuse
-- the rest for any role; without UPDATE, DELETE and TRUNCATE the runtime role is refused before them), and
-- which migrations were applied is the owner's to write.
revoke update, delete, truncate on points_ledger, audit_log from spooks_runtime;
revoke insert, update, delete, truncate on schema_migrations from spooks_runtime;
