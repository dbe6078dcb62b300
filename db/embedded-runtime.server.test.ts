/**
 * The embedded runtime login's statement check (no database): what the app sends passes, every way back to
 * the superuser is refused, and text it cannot split exactly as PostgreSQL does is refused whole. The same
 * refusals against a real backend, on both engines: db/least-privilege.test.ts.
 */
import { describe, expect, it } from "vitest";
import { guardRuntimeMessage, runtimeRefusal, splitStatements } from "./embedded-runtime.server.ts";

describe("runtimeRefusal", () => {
  it.each([
    "select 1",
    "  (select 1) union (select 2)",
    "insert into points_ledger (address) values ($1) returning id",
    "update balances set units = units + $1 where address = $2",
    "delete from sessions where expires_at < now()",
    "with moved as (delete from x returning *) insert into y select * from moved",
    "begin isolation level serializable",
    "commit",
    "rollback to savepoint a",
    "set local synchronous_commit = off",
    "set local jit = off",
    "SET statement_timeout TO 5000",
    "set transaction isolation level repeatable read",
    "lock table balances in share row exclusive mode",
    "select 'reset role; drop table x' as text, \"odd;name\" from t -- ; reset role",
    "select /* nested /* ; reset role */ still */ 1",
    "select b'101', x'ff', n'text'",
    "select a$b from t",
    "",
  ])("lets the app's %j through", (text) => {
    expect(runtimeRefusal(text)).toBeNull();
  });

  it.each([
    ["reset role", "RESET"],
    ["set role postgres", "SET role"],
    ["set session authorization postgres", "SET authorization"],
    ["SET LOCAL ROLE postgres", "SET ROLE"],
    [`set "role" = 'postgres'`, `SET "role"`],
    ["set session_replication_role = replica", "SET session_replication_role"],
    ["discard all", "DISCARD"],
    ["do $$ begin execute 'reset role'; end $$", "SQL with dollar quoting"],
    ["create or replace function f() returns int language sql as 'select 1'", "CREATE"],
    ["alter table points_ledger disable trigger all", "ALTER"],
    ["drop table audit_log", "DROP"],
    ["truncate points_ledger", "TRUNCATE"],
    ["copy points_ledger to program 'sh'", "COPY"],
    ["select 1; reset role", "RESET"],
    ["select 1;reset role", "RESET"],
    ["/**/reset role", "RESET"],
    ["select 'a'';'; reset role", "RESET"],
    [`select 1 as "x"";"; reset role`, "RESET"],
    ["select E'\\'; reset role; --'", "SQL with an escape string (E'…')"],
    ["select U&'\\0041'", "SQL with a Unicode escape (U&…)"],
    ["select 'unterminated", "SQL with an unterminated quote"],
    ["select 1 /* unterminated", "SQL with an unterminated comment"],
    ["select $tag$;$tag$; reset role", "SQL with dollar quoting"],
    ["select 1$$; reset role; $$", "SQL with dollar quoting"],
    ['"select" 1', '"SELECT"'],
  ])("refuses %j (%s)", (text, what) => {
    expect(runtimeRefusal(text)).toBe(what);
  });

  it("splits on semicolons outside quotes and comments only", () => {
    const statements = splitStatements("select ';'; -- ;\n select \"a;b\" /* ; */ ; ; update t set x = 1");
    expect(typeof statements === "string" ? statements : statements.map((tokens) => tokens[0].word)).toEqual([
      "select",
      "select",
      "update",
    ]);
  });
});

describe("guardRuntimeMessage", () => {
  const query = (text: string) => {
    const body = Buffer.from(`${text}\0`);
    const head = Buffer.alloc(5);
    head.write("Q");
    head.writeInt32BE(body.length + 4, 1);
    return new Uint8Array(Buffer.concat([head, body]));
  };
  const parse = (name: string, text: string) => {
    const body = Buffer.concat([Buffer.from(`${name}\0${text}\0`), Buffer.from([0, 1, 0, 0, 0, 25])]);
    const head = Buffer.alloc(5);
    head.write("P");
    head.writeInt32BE(body.length + 4, 1);
    return new Uint8Array(Buffer.concat([head, body]));
  };
  const text = (message: Uint8Array) => Buffer.from(message).toString("utf8", 5);

  it("passes an allowed message as it is", () => {
    const message = parse("s1", "select $1::text");
    expect(guardRuntimeMessage(message)).toBe(message);
  });

  it("replaces a refused Query or Parse by the same kind of message that raises the refusal, keeping the statement name", () => {
    const refusedQuery = guardRuntimeMessage(query("reset role"));
    expect(String.fromCharCode(refusedQuery[0])).toBe("Q");
    expect(text(refusedQuery)).toMatch(
      /^select spooks_embedded\.refuse\('the embedded database refuses RESET to the app''s role \(spooks_runtime\)'\)\0$/,
    );
    const refusedParse = guardRuntimeMessage(parse("s2", "drop table points_ledger"));
    expect(String.fromCharCode(refusedParse[0])).toBe("P");
    expect(Buffer.from(refusedParse).readInt32BE(1)).toBe(refusedParse.length - 1);
    expect(text(refusedParse)).toMatch(/^s2\0select spooks_embedded\.refuse\('.*DROP.*'\)\0\0\0$/);
  });

  it("refuses a function call message", () => {
    const call = new Uint8Array([0x46, 0, 0, 0, 4]);
    expect(text(guardRuntimeMessage(call))).toMatch(/refuses function calls/);
  });

  it("refuses a Query without its NUL terminator, or with anything after it, itself (issue 32, item 11)", () => {
    const raw = (body: Buffer) => {
      const head = Buffer.alloc(5);
      head.write("Q");
      head.writeInt32BE(body.length + 4, 1);
      return new Uint8Array(Buffer.concat([head, body]));
    };
    for (const body of [
      Buffer.from("select 1"), // no terminator: PGlite would read past the message
      Buffer.from("select 1\0reset role\0"), // a second string after the first
      Buffer.from("select 1\0\0"),
      Buffer.alloc(0),
    ]) {
      const guarded = guardRuntimeMessage(raw(body));
      expect(String.fromCharCode(guarded[0]), JSON.stringify(body.toString())).toBe("Q");
      expect(text(guarded), JSON.stringify(body.toString())).toMatch(/^select spooks_embedded\.refuse\('.*a malformed Query.*'\)\0$/);
    }
  });

  it("refuses a Parse whose statement name or query lacks its terminator", () => {
    const raw = (body: Buffer) => {
      const head = Buffer.alloc(5);
      head.write("P");
      head.writeInt32BE(body.length + 4, 1);
      return new Uint8Array(Buffer.concat([head, body]));
    };
    for (const body of [Buffer.from("s1"), Buffer.from("s1\0select 1"), Buffer.from("\0reset role")]) {
      expect(text(guardRuntimeMessage(raw(body))), JSON.stringify(body.toString())).toMatch(/a malformed Parse/);
    }
  });
});
