/**
 * The runtime role in the embedded database (docs/decisions.md "Database roles"). PGlite runs one backend
 * whose session user is always its superuser (its `username` option only runs `SET ROLE`), so the socket
 * server (./pglite-socket.server.ts) makes a runtime login act as RUNTIME_ROLE with `SET ROLE` before each
 * of its turns. PostgreSQL lets a superuser session undo that (`RESET ROLE`, `SET SESSION AUTHORIZATION`,
 * `set_config('role', …)`, `DISCARD ALL`), so what a runtime login sends is checked first:
 * - a statement must begin with a word the app uses for rows and transactions (ALLOWED); `SET` only for a
 *   few harmless settings (SETTABLE); anything else (SET ROLE, RESET, DISCARD, DO, CREATE, ALTER, COPY…)
 *   is answered with an error by the backend itself, in place of the statement (`refusalMessage`), so the
 *   transaction and protocol state are exactly PostgreSQL's after an error;
 * - text this reader does not split exactly as PostgreSQL does (escape strings `E'…'`, Unicode escapes
 *   `U&'…'`, dollar quoting, an unterminated quote or comment) is refused whole, so a statement can never
 *   hide inside what it took for a string or a comment;
 * - a function call message is refused; `set_config` and writing `pg_settings` (a SELECT can change the role
 *   through them) and temporary objects are revoked from the runtime role (`prepareRuntimeRole`).
 */
import type { PGlite } from "@electric-sql/pglite";
import { RUNTIME_ROLE } from "./roles.server.ts";
import { cString, wireMessage } from "./wire.server.ts";

const ALLOWED = new Set([
  "select",
  "insert",
  "update",
  "delete",
  "merge",
  "with",
  "values",
  "table",
  "lock",
  "show",
  "begin",
  "start",
  "commit",
  "end",
  "rollback",
  "abort",
  "savepoint",
  "release",
]);

/** `SET [LOCAL | SESSION] name …` is allowed for these (the app sets `local synchronous_commit` and `local jit`). */
const SETTABLE = new Set(["synchronous_commit", "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "jit"]);

type Token = { word?: string; text: string };

const isSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v";
const isIdentStart = (c: string) => /[A-Za-z_]/.test(c) || c.charCodeAt(0) >= 0x80;
const isIdentPart = (c: string) => isIdentStart(c) || /[0-9$]/.test(c);

/** Skips a quoted run starting at `start` (a `'` or `"`, doubled inside); the index after it, or -1. */
function endOfQuoted(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] !== quote) continue;
    if (text[i + 1] === quote) i++;
    else return i + 1;
  }
  return -1;
}

/** Skips a (nested) block comment starting at `start`; the index after it, or -1. */
function endOfBlockComment(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length - 1; i++) {
    if (text[i] === "/" && text[i + 1] === "*") {
      depth++;
      i++;
    } else if (text[i] === "*" && text[i + 1] === "/") {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** The statements of `text` as tokens (words lower-cased), or why the text is refused. */
export function splitStatements(text: string): Token[][] | string {
  const statements: Token[][] = [[]];
  const push = (token: Token) => statements[statements.length - 1].push(token);
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1] ?? "";
    if (isSpace(c)) {
      i++;
    } else if (c === "-" && next === "-") {
      const end = text.slice(i).search(/[\n\r]/);
      i = end < 0 ? text.length : i + end + 1;
    } else if (c === "/" && next === "*") {
      i = endOfBlockComment(text, i);
      if (i < 0) return "an unterminated comment";
    } else if (c === "'" || c === '"') {
      const end = endOfQuoted(text, i);
      if (end < 0) return "an unterminated quote";
      push({ word: c === '"' ? text.slice(i + 1, end - 1).replaceAll('""', '"') : undefined, text: text.slice(i, end) });
      i = end;
    } else if (c === ";") {
      statements.push([]);
      i++;
    } else if (c === "$") {
      if (!/[0-9]/.test(next)) return "dollar quoting";
      let end = i + 1;
      while (/[0-9]/.test(text[end] ?? "")) end++;
      push({ text: text.slice(i, end) });
      i = end;
    } else if (isIdentStart(c)) {
      if ((c === "e" || c === "E") && next === "'") return "an escape string (E'…')";
      if ((c === "u" || c === "U") && next === "&") return "a Unicode escape (U&…)";
      let end = i + 1;
      while (end < text.length && isIdentPart(text[end])) end++;
      const word = text.slice(i, end);
      push({ word: word.toLowerCase(), text: word });
      i = end;
    } else if (/[0-9.]/.test(c)) {
      let end = i + 1;
      while (end < text.length && /[0-9A-Za-z_.]/.test(text[end])) end++;
      push({ text: text.slice(i, end) });
      i = end;
    } else {
      push({ text: c });
      i++;
    }
  }
  return statements.filter((statement) => statement.length > 0);
}

/** A token's word when it is an unquoted word (a keyword, or a name PostgreSQL folds to lower case). */
const keyword = (token?: Token) => (token?.word !== undefined && !token.text.startsWith('"') ? token.word : undefined);

function statementRefusal(tokens: Token[]): string | null {
  let start = 0;
  while (tokens[start]?.text === "(") start++;
  const [first, second, third] = tokens.slice(start);
  const verb = keyword(first);
  if (verb && ALLOWED.has(verb)) return null;
  if (verb !== "set") return (first?.text ?? "").toUpperCase();
  const scope = keyword(second);
  if (scope === "transaction" || scope === "constraints") return null;
  const name = scope === "local" || scope === "session" ? third : second;
  return name?.word !== undefined && SETTABLE.has(name.word) ? null : `SET ${name?.text ?? ""}`;
}

/** Why a runtime login may not send `text`, or null when it may. */
export function runtimeRefusal(text: string): string | null {
  const statements = splitStatements(text);
  if (typeof statements === "string") return `SQL with ${statements}`;
  for (const statement of statements) {
    const refused = statementRefusal(statement);
    if (refused !== null) return refused;
  }
  return null;
}

// The wire side ------------------------------------------------------------------------------------

const PARSE = 0x50; // 'P'
const SIMPLE_QUERY = 0x51; // 'Q'
const FUNCTION_CALL = 0x46; // 'F'

/** The statement that makes the backend answer the refusal as an error of its own (42501). */
function refusalStatement(what: string): string {
  const text = `the embedded database refuses ${what.replace(/[^\w ()…'-]/g, "").slice(0, 60)} to the app's role (${RUNTIME_ROLE})`;
  return `select spooks_embedded.refuse('${text.replaceAll("'", "''")}')`;
}

/**
 * A runtime login's message as it goes to the backend: unchanged, or (Parse, Query, FunctionCall it may not
 * send) replaced by the same kind of message running `spooks_embedded.refuse`, so the backend answers the
 * error and leaves its transaction and extended-protocol state as after any failed statement.
 */
export function guardRuntimeMessage(message: Uint8Array): Uint8Array {
  const type = message[0];
  if (type === FUNCTION_CALL) return wireMessage("Q", cString(refusalStatement("function calls")));
  if (type !== PARSE && type !== SIMPLE_QUERY) return message;
  const body = Buffer.from(message.buffer, message.byteOffset + 5, message.length - 5);
  if (type === SIMPLE_QUERY) {
    // One string, its NUL the message's last byte (PostgreSQL's own rule), checked here rather than left to
    // PGlite's reader: the text checked is then exactly the text run (issue 32, item 11).
    const end = body.indexOf(0);
    const refused = end < 0 || end !== body.length - 1 ? "a malformed Query" : runtimeRefusal(body.toString("utf8", 0, end));
    return refused === null ? message : wireMessage("Q", cString(refusalStatement(refused)));
  }
  const nameEnd = body.indexOf(0);
  const queryEnd = body.indexOf(0, nameEnd + 1);
  const refused = nameEnd < 0 || queryEnd < 0 ? "a malformed Parse" : runtimeRefusal(body.toString("utf8", nameEnd + 1, queryEnd));
  if (refused === null) return message;
  const name = nameEnd < 0 ? "" : body.toString("utf8", 0, nameEnd);
  return wireMessage("P", Buffer.concat([cString(name), cString(refusalStatement(refused)), Buffer.from([0, 0])]));
}

/** Run before a runtime login's turn on the shared backend (after another login's): its settings, its role. */
export const ACT_AS_RUNTIME = `reset all; set role ${RUNTIME_ROLE}`;
/** Run before the owner login's turn after a runtime login's. */
export const ACT_AS_OWNER = "reset all; reset role";

/**
 * Makes the embedded database ready for runtime logins, as its superuser: the role (migration 0016 grants
 * it the rows), the refusal function, and no way for it to change settings but SET (checked) or to create
 * temporary objects that would shadow the app's tables on the shared backend.
 */
export async function prepareRuntimeRole(db: PGlite): Promise<void> {
  // Done once per data folder: the statements below persist, and the schema's comment says which version of them
  // ran (a CLI command's start is under a second only without them; bump the version when they change).
  const { rows } = await db.query<{ prepared: string | null }>(
    "select obj_description(oid, 'pg_namespace') as prepared from pg_namespace where nspname = 'spooks_embedded'",
  );
  if (rows[0]?.prepared === RUNTIME_PREPARED) return;
  await db.exec(`
    do $$ begin
      if not exists (select from pg_roles where rolname = '${RUNTIME_ROLE}') then create role ${RUNTIME_ROLE} nologin; end if;
    end $$;
    create schema if not exists spooks_embedded;
    revoke all on schema spooks_embedded from public;
    grant usage on schema spooks_embedded to ${RUNTIME_ROLE};
    create or replace function spooks_embedded.refuse(reason text) returns void language plpgsql as $f$
    begin
      raise exception '%', reason using errcode = 'insufficient_privilege';
    end $f$;
    revoke execute on function pg_catalog.set_config(text, text, boolean) from public;
    revoke update on pg_catalog.pg_settings from public;
    do $$ begin
      execute format('revoke temporary on database %I from public', current_database());
    end $$;
    comment on schema spooks_embedded is '${RUNTIME_PREPARED}';
  `);
}

/** The version of `prepareRuntimeRole`'s statements a data folder has had run. */
const RUNTIME_PREPARED = "spooks runtime role, version 1";
