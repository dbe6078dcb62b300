/**
 * Shared set-up of the /api tests: a fresh database with the demo catalogue, the real app over HTTP,
 * wallets with real keys, and small helpers to call the API (every answer checked against the OpenAPI
 * document) and seed ownership and points.
 */
import bitcoinMessage from "bitcoinjs-message";
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { approvalMessage } from "../../app/domain/approvals.ts";
import { addressOfPrivateKey, newPrivateKey, signMessage, type Magic } from "../../app/domain/signature.ts";
import type { Sql } from "../../db/client.server.ts";
import { demoCatalogue } from "../../db/demo-catalogue.ts";
import { importCatalogue } from "../../db/queries/catalogue.server.ts";
import { addPoints } from "../../db/queries/points.server.ts";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { createTestDatabase } from "../support/test-database.ts";
import { buildOpenApiDocument } from "../../app/api/openapi.server.ts";
import { createAnswerChecker, type AnswerChecker } from "./answer-checker.ts";

export type Wallet = {
  key: Uint8Array;
  address: string;
  sign(message: string, options?: { magic?: Magic }): string;
  /** Signed by bitcoinjs-message (what MyDoge uses), independent of our own signer. */
  signIndependently(message: string, magic: Magic): string;
};

const MAGIC_TEXT: Record<Magic, string> = {
  bitcoin: "\x18Bitcoin Signed Message:\n",
  dogecoin: "\x19Dogecoin Signed Message:\n",
};

export function newWallet(): Wallet {
  const key = newPrivateKey();
  return {
    key,
    address: addressOfPrivateKey(key),
    sign: (message, options) => signMessage(key, message, options),
    signIndependently: (message, magic) => bitcoinMessage.sign(message, Buffer.from(key), true, MAGIC_TEXT[magic]).toString("base64"),
  };
}

/**
 * An answer's body as the tests read it: loosely (`body.items[0].id`, `wallet.sign(body.message)`), which no type
 * short of `any` allows. The checking is done elsewhere: `call` validates every answer against the documented
 * schema for its route and status (answer-checker.ts), and each test's expectations check the values it reads.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test answers are read loosely; the answer checker validates them against the contract
export type LooseJson = any;

export type ApiAnswer<T = LooseJson> = { status: number; body: T; headers: Headers };

export type CallOptions = {
  cookie?: string;
  headers?: Record<string, string>;
  raw?: BodyInit;
  /** The Origin header; by default a change (not GET/HEAD) carries the server's own, as a browser's would. null: none. */
  origin?: string | null;
};

export type ApiTestContext = {
  /** The app's own role (the runtime role, which owns nothing), as the server under test uses it. */
  sql: Sql;
  /** The role migrations ran as, for a test that changes what the app may not (schema_migrations). */
  ownerSql: Sql;
  /** The test database's URL, for a connection of its own (as the CLI makes beside the server). */
  databaseUrl: string;
  url: string;
  server: TestServer;
  admin: Wallet;
  catalogue: ReturnType<typeof demoCatalogue>;
  call<T = LooseJson>(method: string, path: string, body?: unknown, options?: CallOptions): Promise<ApiAnswer<T>>;
  adminCookie(): Promise<string>;
};

export type UseApiOptions = {
  /** More settings for the server, made once its doubles are up (the Discord double's URLs). */
  env?: () => Record<string, string> | Promise<Record<string, string>>;
};

/** Registers beforeAll/afterAll for one test file and answers the (filled-in) context. */
export function useApi(options: UseApiOptions = {}): ApiTestContext {
  const ctx = {} as ApiTestContext;
  let close: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const db = await createTestDatabase();
    const admin = newWallet();
    ctx.catalogue = demoCatalogue();
    await importCatalogue(db.sql, ctx.catalogue);
    const env = (await options.env?.()) ?? {};
    const server = await startTestServer({ sql: db.sql, adminAddress: admin.address, env });
    Object.assign(ctx, { sql: db.sql, ownerSql: db.owner.sql, databaseUrl: db.url, url: server.url, server, admin });
    let cookie: string | undefined;
    ctx.call = async (method, path, body, options = {}) => {
      const answer = await call(server.url, method, path, body, options);
      answerChecker().check({ method, path, ...answer });
      return answer;
    };
    ctx.adminCookie = async () => (cookie ??= await signIn(ctx, admin));
    close = async () => {
      await server.close();
      await db.close();
    };
  });
  afterAll(() => close());
  return ctx;
}

let checker: AnswerChecker | undefined;

/**
 * Every answer `call` receives is checked against the OpenAPI document (tests/api/answer-checker.ts): a
 * status its route does not document, or a body its schema refuses, fails the test that received it.
 */
function answerChecker(): AnswerChecker {
  return (checker ??= createAnswerChecker(buildOpenApiDocument()));
}

async function call(base: string, method: string, path: string, body: unknown, options: CallOptions): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  const origin = options.origin === undefined ? (method === "GET" || method === "HEAD" ? null : new URL(base).origin) : options.origin;
  if (origin !== null) headers.origin = origin;
  let payload: BodyInit | undefined = options.raw;
  if (payload === undefined && body !== undefined) payload = JSON.stringify(body);
  // As the page's client does: every change is JSON, even without a body (a raw body brings its own type).
  if (
    options.raw === undefined &&
    method !== "GET" &&
    method !== "HEAD" &&
    !Object.keys(headers).some((name) => name.toLowerCase() === "content-type")
  ) {
    headers["content-type"] = "application/json";
  }
  const response = await fetch(`${base}${path}`, { method, headers, body: payload });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** Signs in `wallet` through the challenge flow; answers the cookie to send back. */
export async function signIn(ctx: ApiTestContext, wallet: Wallet): Promise<string> {
  const challenge = await ctx.call("GET", `/api/auth/challenge?address=${wallet.address}`);
  const session = await ctx.call("POST", "/api/auth/session", {
    address: wallet.address,
    message: challenge.body.message,
    signature: wallet.sign(challenge.body.message),
  });
  if (session.status !== 200) throw new Error(`sign-in failed: ${session.status} ${JSON.stringify(session.body)}`);
  const setCookie = session.headers.getSetCookie()[0];
  return setCookie.split(";")[0];
}

/** The approver's signed body for approval `id`, as the Approvals tab makes it (`Approve Spooks action #{id}: …`). */
export function signedApproval(wallet: Wallet, id: number, summary: string, at = new Date()): { message: string; signature: string } {
  const message = approvalMessage(id, summary, at);
  return { message, signature: wallet.sign(message) };
}

/** `wallet`, signed in with `cookie`, approves the pending request `asked` (a 202's `{ approvalId, summary }`). */
export function approveAs(ctx: ApiTestContext, wallet: Wallet, cookie: string, asked: { approvalId: number; summary: string }) {
  const body = signedApproval(wallet, asked.approvalId, asked.summary);
  return ctx.call("POST", `/api/admin/approvals/${asked.approvalId}/approve`, body, { cookie });
}

/**
 * A session cookie for an address that is not the admin (as one left from before ADMIN_ADDRESS changed:
 * sign-in itself is for the admin only), stored as sign-in stores one.
 */
export async function nonAdminSession(sql: Sql, address = newWallet().address): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  const tokenHash = createHash("sha256").update(token).digest("hex");
  await sql`
    insert into sessions (token_hash, address, created_at, expires_at)
    values (${tokenHash}, ${address}, now(), now() + interval '1 hour')`;
  return `spooks_session=${token}`;
}

const SATPOINT = `${"ab".repeat(32)}:0:0`;

/** Makes `address` the owner (as the indexer would) of the catalogue items with these names. */
export async function giveItems(
  sql: Sql,
  address: string,
  names: string[],
): Promise<{ id: number; name: string; inscriptionId: string; number: number }[]> {
  const items = await sql<{ id: number; name: string; inscriptionId: string; number: number }[]>`
    select id, name, inscription_id, number from items where name = any(${names})`;
  const byName = new Map(items.map((item) => [item.name, item]));
  const ordered = names.map((name) => {
    const item = byName.get(name);
    if (!item) throw new Error(`no item ${name}`);
    return item;
  });
  const rows = ordered.map((item) => ({ itemId: item.id, ownerAddress: address, satpoint: SATPOINT, seenAt: new Date() }));
  await sql`
    insert into ownership ${sql(rows, "itemId", "ownerAddress", "satpoint", "seenAt")}
    on conflict (item_id) do update set owner_address = excluded.owner_address, seen_at = excluded.seen_at`;
  return ordered;
}

export async function givePoints(sql: Sql, address: string, points: number): Promise<void> {
  await addPoints(sql, { address, points, description: "test seed", actor: { kind: "cli" } });
}

export async function balanceUnits(sql: Sql, address: string): Promise<number> {
  const [row] = await sql<
    { units: number }[]
  >`select coalesce((select units from wallet_balances where address = ${address}), 0)::int8 as units`;
  return row.units;
}

export const spooks = (...numbers: number[]) => numbers.map((n) => `Spooks #${n}`);
export const society = (...numbers: number[]) => numbers.map((n) => `Spook Society #${n}`);

export const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000);
