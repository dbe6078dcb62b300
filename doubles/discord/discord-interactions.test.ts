/**
 * The Discord double's slash commands over HTTP (REAL-WORLD.md "Slash commands over HTTP"): interactions signed
 * with the app's own Ed25519 key (checked here with node:crypto, not the library the double signs with); the
 * endpoint checked as Discord checks it when the URL is saved; answers read within 3 s and judged as Discord
 * judges them; the bulk overwrite of guild commands with Discord's rules; and edits of the original message
 * through the interaction's token (@discordjs/rest, no bot token), 15 minutes at most.
 */
import { DiscordAPIError, REST } from "@discordjs/rest";
import { Routes } from "discord-api-types/v10";
import { createPublicKey, verify } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDiscordDouble, type DiscordDouble, type GuildView } from "./discord-double.server.ts";

type Received = { headers: http.IncomingHttpHeaders; body: string };
type Reply = { status: number; body: unknown; delayMs?: number; contentType?: string };

let discord: DiscordDouble;
let guild: GuildView;
let app: { clientId: string; publicKey: string };
let endpoint: { url: string; received: Received[]; close(): Promise<void> };
let member: string;
/** What the endpoint answers to commands (its PINGs are answered properly unless `acceptForged`). */
let reply: Reply;
let acceptForged = false;

/** Checked as Discord's docs say an app must: Ed25519 over timestamp + raw body, with the app's public key (node:crypto). */
function verifies(publicKeyHex: string, { headers, body }: Received): boolean {
  const key = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKeyHex, "hex").toString("base64url") },
    format: "jwk",
  });
  const signature = headers["x-signature-ed25519"];
  const timestamp = headers["x-signature-timestamp"];
  if (typeof signature !== "string" || typeof timestamp !== "string") return false;
  return verify(null, Buffer.from(timestamp + body), key, Buffer.from(signature, "hex"));
}

async function startEndpoint() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(request);
      const answer = (status: number, body: unknown, contentType = "application/json") => {
        res.writeHead(status, { "content-type": contentType });
        res.end(typeof body === "string" ? body : JSON.stringify(body));
      };
      if (!acceptForged && !verifies(app.publicKey, request)) return answer(401, { message: "invalid request signature" });
      if ((JSON.parse(request.body) as { type: number }).type === 1) return answer(200, { type: 1 });
      setTimeout(() => answer(reply.status, reply.body, reply.contentType), reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/interactions`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const message = (data: Record<string, unknown>) => ({ status: 200, body: { type: 4, data } });
const webhookClient = () => new REST({ api: discord.apiUrl, version: "10" });
const botClient = () => new REST({ api: discord.apiUrl, version: "10" }).setToken(discord.botToken);
const COMMANDS = [
  { name: "points", description: "Your points", options: [{ type: 3, name: "wallet", description: "A wallet", required: false }] },
  {
    name: "verify",
    description: "A draw",
    options: [{ type: 4, name: "giveaway", description: "Its number", required: true, min_value: 1 }],
  },
];

async function rejection(promise: Promise<unknown>): Promise<DiscordAPIError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DiscordAPIError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

beforeAll(async () => {
  discord = await startDiscordDouble({ rateLimits: { "interaction-webhook": { limit: 1000, windowMs: 1000 } } });
  guild = discord.createGuild({ roles: [{ name: "Holder", position: 1 }], botRole: { position: 2 } });
  member = discord.createUser({ username: "ghostly" }).id;
  discord.addMember(guild.id, member, { roles: ["Holder"] });
  app = discord.registerApp({ clientId: "1100000000000000001", redirectUris: ["http://127.0.0.1/discord/callback"] });
  endpoint = await startEndpoint();
  await discord.setInteractionsEndpoint(endpoint.url);
  await botClient().put(Routes.applicationGuildCommands(app.clientId, guild.id), { body: COMMANDS });
});
afterAll(async () => {
  await endpoint?.close();
  await discord?.close();
});
beforeEach(() => {
  reply = message({ embeds: [{ title: "Hello" }], allowed_mentions: { parse: [] } });
  acceptForged = false;
});

describe("the app's key and the endpoint", () => {
  it("every app has its own Ed25519 public key (64 hex digits), and interactions verify with it", async () => {
    expect(app.publicKey).toMatch(/^[0-9a-f]{64}$/);
    expect(discord.publicKeyOf(app.clientId)).toBe(app.publicKey);
    const other = discord.registerApp({ redirectUris: ["http://127.0.0.1/x"] });
    expect(other.publicKey).not.toBe(app.publicKey);
    const sent = await discord.sendCommand({ guildId: guild.id, userId: member, name: "points" });
    const request = endpoint.received.at(-1)!;
    expect(verifies(app.publicKey, request)).toBe(true);
    expect(verifies(other.publicKey, request)).toBe(false);
    expect(Number(request.headers["x-signature-timestamp"])).toBeCloseTo(Date.now() / 1000, -1);
    expect(request.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({
      id: sent.id,
      application_id: app.clientId,
      type: 2,
      token: sent.token,
      guild_id: guild.id,
      version: 1,
      data: { name: "points", type: 1, guild_id: guild.id },
      member: { user: { id: member, username: "ghostly" }, roles: [guild.roles.find((role) => role.name === "Holder")!.id] },
    });
    expect(body.data.id).toBe(discord.guildCommands(guild.id)[0].id);
  });

  it("saving the URL sends a signed PING (it must get {type:1}) and a forged one (it must get 401), as Discord does", async () => {
    const before = endpoint.received.length;
    await discord.setInteractionsEndpoint(endpoint.url);
    const [good, forged] = endpoint.received.slice(before);
    expect(JSON.parse(good.body).type).toBe(1);
    expect(verifies(app.publicKey, good)).toBe(true);
    expect(verifies(app.publicKey, forged)).toBe(false);
    acceptForged = true;
    await expect(discord.setInteractionsEndpoint(endpoint.url)).rejects.toThrow("a badly signed request was answered 200, not 401");
    acceptForged = false;
    await expect(discord.setInteractionsEndpoint("http://127.0.0.1:9/nothing")).rejects.toThrow("the PING was answered null");
  });

  it("a forged, unsigned or replayed interaction is sent as asked, so an app's refusals can be tested", async () => {
    const forged = await discord.sendInteraction({
      guildId: guild.id,
      userId: member,
      data: { name: "points", type: 1 },
      signWith: new Uint8Array(32).fill(7),
    });
    expect(forged.status).toBe(401);
    expect(forged.outcome).toBe("failed");
    const unsigned = await discord.sendInteraction({
      guildId: guild.id,
      userId: member,
      data: { name: "points", type: 1 },
      signWith: null,
    });
    expect(endpoint.received.at(-1)!.headers["x-signature-ed25519"]).toBeUndefined();
    expect(unsigned.status).toBe(401);
    const sent = await discord.sendCommand({ guildId: guild.id, userId: member, name: "points" });
    const replayed = await discord.replayInteraction(sent.id);
    expect(replayed.status).toBe(200);
    expect(endpoint.received.at(-1)!.body).toBe(endpoint.received.at(-2)!.body);
    expect(endpoint.received.at(-1)!.headers["x-signature-ed25519"]).toBe(endpoint.received.at(-2)!.headers["x-signature-ed25519"]);
  });
});

describe("sending commands as Discord's client does", () => {
  it("only registered commands, with the options they registered, of their types", async () => {
    const sent = await discord.sendCommand({ guildId: guild.id, userId: member, name: "verify", options: { giveaway: 7 } });
    expect(JSON.parse(endpoint.received.at(-1)!.body).data.options).toEqual([{ name: "giveaway", type: 4, value: 7 }]);
    expect(sent.outcome).toBe("answered");
    await expect(discord.sendCommand({ guildId: guild.id, userId: member, name: "stake" })).rejects.toThrow("is not registered");
    await expect(discord.sendCommand({ guildId: guild.id, userId: member, name: "points", options: { address: "x" } })).rejects.toThrow(
      "has no option address",
    );
    await expect(discord.sendCommand({ guildId: guild.id, userId: member, name: "verify", options: { giveaway: "7" } })).rejects.toThrow(
      "is not what Discord's client accepts",
    );
    await expect(discord.sendCommand({ guildId: guild.id, userId: member, name: "verify", options: { giveaway: 0 } })).rejects.toThrow(
      "is not what Discord's client accepts",
    );
    await expect(discord.sendCommand({ guildId: guild.id, userId: member, name: "verify" })).rejects.toThrow("needs giveaway");
    const stranger = discord.createUser().id;
    await expect(discord.sendCommand({ guildId: guild.id, userId: stranger, name: "points" })).rejects.toThrow("is not a member");
  });
});

describe("answers, as Discord judges them", () => {
  const send = () => discord.sendCommand({ guildId: guild.id, userId: member, name: "points" });

  it("a message (type 4) is shown; flags 64 makes it ephemeral; its mentions are worked out from allowed_mentions", async () => {
    reply = message({ content: `hi <@${member}>`, embeds: [{ title: "Points" }], flags: 64, allowed_mentions: { parse: [] } });
    const quiet = await send();
    expect(quiet).toMatchObject({ status: 200, outcome: "answered", ephemeral: true, failure: null });
    expect(quiet.message).toMatchObject({ content: `hi <@${member}>`, embeds: [{ title: "Points" }], mentions: { users: [] } });
    reply = message({ content: `hi <@${member}>` });
    expect((await send()).message!.mentions.users).toEqual([member]);
  });

  it("fails (the member sees 'This interaction failed') on a late, non-200, non-JSON or invalid answer", async () => {
    const cases: [Reply, string][] = [
      [{ ...message({ content: "late" }), delayMs: 3300 }, "no answer within 3 s"],
      [{ status: 500, body: { message: "oops" } }, "answered 500"],
      [{ status: 200, body: '{"type":4}', contentType: "text/plain" }, "not JSON"],
      [message({ embeds: [{ title: "t".repeat(257) }] }), '"title":{"_errors":[{"code":"BASE_TYPE_MAX_LENGTH"'],
      [message({}), "50006"],
      [message({ content: "x", flags: 2 }), "MESSAGE_FLAGS_INVALID"],
      [message({ content: "x", components: [{ type: 1, components: [{ type: 2, style: 5, label: "Go" }] }] }), "URL_TYPE_INVALID_URL"],
      [{ status: 200, body: { type: 5, data: { flags: 4 } } }, "a deferral may set the EPHEMERAL flag only"],
      [{ status: 200, body: { type: 1 } }, "callback type 1 is not valid here"],
    ];
    for (const [answer, failure] of cases) {
      reply = answer;
      const sent = await send();
      expect(sent.outcome, failure).toBe("failed");
      expect(sent.failure, failure).toContain(failure);
      // Its token is void: nothing can be edited in afterwards.
      const edit = await rejection(
        webhookClient().patch(Routes.webhookMessage(app.clientId, sent.token, "@original"), { body: { content: "late" }, auth: false }),
      );
      expect([edit.status, edit.code]).toEqual([404, 10015]);
    }
  }, 30_000);

  it("a deferral (type 5) shows 'thinking…' until PATCH …/messages/@original edits it in, with the interaction's token and no bot token", async () => {
    reply = { status: 200, body: { type: 5, data: { flags: 64 } } };
    const sent = await send();
    expect(sent).toMatchObject({ outcome: "deferred", ephemeral: true, message: null });
    const waiting = discord.waitForInteractionMessage(sent.id);
    const edited = (await webhookClient().patch(Routes.webhookMessage(app.clientId, sent.token, "@original"), {
      body: { embeds: [{ title: "Later" }], allowed_mentions: { parse: [] } },
      auth: false,
    })) as { id: string; embeds: { title: string }[]; flags: number; webhook_id: string };
    expect(edited).toMatchObject({ id: sent.id, embeds: [{ type: "rich", title: "Later" }], flags: 64, webhook_id: app.clientId });
    const seen = await waiting;
    expect(seen).toMatchObject({ outcome: "answered", ephemeral: true, message: { embeds: [{ title: "Later" }], flags: 64 } });
    expect(seen.edits).toEqual([{ at: expect.any(Number), body: { embeds: [{ title: "Later" }], allowed_mentions: { parse: [] } } }]);
  });

  it("an edit is refused past the limits (400 50035), with another app's id or an unknown token, and after 15 minutes (404 10015)", async () => {
    const sent = await send();
    const patch = (body: unknown, appId = app.clientId, token = sent.token) =>
      rejection(webhookClient().patch(Routes.webhookMessage(appId, token, "@original"), { body, auth: false }));
    const tooLong = await patch({ embeds: [{ description: "d".repeat(4097) }] });
    expect([tooLong.status, tooLong.code]).toEqual([400, 50035]);
    expect(tooLong.rawError).toMatchObject({ errors: { embeds: { 0: { description: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH" }] } } } } });
    for (const refused of [
      await patch({ content: "x" }, "1100000000000000009"),
      await patch({ content: "x" }, app.clientId, "not-a-token"),
    ]) {
      expect([refused.status, refused.code]).toEqual([404, 10015]);
    }
    discord.expireInteractionTokens();
    const expired = await patch({ content: "x" });
    expect([expired.status, expired.code]).toEqual([404, 10015]);
  });
});

describe("guild commands: one bulk overwrite", () => {
  const put = (body: unknown, client = botClient(), appId = app.clientId, guildId = guild.id) =>
    client.put(Routes.applicationGuildCommands(appId, guildId), { body });

  it("answers the commands as saved; an unchanged command keeps its id and version, a changed one keeps its id", async () => {
    const before = discord.guildCommands(guild.id);
    const saved = (await put([COMMANDS[0], { ...COMMANDS[1], description: "Changed" }])) as { id: string; version: string; name: string }[];
    expect(saved.map((command) => command.name)).toEqual(["points", "verify"]);
    expect(saved[0]).toMatchObject({
      id: before[0].id,
      version: before[0].version,
      application_id: app.clientId,
      guild_id: guild.id,
      type: 1,
    });
    expect(saved[1].id).toBe(before[1].id);
    expect(saved[1].version).not.toBe(before[1].version);
    expect(((await botClient().get(Routes.applicationGuildCommands(app.clientId, guild.id))) as unknown[]).length).toBe(2);
    await put(COMMANDS);
  });

  it("refuses what Discord refuses: names, descriptions, option order, duplicates (400 50035, nothing saved)", async () => {
    const before = discord.guildCommands(guild.id);
    const refused = await rejection(
      put([
        { name: "Points", description: "Upper case" },
        { name: "stake", description: "d".repeat(101) },
        {
          name: "verify",
          description: "ok",
          options: [
            { type: 3, name: "a", description: "a" },
            { type: 4, name: "b", description: "b", required: true },
          ],
        },
        { name: "verify", description: "again" },
      ]),
    );
    expect([refused.status, refused.code]).toEqual([400, 50035]);
    expect(refused.rawError).toMatchObject({
      errors: {
        0: { name: { _errors: [{ code: "APPLICATION_COMMAND_INVALID_NAME" }] } },
        1: { description: { _errors: [{ code: "BASE_TYPE_BAD_LENGTH" }] } },
        2: { options: { 1: { required: { _errors: [{ code: "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID" }] } } } },
        3: { name: { _errors: [{ code: "APPLICATION_COMMANDS_DUPLICATE_NAME" }] } },
      },
    });
    expect(discord.guildCommands(guild.id)).toEqual(before);
  });

  it("needs the bot's token, a known application, and the bot in the guild", async () => {
    const anonymous = await rejection(put(COMMANDS, new REST({ api: discord.apiUrl, version: "10" }).setToken("nope")));
    expect(anonymous.status).toBe(401);
    const unknownApp = await rejection(put(COMMANDS, botClient(), "1100000000000000009"));
    expect([unknownApp.status, unknownApp.code]).toEqual([404, 10002]);
    const elsewhere = discord.createGuild({ roles: [] });
    discord.removeBotFromGuild(elsewhere.id);
    const left = await rejection(put(COMMANDS, botClient(), app.clientId, elsewhere.id));
    expect([left.status, left.code]).toEqual([403, 50001]);
  });
});
