/**
 * Property-based fuzz of every operation in the /api contract (issue 20, item 4), over real HTTP on a real
 * database. For each case fast-check picks an operation and builds its request from the contract's own zod
 * schemas (via their JSON Schema): path params, query, JSON body and headers, each either shaped as the
 * schema says (with real addresses, catalogue items and row ids mixed in), mutated, or arbitrary; signed
 * routes get, half the time, a message built for exactly that body and signed by a real holder's key; the
 * admin routes get the admin's cookie, a forged one or none, and the site's Origin or another.
 * Properties: never a 5xx (but one the route documents as its own: /content's 502 when the ord server gives no
 * picture); every refusal a 4xx JSON answer with a `message`; a refused change leaves the
 * money-like tables (balances, ledger, stakes, entries, votes, giveaways, proposals, used signatures)
 * exactly as they were.
 *
 * Seeded and sized by FUZZ_SEED and FUZZ_RUNS (default: a random seed, 3000 cases); a failure names its
 * seed and path, and `FUZZ_SEED=… FUZZ_RUNS=… npx vitest run tests/api/fuzz.test.ts` replays it.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { API_ROUTES } from "../../app/api/index.ts";
import type { RouteContract } from "../../app/api/kit.ts";
import { bulkStakeMessage, claimMessage, entryMessage, stakeMessage, voteMessage } from "../../app/domain/messages.ts";
import { newDrawSeed } from "../../app/domain/giveaways.ts";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { startDiscordDouble, type DiscordDouble } from "../../doubles/discord/discord-double.server.ts";
import { unlinkMessage } from "../../app/domain/discord.ts";
import { giveItems, givePoints, minutesFromNow, newWallet, spooks, useApi, type Wallet } from "./support.ts";
import { sendRaw } from "../support/raw-http.ts";

const ctx = useApi();

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 3000;

/** The tables a refused request must leave untouched. */
const MONEY_LIKE = [
  "balances",
  "points_ledger",
  "stakes",
  "giveaway_entries",
  "votes",
  "giveaways",
  "proposals",
  "proposal_options",
  "used_signatures",
  "giveaway_claims",
  "discord_links",
  "discord_rules",
];

let server: TestServer;
let discord: DiscordDouble;
let holder: Wallet;
let adminCookie: string;
let owned: { inscriptionId: string; name: string; number: number }[];
let giveawayId: number;
/** Titles by giveaway id, for the claims' signed texts. */
const giveawayTitles = new Map<number, string>();
let proposal: { id: number; title: string; optionIds: number[] } | undefined;

beforeAll(async () => {
  // The limits are off: the fuzz is about what a request that reaches a route can do.
  // Discord holder roles on, against the Discord double, so their routes are fuzzed live (not only their 404).
  discord = await startDiscordDouble({ globalPerSecond: 10_000 });
  const guild = discord.createGuild({ roles: [{ name: "Holder", position: 1 }], botRole: { position: 2 } });
  // Slash commands on too: requests to them are signed with the app's key (or stale, or not at all).
  const app = discord.registerApp({
    clientId: "1100000000000000001",
    clientSecret: "fuzz",
    redirectUris: ["http://127.0.0.1/discord/callback"],
  });
  server = await startTestServer({
    sql: ctx.sql,
    adminAddress: ctx.admin.address,
    env: {
      RATE_LIMIT_SIGNIN_PER_MIN: "0",
      RATE_LIMIT_SIGNED_PER_MIN: "0",
      DISCORD_CLIENT_ID: "1100000000000000001",
      DISCORD_CLIENT_SECRET: "fuzz",
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_GUILD_ID: guild.id,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_AUTHORIZE_URL: discord.authorizeUrl,
      DISCORD_PUBLIC_KEY: app.publicKey,
    },
  });
  holder = newWallet();
  owned = await giveItems(ctx.sql, holder.address, spooks(1, 2, 3, 4, 5, 6));
  await givePoints(ctx.sql, holder.address, 100_000);
  adminCookie = await ctx.adminCookie();
  const giveaway = await ctx.call(
    "POST",
    "/api/giveaways",
    {
      title: "Fuzz pack",
      description: "Won by chance",
      imageUrl: "/uploads/fuzz.png",
      pointsCost: 1,
      endDate: minutesFromNow(600).toISOString(),
    },
    { cookie: adminCookie },
  );
  giveawayId = giveaway.body.id;
  giveawayTitles.set(giveawayId, "Fuzz pack");
  // A drawn (version 1) giveaway the holder won, so a claim can succeed (issue 27, item 9).
  const { seed, commitment } = newDrawSeed();
  const [won] = await ctx.sql<{ id: number }[]>`
    insert into giveaways (title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, winner_address, drawn_at, created_at)
    values ('Fuzz prize', 'Won', '/uploads/fuzz.png', 1, now(), ${commitment}, ${seed}, ${holder.address}, now(), now())
    returning id`;
  giveawayTitles.set(won.id, "Fuzz prize");
  const [row] = await ctx.sql<{ id: number; title: string }[]>`select id, title from proposals order by id limit 1`;
  if (row) {
    const options = await ctx.sql<{ id: number }[]>`select id from proposal_options where proposal_id = ${row.id}`;
    proposal = { ...row, optionIds: options.map((option) => option.id) };
  }
}, 180_000);

afterAll(async () => {
  await server?.close();
  await discord?.close();
});

// Values worth trying ------------------------------------------------------------------------------

const strangeText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(
    "",
    " ",
    "0",
    "-1",
    "1e309",
    "NaN",
    "null",
    "%zz",
    "%00",
    "\u0000",
    "../..",
    "<script>",
    "'; drop table items; --",
    "🎃".repeat(50),
  ),
  fc.string({ minLength: 3000, maxLength: 5000 }),
);

const someAddress = () =>
  fc.oneof(
    fc.constant(holder.address),
    fc.constant(ctx.admin.address),
    fc.constant(newWallet().address),
    fc.constantFrom(
      "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
      "nXxx",
      "1BoatSLRHtKNngkdXEeobR76b53LETtpyT",
      "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    ),
    strangeText,
  );

const someInscriptionId = () =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...owned.map((item) => item.inscriptionId)), weight: 4 },
    fc.constantFrom(...ctx.catalogue.slice(100, 110).map((item) => item.inscriptionId)),
    fc.stringMatching(/^[0-9a-f]{64}i[0-9]{1,3}$/),
    strangeText,
  );

const someRowId = () =>
  fc.oneof(fc.integer({ min: 1, max: 6 }).map(String), fc.constantFrom("0", "-1", "1.5", "99999999999", "1e3", "abc"), strangeText);

/** What a property's name says it holds, where that beats what its JSON Schema can say. */
function byName(name: string): fc.Arbitrary<unknown> | undefined {
  if (name === "address") return someAddress();
  if (name === "inscriptionId") return someInscriptionId();
  if (name === "inscriptionIds") return fc.array(someInscriptionId(), { maxLength: 6 });
  if (name === "giveawayId") return fc.oneof(fc.constant(giveawayId), fc.integer({ min: -2, max: 2 ** 31 }));
  if (name === "id" || name === "proposalId") return someRowId();
  return undefined;
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
};

/** A value of the shape `schema` describes (refinements aside: those are what the server must judge). */
function shaped(schema: JsonSchema, name = ""): fc.Arbitrary<unknown> {
  const named = byName(name);
  if (named) return named;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((member) => shaped(member, name)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      if (schema.format === "date-time" || /date$/i.test(name)) {
        return fc
          .date({ min: new Date(Date.now() - 86_400_000), max: new Date(Date.now() + 30 * 86_400_000), noInvalidDate: true })
          .map((date) => date.toISOString());
      }
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) });
    case "integer":
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -(2 ** 40)), max: Math.min(schema.maximum ?? 1_000_000, 2 ** 40) });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(schema.items ? shaped(schema.items, name) : fc.jsonValue(), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case "object": {
      const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, shaped(value, key)]));
      return fc.record(properties, { requiredKeys: (schema.required ?? []).filter((key) => key in properties) });
    }
    default:
      return fc.jsonValue();
  }
}

const jsonSchemaOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;

/** Shaped most of the time; else one field broken, or anything at all. */
function valueFor(schema: z.ZodType): fc.Arbitrary<unknown> {
  const shape = jsonSchemaOf(schema);
  const good = shaped(shape);
  const broken = good.chain((value) =>
    typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length > 0
      ? fc
          .tuple(fc.constantFrom(...Object.keys(value)), fc.oneof(fc.jsonValue(), strangeText, fc.constant(undefined)))
          .map(([key, replacement]) => ({ ...value, [key]: replacement }))
      : fc.jsonValue(),
  );
  return fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: broken, weight: 2 }, { arbitrary: fc.jsonValue(), weight: 1 });
}

// Requests -----------------------------------------------------------------------------------------

type FuzzRequest = {
  method: string;
  target: string;
  headers: Record<string, string>;
  body?: string;
  route: string;
  ownServerErrors: number[];
};

/** A generated field as a number, as the message texts need it (a generated object, even one without a prototype, is NaN). */
const numberOf = (value: unknown): number => (typeof value === "number" || typeof value === "string" ? Number(value) : Number.NaN);

/** A signed body, as a wallet would send it for exactly these fields (or for a stale time). */
function signedFor(route: RouteContract, body: Record<string, unknown>, params: Record<string, string>, at: Date): Record<string, unknown> {
  const item = owned.find((candidate) => candidate.inscriptionId === body.inscriptionId) ?? owned[0];
  const names = (Array.isArray(body.inscriptionIds) ? body.inscriptionIds : []).map(
    (id) => owned.find((candidate) => candidate.inscriptionId === id)?.name ?? String(id),
  );
  const messages: Record<string, () => string> = {
    stakeItem: () => stakeMessage("stake", item.number, at),
    unstakeItem: () => stakeMessage("unstake", item.number, at),
    stakeItems: () => bulkStakeMessage("stake", names, at),
    unstakeItems: () => bulkStakeMessage("unstake", names, at),
    enterGiveaway: () => entryMessage(numberOf(body.giveawayId), numberOf(body.tickets), at),
    claimGiveawayPrize: () =>
      claimMessage(
        giveawayTitles.get(numberOf(params.id)) ?? "?",
        numberOf(params.id),
        holder.address,
        typeof body.contact === "string" ? body.contact.trim() : "?",
        at,
      ),
    castVote: () => voteMessage(numberOf(params.id), proposal?.title ?? "?", numberOf(body.optionId), at),
    unlinkDiscord: () => unlinkMessage(holder.address, at),
  };
  const message = messages[route.operationId]?.() ?? (typeof body.message === "string" ? body.message : "hello");
  return { ...body, address: holder.address, message, signature: holder.sign(message) };
}

function requestFor(route: RouteContract): fc.Arbitrary<FuzzRequest> {
  const params = route.params ? valueFor(route.params) : fc.constant({});
  const query = route.query
    ? fc.oneof(valueFor(route.query), fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })))
    : fc.constant({});
  const body = route.body?.kind === "json" ? valueFor(route.body.schema) : fc.constant(undefined);
  // One case in eight sends a body that is not JSON at all.
  const rawBody = fc.oneof(
    { arbitrary: fc.constant(null), weight: 7 },
    { arbitrary: fc.oneof(fc.constant("{bad"), fc.constant(""), fc.string({ maxLength: 30 })), weight: 1 },
  );
  const signing =
    route.auth === "signature" || route.auth === "discord-signature" ? fc.constantFrom("fresh", "stale", "as-is") : fc.constant("as-is");
  const contentType = fc.constantFrom(
    "application/json",
    "application/json",
    "application/json",
    "",
    "text/plain",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencoded",
  );
  const origin = fc.constantFrom("own", "own", "foreign", "none");
  const cookie = fc.constantFrom("admin", "admin", "none", "forged");
  return fc
    .record({ params, query, body, rawBody, signing, contentType, origin, cookie })
    .map(({ params: p, query: q, body: b, rawBody: raw, signing: sign, contentType: type, origin: from, cookie: who }) => {
      const pathParams = (typeof p === "object" && p !== null ? p : {}) as Record<string, unknown>;
      const target =
        route.path.replace(/\{([^}]+)\}/g, (_, key: string) =>
          encodeURIComponent(typeof pathParams[key] === "string" ? pathParams[key] : JSON.stringify(pathParams[key] ?? "")),
        ) + queryString(q);
      let payload = b;
      if (route.auth === "signature" && sign !== "as-is" && typeof b === "object" && b !== null && !Array.isArray(b)) {
        const at = sign === "fresh" ? new Date() : new Date(Date.now() - 20 * 60_000);
        payload = signedFor(route, b as Record<string, unknown>, pathParams as Record<string, string>, at);
      }
      const headers: Record<string, string> = {};
      if (type) headers["content-type"] = type;
      if (from === "own") headers.origin = server.url;
      if (from === "foreign") headers.origin = "https://evil.example";
      // Signing out with the admin's cookie would end the session every later case relies on.
      if (who === "admin" && route.operationId !== "signOut") headers.cookie = adminCookie;
      if (who === "forged") headers.cookie = "spooks_session=forged";
      const text = raw ?? (payload === undefined ? undefined : JSON.stringify(payload));
      if (route.auth === "discord-signature" && sign !== "as-is") {
        // Discord's signature of the exact bytes sent, now or 20 minutes ago.
        const timestamp = Math.floor(Date.now() / 1000) - (sign === "fresh" ? 0 : 20 * 60);
        const signed = discord.signInteractionRequest(text ?? "", { timestamp });
        Object.assign(headers, { "x-signature-ed25519": signed.signature, "x-signature-timestamp": signed.timestamp });
      }
      const ownServerErrors = Object.keys(route.responses)
        .map(Number)
        .filter((status) => status > 500);
      return {
        method: route.method,
        target,
        headers,
        body: route.method === "GET" ? undefined : text,
        route: route.operationId,
        ownServerErrors,
      };
    });
}

function queryString(query: unknown): string {
  if (typeof query !== "object" || query === null) return "";
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined) search.append(key, typeof value === "string" ? value : JSON.stringify(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

const send = ({ method, target, headers, body }: FuzzRequest) => sendRaw(server.url, method, target, headers, body);

/** One digest per money-like table: any change to any row changes it. */
async function snapshot(): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const table of MONEY_LIKE) {
    const [row] = await ctx.sql<{ digest: string | null }[]>`
      select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from ${ctx.sql(table)} t`;
    digests[table] = row.digest ?? "";
  }
  return digests;
}

// The property ------------------------------------------------------------------------------------

describe("fuzz: every operation of the contract", () => {
  it(`never a 5xx; every refusal a 4xx JSON { message }; a refused change changes nothing (seed ${SEED}, ${RUNS} cases)`, async () => {
    const routes = API_ROUTES.filter((route) => route.body?.kind !== "multipart");
    const anyRequest = fc.oneof(...routes.map(requestFor));
    const seen = new Map<string, number>();
    const started = performance.now();
    try {
      await fc.assert(
        fc.asyncProperty(anyRequest, async (request) => {
          const isChange = request.method !== "GET";
          const before = isChange ? await snapshot() : undefined;
          const answer = await send(request);
          const key = `${request.route} ${answer.status}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
          // A 5xx only where the route documents one of its own (/content's 502: the ord server gave no picture).
          if (!request.ownServerErrors.includes(answer.status)) {
            expect(answer.status, `${request.method} ${request.target}: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
          }
          if (answer.status >= 400) {
            expect(answer.type, `${request.method} ${request.target}`).toMatch(/^application\/json/);
            expect(typeof (answer.body as { message?: unknown }).message, `${request.method} ${request.target}`).toBe("string");
            if (before)
              expect(await snapshot(), `${request.method} ${request.target} answered ${answer.status} but changed the data`).toEqual(
                before,
              );
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    } catch (error) {
      throw new Error(`Fuzz failed: replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}\n${(error as Error).message}`);
    } finally {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const successes = [...seen].filter(([key]) => /\s2\d\d$/.test(key)).reduce((sum, [, count]) => sum + count, 0);
      console.log(
        `fuzz: seed ${SEED}, ${RUNS} cases in ${seconds} s over ${routes.length} operations; ${successes} succeeded; answers: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`,
      );
    }
  }, 600_000);
});
