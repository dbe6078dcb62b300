/**
 * Slash commands over HTTP (issue 37) end to end: the app (production build) over real HTTP with its own
 * database, the Discord double signing every interaction with the application's own Ed25519 key and judging
 * every answer as Discord does, the commands registered with one bulk overwrite, and each answer compared with
 * the figures the site's own API gives for the same wallet. Covers the signature checks (good, bad, missing,
 * old, a changed body), the endpoint off without DISCORD_PUBLIC_KEY, no Origin check but a rate limit of its
 * own, each command for a linked and an unlinked member, bad input, the same interaction twice, deferral with
 * the answer edited in, and the admin's test command.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../app/api/openapi.server.ts";
import { COMMAND_NAMES, COMMAND_REGISTRATIONS } from "../../app/domain/discord-commands.ts";
import { formatNumber, formatPoints, formatPointsExact } from "../../app/domain/format.ts";
import { newDrawSeed } from "../../app/domain/giveaways.ts";
import { unboostedDailyRate } from "../../app/domain/rewards.ts";
import { syncCommands } from "../../app/utils/discord-commands.server.ts";
import { demoCatalogue } from "../../db/demo-catalogue.ts";
import { importCatalogue } from "../../db/queries/catalogue.server.ts";
import { drawGiveawayWinner } from "../../db/queries/giveaways.server.ts";
import {
  startDiscordDouble,
  type DiscordDouble,
  type GuildView,
  type InteractionRecord,
} from "../../doubles/discord/discord-double.server.ts";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { createTestDatabase, type TestDatabase } from "../support/test-database.ts";
import { createAnswerChecker } from "./answer-checker.ts";
import { givePoints, giveItems, newWallet, society, spooks, type LooseJson, type Wallet } from "./support.ts";

const checker = createAnswerChecker(buildOpenApiDocument());
const PATH = "/api/discord/interactions";
const APP = "1100000000000000001";
const SLOW_APP = "1100000000000000002";
const DAY_MS = 86_400_000;

let db: TestDatabase;
let discord: DiscordDouble;
let guild: GuildView;
let server: TestServer;
let off: TestServer;
let limited: TestServer;
let slow: TestServer;
let admin: Wallet;
let holder: Wallet;
let other: Wallet;
let linkedUser: string;
let unlinkedUser: string;
let drawnId: number;
let adminCookie: string;

function envFor(clientId: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DISCORD_CLIENT_ID: clientId,
    DISCORD_CLIENT_SECRET: "secret",
    DISCORD_BOT_TOKEN: discord.botToken,
    DISCORD_GUILD_ID: guild.id,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_AUTHORIZE_URL: discord.authorizeUrl,
    ...extra,
  };
}

async function call(method: string, path: string, body?: unknown, { cookie, base = server.url }: { cookie?: string; base?: string } = {}) {
  const headers: Record<string, string> = {};
  if (method !== "GET") Object.assign(headers, { origin: base, "content-type": "application/json" });
  if (cookie) headers.cookie = cookie;
  const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const answer = { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  checker.check({ method, path, ...answer });
  return answer;
}

/** A signed request sent by hand (the double signs it with the app's key unless told otherwise). */
async function post(
  body: string,
  {
    base = server.url,
    headers = {},
    sign = true,
    timestamp,
  }: { base?: string; headers?: Record<string, string>; sign?: boolean; timestamp?: number } = {},
) {
  const signed = discord.signInteractionRequest(body, { clientId: APP, timestamp });
  const response = await fetch(`${base}${PATH}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(sign ? { "x-signature-ed25519": signed.signature, "x-signature-timestamp": signed.timestamp } : {}),
      ...headers,
    },
    body,
  });
  const text = await response.text();
  const answer = { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  checker.check({ method: "POST", path: PATH, ...answer });
  return answer;
}

/** A command as a member sends it; its answer checked against the contract, then what the member sees. */
async function command(name: string, userId: string, options?: Record<string, string | number>): Promise<InteractionRecord> {
  const sent = await discord.sendCommand({ clientId: APP, guildId: guild.id, userId, name, options });
  checkRecorded(sent.status, sent.response);
  expect(sent.failure, `/${name}`).toBeNull();
  expect(sent.outcome, `/${name}`).toBe("answered");
  expect(sent.elapsedMs).toBeLessThan(3000);
  return sent;
}

const embedOf = (record: InteractionRecord) => record.message!.embeds[0] as LooseJson;
const fieldOf = (record: InteractionRecord, name: string): string =>
  embedOf(record).fields.find((field: { name: string }) => field.name === name)?.value;
const buttonsOf = (record: InteractionRecord) => (record.message!.components as LooseJson[]).flatMap((row) => row.components);
const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);
/** The double's record of an answer, checked against the contract (the double took it only as JSON). */
const checkRecorded = (status: number | null, body: unknown) =>
  checker.check({ method: "POST", path: PATH, status: status!, body, headers: new Headers({ "content-type": "application/json" }) });
const ping = (id = "1300000000000000001") => JSON.stringify({ id, application_id: APP, type: 1, token: "t", version: 1 });

async function signInAdmin(): Promise<string> {
  const challenge = await call("GET", `/api/auth/challenge?address=${admin.address}`);
  const session = await call("POST", "/api/auth/session", {
    address: admin.address,
    message: challenge.body.message,
    signature: admin.sign(challenge.body.message),
  });
  return session.headers.getSetCookie()[0].split(";")[0];
}

async function stake(wallet: Wallet, names: string[], daysAgo: number[]) {
  const items = await giveItems(db.sql, wallet.address, names);
  for (const [index, item] of items.entries()) {
    if (daysAgo[index] === undefined) continue;
    await db.sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${wallet.address}, ${new Date(Date.now() - daysAgo[index] * DAY_MS)})`;
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  await importCatalogue(db.sql, demoCatalogue());
  discord = await startDiscordDouble({ globalPerSecond: 1000, rateLimits: { "interaction-webhook": { limit: 1000, windowMs: 1000 } } });
  guild = discord.createGuild({ roles: [{ name: "Holder", position: 1 }], botRole: { position: 2 } });
  linkedUser = discord.createUser({ username: "ghostly" }).id;
  unlinkedUser = discord.createUser({ username: "pumpkin" }).id;
  for (const user of [linkedUser, unlinkedUser]) discord.addMember(guild.id, user);
  const app = discord.registerApp({ clientId: APP, clientSecret: "secret", redirectUris: ["http://127.0.0.1/discord/callback"] });
  const slowApp = discord.registerApp({ clientId: SLOW_APP, clientSecret: "secret", redirectUris: ["http://127.0.0.1/discord/callback"] });
  admin = newWallet();
  holder = newWallet();
  other = newWallet();
  [server, off, limited, slow] = await Promise.all([
    // The longest budget: every answer here comes at once on a loaded machine too (deferral has its own server below).
    startTestServer({
      sql: db.sql,
      adminAddress: admin.address,
      env: envFor(APP, { DISCORD_PUBLIC_KEY: app.publicKey, DISCORD_DEFER_AFTER_MS: "2500" }),
    }),
    startTestServer({ sql: db.sql, adminAddress: admin.address, env: envFor(APP) }),
    startTestServer({
      sql: db.sql,
      adminAddress: admin.address,
      env: envFor(APP, { DISCORD_PUBLIC_KEY: app.publicKey, RATE_LIMIT_INTERACTIONS_PER_MIN: "3" }),
    }),
    // Every answer deferred: the first answer is "thinking…", the real one edited in through the interaction's webhook.
    startTestServer({
      sql: db.sql,
      adminAddress: admin.address,
      env: envFor(SLOW_APP, { DISCORD_PUBLIC_KEY: slowApp.publicKey, DISCORD_DEFER_AFTER_MS: "0" }),
    }),
  ]);
  // What the web server does at start: one bulk overwrite; then the URL saved as in the developer portal.
  await syncCommands(server.context.config.discord!);
  await syncCommands(slow.context.config.discord!);
  await discord.setInteractionsEndpoint(`${server.url}${PATH}`, APP);
  await discord.setInteractionsEndpoint(`${slow.url}${PATH}`, SLOW_APP);

  // The holder: 4 Spooks staked 40, 10, 3 and 3 days ago and one not staked; 2 Spook Society, 1 staked 8 days ago.
  await stake(holder, spooks(1, 2, 3, 4, 5), [40, 10, 3, 3]);
  await stake(holder, society(1, 2), [8]);
  await stake(other, spooks(6), [1]);
  await db.sql`
    insert into boost_schedules (effective_from, common_percent, rare_percent, epic_percent, legendary_percent, tenure, cap_percent, created_by, created_at)
    values (date_trunc('hour', now() - interval '100 days'), 100, 110, 130, 150, ${db.sql.json([
      { days: 7, percent: 110 },
      { days: 30, percent: 120 },
    ])}, 200, 'cli', date_trunc('hour', now() - interval '100 days'))`;
  await givePoints(db.sql, holder.address, 1234.5);
  await givePoints(db.sql, other.address, 50);
  for (let n = 0; n < 12; n++) await givePoints(db.sql, newWallet().address, 100 * (n + 1) + 0.75);
  await db.sql`insert into discord_links (address, discord_user_id, username, linked_at) values (${holder.address}, ${linkedUser}, 'ghostly', now())`;

  adminCookie = await signInAdmin();
  const created: number[] = [];
  for (const [title, hours] of [
    ["Golden Spook", 48],
    ["Haunted Hoodie", 5],
  ] as const) {
    const giveaway = await call(
      "POST",
      "/api/giveaways",
      {
        title,
        description: "A prize",
        imageUrl: "/uploads/x.png",
        pointsCost: 25,
        endDate: new Date(Date.now() + hours * 3_600_000).toISOString(),
      },
      { cookie: adminCookie },
    );
    expect(giveaway.status).toBe(201);
    created.push(giveaway.body.id);
  }
  const entry = await call("POST", "/api/giveaways/enter", await signedEntry(holder, created[1], 3));
  expect(entry.status).toBe(200);
  // A version-1 giveaway, drawn: what /verify shows.
  const { seed, commitment } = newDrawSeed();
  const [drawn] = await db.sql<{ id: number }[]>`
    insert into giveaways (title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, created_at)
    values ('Pumpkin Pack', 'Won', '/uploads/x.png', 1, now() + interval '1 hour', ${commitment}, ${seed}, now()) returning id`;
  drawnId = drawn.id;
  await db.sql`
    insert into giveaway_entries (giveaway_id, address, tickets, cost_units, entered_at)
    values (${drawnId}, ${holder.address}, 2, 4800, now()), (${drawnId}, ${other.address}, 1, 2400, now())`;
  await drawGiveawayWinner(db.sql, drawnId, { kind: "cli" });
}, 600_000);

async function signedEntry(wallet: Wallet, giveawayId: number, tickets: number) {
  const { entryMessage } = await import("../../app/domain/messages.ts");
  const message = entryMessage(giveawayId, tickets, new Date());
  return { address: wallet.address, giveawayId, tickets, message, signature: wallet.sign(message) };
}

afterAll(async () => {
  await Promise.all([server?.close(), off?.close(), limited?.close(), slow?.close()]);
  await discord?.close();
  await db?.close();
});

describe("the endpoint: Discord's signature before anything else", () => {
  it("a signed PING gets {type:1}; saving the URL passed Discord's own check (a forged PING got 401)", async () => {
    const answer = await post(ping());
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ type: 1 });
    const checks = discord.interactions().filter((record) => record.type === 1 && record.applicationId === APP);
    expect(checks.map((record) => record.status)).toEqual(expect.arrayContaining([200, 401]));
  });

  it("a bad, missing or old signature, or a body changed after signing, is 401 and nothing else happens", async () => {
    const id = "1300000000000000002";
    const body = JSON.stringify({
      id,
      application_id: APP,
      type: 2,
      token: "t",
      data: { name: "leaderboard", type: 1 },
      member: { user: { id: linkedUser } },
    });
    const signed = discord.signInteractionRequest(body, { clientId: APP });
    const flipped = signed.signature.slice(0, -1) + (signed.signature.endsWith("0") ? "1" : "0");
    const cases: [string, Awaited<ReturnType<typeof post>>][] = [
      ["bad", await post(body, { headers: { "x-signature-ed25519": flipped } })],
      ["missing", await post(body, { sign: false })],
      ["timestamp only", await post(body, { sign: false, headers: { "x-signature-timestamp": signed.timestamp } })],
      ["not hex", await post(body, { headers: { "x-signature-ed25519": "zz".repeat(64) } })],
      ["old (5 min 5 s)", await post(body, { timestamp: Math.floor(Date.now() / 1000) - 305 })],
      ["ahead (5 min 5 s)", await post(body, { timestamp: Math.floor(Date.now() / 1000) + 305 })],
      [
        "another app's key",
        await post(body, {
          headers: {
            "x-signature-ed25519": discord.signInteractionRequest(body, { clientId: SLOW_APP, timestamp: Number(signed.timestamp) })
              .signature,
            "x-signature-timestamp": signed.timestamp,
          },
        }),
      ],
      [
        "body changed",
        await post(body.replace("leaderboard", "leaderboard "), {
          headers: { "x-signature-ed25519": signed.signature, "x-signature-timestamp": signed.timestamp },
        }),
      ],
    ];
    for (const [what, answer] of cases) {
      expect(answer.status, what).toBe(401);
      expect(typeof answer.body.message, what).toBe("string");
    }
    // Nothing was claimed: the same interaction, signed, is answered afterwards.
    expect(await db.sql`select id from discord_interactions where id = ${id}`).toHaveLength(0);
    const fresh = await post(body, { timestamp: Math.floor(Date.now() / 1000) - 295 });
    expect(fresh.status).toBe(200);
    expect(fresh.body.type).toBe(4);
  });

  it("answers 404 without DISCORD_PUBLIC_KEY, even to a good signature", async () => {
    const answer = await post(ping(), { base: off.url });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ message: "Not found" });
  });

  it("needs no Origin and no cookie (another site's Origin changes nothing), but has its own rate limit", async () => {
    const foreign = await post(ping(), { headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(200);
    const answers = [];
    for (let n = 0; n < 4; n++) answers.push((await post(ping(), { base: limited.url })).status);
    expect(answers).toEqual([200, 200, 200, 429]);
    const refused = await post(ping(), { base: limited.url });
    expect(refused.body.message).toMatch(/^Too many Discord interactions from your address: at most 3 per 60 s\. Try again in \d+ s\.$/);
    // The other limits are apart: the same address still reads the site.
    expect((await call("GET", "/api/leaderboard", undefined, { base: limited.url })).status).toBe(200);
  });

  it("registered every command with one bulk overwrite", () => {
    const saved = discord.guildCommands(guild.id, APP);
    expect(saved.map((command) => command.name)).toEqual(COMMAND_REGISTRATIONS.map((command) => command.name));
    expect(saved.map((command) => command.options ?? [])).toEqual(COMMAND_REGISTRATIONS.map((command) => command.options));
    const puts = discord.requests().filter((request) => request.route === "PUT /applications/{application}/guilds/{guild}/commands");
    expect(puts.map((request) => request.status)).toEqual([200, 200]);
  });
});

describe("each command, for a linked and an unlinked member, against the site's own figures", () => {
  it("/points: balance whole and exact, daily rate with boosts, the hour under way and the rank, as GET /api/rewards and /api/wallet-doginals", async () => {
    const rewards = (await call("GET", `/api/rewards/${holder.address}`)).body;
    const items = (await call("GET", `/api/wallet-doginals/${holder.address}`)).body as { perDay: number | null }[];
    const boosted = items.reduce((sum, item) => sum + (item.perDay ?? 0), 0);
    // The rate credited, boosts included, is the API's dailyRate (DECISIONS.md); the boosts are real here.
    expect(rewards.dailyRate).toBeCloseTo(boosted, 6);
    const base = unboostedDailyRate(rewards.stakedCount);
    expect(boosted).toBeGreaterThan(base);
    const sent = await command("points", linkedUser);
    expect(sent.ephemeral).toBe(true);
    expect(sent.message!.flags).toBe(64);
    expect(sent.message!.allowedMentions).toEqual({ parse: [] });
    const embed = embedOf(sent);
    expect(embed.url).toBe(`${server.url}/rewards/history`);
    expect(embed.description).toBe(
      `**${formatPoints(rewards.unclaimedRewards)}** Spook Points (exactly ${formatPointsExact(rewards.unclaimedRewards)})`,
    );
    expect(fieldOf(sent, "Daily rate")).toContain(`**+${formatPointsExact(boosted)}** a day with boosts`);
    expect(fieldOf(sent, "Daily rate")).toContain(
      `Base +${formatNumber(base)} a day: ${rewards.stakedCount} items staked, tier ${rewards.rewardTier}`,
    );
    expect(fieldOf(sent, "This hour")).toBe(
      `+${formatPointsExact(rewards.currentHour.points)} at <t:${unix(rewards.currentHour.creditedAt)}:t> (<t:${unix(rewards.currentHour.creditedAt)}:R>), ` +
        `for ${rewards.currentHour.stakedCount} items staked all hour`,
    );
    expect(fieldOf(sent, "Rank")).toBe(`#${rewards.rank}`);
    expect(fieldOf(sent, "Wallet")).toBe(`\`${holder.address}\``);

    const unlinked = await command("points", unlinkedUser);
    expect(unlinked.ephemeral).toBe(true);
    expect(embedOf(unlinked).title).toBe("Link your wallet first");
    expect(buttonsOf(unlinked)).toEqual([{ type: 2, style: 5, label: "Link Discord", url: `${server.url}/discord/link` }]);

    // Any wallet, by anyone: the other wallet's own figures.
    const asked = await command("points", unlinkedUser, { wallet: other.address });
    const theirs = (await call("GET", `/api/rewards/${other.address}`)).body;
    expect(embedOf(asked).title).toBe("Spook Points");
    expect(embedOf(asked).description).toBe(
      `**${formatPoints(theirs.unclaimedRewards)}** Spook Points (exactly ${formatPointsExact(theirs.unclaimedRewards)})`,
    );
    expect(fieldOf(asked, "Rank")).toBe(`#${theirs.rank}`);
  });

  it("/stake: staked items by collection, the tenure steps reached and the next one, as GET /api/wallet-doginals", async () => {
    const items = (await call("GET", `/api/wallet-doginals/${holder.address}`)).body as LooseJson[];
    const staked = items.filter((item) => item.isStaked);
    const sent = await command("stake", linkedUser);
    expect(sent.ephemeral).toBe(true);
    expect(embedOf(sent).url).toBe(`${server.url}/`);
    expect(embedOf(sent).description).toBe(`${staked.length} items staked of ${items.length} held by \`${holder.address}\`.`);
    for (const [field, collection] of [
      ["Spooks", "spooks"],
      ["Spook Society", "spook-society"],
    ]) {
      const held = items.filter((item) => item.collection === collection);
      expect(fieldOf(sent, field)).toBe(`${held.filter((item) => item.isStaked).length} staked of ${held.length} held`);
    }
    const byDays = (days: number | null) => staked.filter((item) => item.boost.tenureDays === days).length;
    expect(fieldOf(sent, "Tenure")).toBe(
      [
        `${byDays(30)} item at 30 days (120%)`,
        `${byDays(7)} items at 7 days (110%)`,
        `${byDays(null)} items before the first step (100%)`,
      ].join("\n"),
    );
    // The 40-day item is at the last step: no next one.
    expect(staked.filter((item) => item.boost.nextStep === null)).toHaveLength(1);
    const next = staked
      .map((item) => item.boost.nextStep)
      .filter(Boolean)
      .sort((a, b) => Date.parse(a.at) - Date.parse(b.at))[0];
    expect(fieldOf(sent, "Next step")).toContain(`reaches ${next.days} days (${next.percent}%) <t:${unix(next.at)}:R>`);
    expect(fieldOf(sent, "Tenure steps")).toContain("7 days: 110% · 30 days: 120%");

    const unlinked = await command("stake", unlinkedUser);
    expect(embedOf(unlinked).title).toBe("Link your wallet first");
    expect(unlinked.ephemeral).toBe(true);
  });

  it("/giveaways: the open ones with cost, entries and end, as GET /api/giveaways; the same for anyone, seen by the channel", async () => {
    const all = (await call("GET", "/api/giveaways")).body as LooseJson[];
    const open = all.filter((giveaway) => giveaway.active && !giveaway.winnerAddress && Date.parse(giveaway.endDate) > Date.now());
    const linked = await command("giveaways", linkedUser);
    const unlinked = await command("giveaways", unlinkedUser);
    expect(unlinked.message!.embeds).toEqual(linked.message!.embeds);
    expect(linked.ephemeral).toBe(false);
    expect(embedOf(linked).url).toBe(`${server.url}/rewards`);
    const soonest = [...open].sort((a, b) => Date.parse(a.endDate) - Date.parse(b.endDate));
    expect(embedOf(linked).fields).toEqual(
      soonest.map((giveaway) => ({
        name: `#${giveaway.id} ${giveaway.title}`,
        value:
          `${giveaway.pointsCost} points a ticket · ${giveaway.entriesCount} ${giveaway.entriesCount === 1 ? "entry" : "entries"}, ` +
          `${giveaway.ticketsCount} ${giveaway.ticketsCount === 1 ? "ticket" : "tickets"} · ends <t:${unix(giveaway.endDate)}:R>`,
      })),
    );
    expect(open.map((giveaway) => giveaway.title)).toEqual(expect.arrayContaining(["Golden Spook", "Haunted Hoodie"]));
    expect(open.some((giveaway) => giveaway.ticketsCount === 3)).toBe(true);
  });

  it("/leaderboard: the top 10, as GET /api/leaderboard?limit=10", async () => {
    const top = (await call("GET", "/api/leaderboard?limit=10")).body as { address: string; rewards: number }[];
    expect(top).toHaveLength(10);
    const sent = await command("leaderboard", unlinkedUser);
    expect(sent.ephemeral).toBe(false);
    expect(embedOf(sent).description).toBe(
      top.map((entry, index) => `**${index + 1}.** \`${entry.address}\` ${formatPoints(entry.rewards)} points`).join("\n"),
    );
    expect((await command("leaderboard", linkedUser)).message!.embeds).toEqual(sent.message!.embeds);
  });

  it("/verify giveaway: commitment, seed, winners and the verify link, as GET /api/giveaways/{id}/draw", async () => {
    const draw = (await call("GET", `/api/giveaways/${drawnId}/draw`)).body;
    expect(draw.status).toBe("drawn");
    for (const user of [linkedUser, unlinkedUser]) {
      const sent = await command("verify", user, { giveaway: drawnId });
      expect(sent.ephemeral).toBe(false);
      expect(embedOf(sent).title).toBe(`Verify giveaway #${drawnId}: Pumpkin Pack`);
      expect(fieldOf(sent, "Commitment (SHA-256 of the seed)")).toBe(`\`${draw.commitment}\``);
      expect(fieldOf(sent, "Seed")).toBe(`\`${draw.seed}\``);
      expect(fieldOf(sent, "Winners")).toBe(`1. \`${draw.winnerAddresses[0]}\``);
      expect(fieldOf(sent, "Entries")).toBe("2 entries, 3 tickets");
      expect(buttonsOf(sent)).toEqual([{ type: 2, style: 5, label: "Verify this draw", url: `${server.url}/giveaways/${drawnId}/verify` }]);
    }
  });

  it("/link: the button to /discord/link, and the wallet linked now", async () => {
    const linked = await command("link", linkedUser);
    const unlinked = await command("link", unlinkedUser);
    for (const sent of [linked, unlinked]) {
      expect(sent.ephemeral).toBe(true);
      expect(buttonsOf(sent)[0].url).toBe(`${server.url}/discord/link`);
    }
    expect(embedOf(linked).description).toContain(holder.address);
    expect(embedOf(unlinked).title).toBe("Link your wallet");
  });
});

describe("bad input: an ephemeral answer saying what was wrong, never a 5xx", () => {
  it("an unknown command (an old registration), an unknown option, a wallet that is not an address, a giveaway that does not exist", async () => {
    const cases: [InteractionRecord, string, string][] = [
      [
        await discord.sendInteraction({
          clientId: APP,
          guildId: guild.id,
          userId: linkedUser,
          data: { id: "1300000000000000999", name: "balance", type: 1 },
        }),
        "Unknown command",
        "Spooks has no command /balance",
      ],
      [
        await discord.sendInteraction({
          clientId: APP,
          guildId: guild.id,
          userId: linkedUser,
          data: { name: "stake", type: 1, options: [{ name: "wallet", type: 3, value: holder.address }] },
        }),
        "Unknown option",
        "/stake has no option `wallet`",
      ],
      [
        await command("points", linkedUser, { wallet: "not-a-wallet" }),
        "Not a Dogecoin address",
        "`not-a-wallet` is not a Dogecoin address",
      ],
      [
        // The last character changed (the wallet is new each run: one address in 58 ends in "x" already).
        await command("points", linkedUser, { wallet: holder.address.slice(0, -1) + (holder.address.endsWith("x") ? "y" : "x") }),
        "Not a Dogecoin address",
        "is not a Dogecoin address",
      ],
      [await command("verify", linkedUser, { giveaway: 999_999 }), "No such giveaway", "There is no giveaway #999999"],
      [await command("verify", linkedUser, { giveaway: 9_007_199_254_740_991 }), "No such giveaway", "There is no giveaway"],
    ];
    for (const [sent, title, words] of cases) {
      expect(sent.status, title).toBe(200);
      expect(sent.outcome, title).toBe("answered");
      expect(sent.ephemeral, title).toBe(true);
      expect(embedOf(sent).title, title).toBe(title);
      expect(embedOf(sent).description, title).toContain(words);
    }
  });

  it("other interaction types: autocomplete gets no choices, a component a refusal; a body that is not an interaction is 400", async () => {
    const autocomplete = await discord.sendInteraction({
      clientId: APP,
      guildId: guild.id,
      userId: linkedUser,
      type: 4,
      data: { name: "points", type: 1 },
    });
    expect(autocomplete).toMatchObject({ status: 200, outcome: "autocomplete", response: { type: 8, data: { choices: [] } } });
    const component = await discord.sendInteraction({
      clientId: APP,
      guildId: guild.id,
      userId: linkedUser,
      type: 3,
      data: { custom_id: "x", component_type: 2 },
    });
    expect(component).toMatchObject({ status: 200, outcome: "answered", ephemeral: true });
    for (const body of [
      "{not json",
      JSON.stringify({ id: "1", type: 2 }),
      JSON.stringify({ id: "1300000000000000003", application_id: APP, type: 9, token: "t" }),
    ]) {
      const answer = await post(body);
      expect(answer.status, body).toBe(400);
      expect(typeof answer.body.message).toBe("string");
    }
  });

  it("the same interaction id twice is answered once (409 the second time), the signature being good both times", async () => {
    const first = await command("leaderboard", linkedUser);
    const again = await discord.replayInteraction(first.id);
    expect(again.status).toBe(409);
    expect(again.response).toEqual({ message: "This interaction was answered already" });
    checkRecorded(409, again.response);
    expect(await db.sql`select id from discord_interactions where id = ${first.id}`).toHaveLength(1);
  });
});

describe("anything Discord could sign", () => {
  it("any interaction, signed: never a 5xx; a 200 is an answer Discord takes (1, 4, 5 or 8), anything else a 4xx with a message", async () => {
    const snowflake = fc.bigInt({ min: 10n ** 17n, max: 10n ** 19n - 1n }).map(String);
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(holder.address),
      fc.constant(drawnId),
    );
    const option = fc.record({
      name: fc.oneof(fc.constantFrom("wallet", "giveaway"), fc.string({ maxLength: 10 })),
      type: fc.integer({ min: 1, max: 11 }),
      value,
    });
    const interaction = fc.record(
      {
        id: snowflake,
        application_id: fc.constant(APP),
        type: fc.oneof(fc.constant(2), fc.integer({ min: 0, max: 7 })),
        token: fc.string({ minLength: 1, maxLength: 20 }),
        data: fc.record(
          {
            name: fc.oneof(fc.constantFrom(...COMMAND_NAMES), fc.string({ maxLength: 12 })),
            type: fc.integer({ min: 1, max: 3 }),
            options: fc.array(option, { maxLength: 3 }),
          },
          { requiredKeys: ["name"] },
        ),
        member: fc.record({ user: fc.record({ id: fc.oneof(fc.constantFrom(linkedUser, unlinkedUser), snowflake) }) }),
      },
      { requiredKeys: ["id", "application_id", "type", "token"] },
    );
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(interaction, async (body) => {
        const answer = await post(JSON.stringify(body));
        seen.set(String(answer.status), (seen.get(String(answer.status)) ?? 0) + 1);
        expect(answer.status).toBeLessThan(500);
        if (answer.status === 200) expect([1, 4, 5, 8]).toContain(answer.body.type);
        else expect(typeof answer.body.message).toBe("string");
      }),
      { numRuns: 300 },
    );
    expect(seen.get("200")).toBeGreaterThan(100);
  }, 120_000);
});

describe("deferred answers", () => {
  it("an answer not ready within DISCORD_DEFER_AFTER_MS is deferred (type 5), then edited in through PATCH …/messages/@original", async () => {
    for (const [name, options, ephemeral] of [
      ["points", undefined, true],
      ["giveaways", undefined, false],
      ["verify", { giveaway: drawnId }, false],
    ] as const) {
      const sent = await discord.sendCommand({ clientId: SLOW_APP, guildId: guild.id, userId: linkedUser, name, options });
      checkRecorded(sent.status, sent.response);
      expect(sent.response, name).toEqual({ type: 5, data: ephemeral ? { flags: 64 } : {} });
      const seen = await discord.waitForInteractionMessage(sent.id);
      expect(seen.outcome, name).toBe("answered");
      expect(seen.ephemeral, name).toBe(ephemeral);
      expect(seen.edits).toHaveLength(1);
      // The same answer as at once, but for the site's address in the links.
      const direct = await command(name, linkedUser, options);
      expect(JSON.parse(JSON.stringify(seen.message!.embeds).replaceAll(slow.url, server.url))).toEqual(direct.message!.embeds);
      expect(seen.message!.allowedMentions).toEqual({ parse: [] });
    }
    const edits = discord.requests().filter((request) => request.route === "PATCH /webhooks/{webhook}/{token}/messages/{message}");
    expect(edits.map((request) => request.status)).toEqual([200, 200, 200]);
  });
});

describe("the admin's test command", () => {
  it("lists the commands and the endpoint URL, and answers as the double's member saw it, linked or not", async () => {
    const listed = await call("GET", "/api/admin/discord/commands", undefined, { cookie: adminCookie });
    expect(listed.status).toBe(200);
    expect(listed.body.enabled).toBe(true);
    expect(listed.body.endpointUrl).toBe(`${server.url}${PATH}`);
    expect(listed.body.commands.map((command: { name: string }) => command.name)).toEqual(
      COMMAND_REGISTRATIONS.map((command) => command.name),
    );
    expect((await call("GET", "/api/admin/discord/commands", undefined, { cookie: adminCookie, base: off.url })).body.enabled).toBe(false);

    const asHolder = await call(
      "POST",
      "/api/admin/discord/commands/test",
      { command: "stake", options: {}, asAddress: holder.address },
      { cookie: adminCookie },
    );
    expect(asHolder.status).toBe(200);
    const seen = await command("stake", linkedUser);
    expect(asHolder.body).toMatchObject({ ephemeral: true, wouldDefer: false });
    expect(asHolder.body.message.embeds).toEqual(seen.message!.embeds);
    const asNobody = await call(
      "POST",
      "/api/admin/discord/commands/test",
      { command: "points", asAddress: null },
      { cookie: adminCookie },
    );
    expect(asNobody.body.message.embeds[0].title).toBe("Link your wallet first");
    const bad = await call(
      "POST",
      "/api/admin/discord/commands/test",
      { command: "verify", options: { giveaway: 424242 }, asAddress: null },
      { cookie: adminCookie },
    );
    expect(bad.body.message.embeds[0].title).toBe("No such giveaway");
    const notLinked = await call(
      "POST",
      "/api/admin/discord/commands/test",
      { command: "points", asAddress: other.address },
      { cookie: adminCookie },
    );
    expect(notLinked.status).toBe(400);
    expect(notLinked.body.message).toBe("That wallet is not linked to a Discord account");
    expect((await call("POST", "/api/admin/discord/commands/test", { command: "points", asAddress: null })).status).toBe(401);
  });
});

describe("every answer of the file", () => {
  it("every answer mentioned nobody, linked to the site and stayed within Discord's limits (the double refuses an answer that does not)", () => {
    const answered = discord.interactions().filter((record) => record.applicationId === APP && record.type === 2 && record.message);
    expect(answered.length).toBeGreaterThan(10);
    for (const record of answered) {
      expect(record.message!.allowedMentions).toEqual({ parse: [] });
      expect(record.message!.mentions).toEqual({ everyone: false, users: [], roles: [] });
      expect((record.message!.embeds[0] as { url: string }).url.startsWith(`${server.url}/`), record.command ?? "").toBe(true);
    }
  });
});
