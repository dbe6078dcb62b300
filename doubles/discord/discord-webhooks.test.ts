/**
 * The Discord double's channel webhooks (REAL-WORLD.md "Channel webhooks"): every limit at its boundary (the
 * limit accepted, one more refused 400 50035 naming the field), the empty message (50006), `?wait=true`,
 * allowed_mentions, and a deleted webhook (404 10015), through fetch and through @discordjs/rest (auth: false).
 */
import { DiscordAPIError, makeURLSearchParams, REST } from "@discordjs/rest";
import { Routes } from "discord-api-types/v10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDiscordDouble, type DiscordDouble, type Webhook } from "./discord-double.server.ts";

let discord: DiscordDouble;
let webhook: Webhook;

function post(body: unknown, { wait = false, url = webhook.url }: { wait?: boolean; url?: string } = {}) {
  return fetch(`${url}${wait ? "?wait=true" : ""}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const x = (n: number) => "x".repeat(n);

beforeAll(async () => {
  // Boundaries take many posts: a roomy window so the webhook bucket never refuses here.
  discord = await startDiscordDouble({ rateLimits: { webhook: { limit: 1000, windowMs: 60_000 } } });
  webhook = discord.createWebhook({ name: "Spooks announcements" });
});
afterAll(() => discord.close());

describe("limits, each at its boundary", () => {
  const embed = (fields: Record<string, unknown>) => ({ embeds: [{ title: "A giveaway", ...fields }] });
  const fields = (count: number, field = { name: "n", value: "v" }) => Array.from({ length: count }, () => field);
  const cases: [string, (n: number) => unknown, number, unknown][] = [
    [
      "content",
      (n) => ({ content: x(n) }),
      2000,
      { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } },
    ],
    [
      "embeds",
      (n) => ({ embeds: Array.from({ length: n }, () => ({ title: "t" })) }),
      10,
      { embeds: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 10 or fewer in length." }] } },
    ],
    [
      "title",
      (n) => embed({ title: x(n) }),
      256,
      { embeds: { 0: { title: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 256 or fewer in length." }] } } } },
    ],
    [
      "description",
      (n) => embed({ description: x(n) }),
      4096,
      { embeds: { 0: { description: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 4096 or fewer in length." }] } } } },
    ],
    [
      "fields",
      (n) => embed({ fields: fields(n) }),
      25,
      { embeds: { 0: { fields: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 25 or fewer in length." }] } } } },
    ],
    [
      "field name",
      (n) => embed({ fields: [{ name: x(n), value: "v" }] }),
      256,
      {
        embeds: {
          0: { fields: { 0: { name: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 256 or fewer in length." }] } } } },
        },
      },
    ],
    [
      "field value",
      (n) => embed({ fields: [{ name: "n", value: x(n) }] }),
      1024,
      {
        embeds: {
          0: { fields: { 0: { value: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 1024 or fewer in length." }] } } } },
        },
      },
    ],
    [
      "footer",
      (n) => embed({ footer: { text: x(n) } }),
      2048,
      { embeds: { 0: { footer: { text: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2048 or fewer in length." }] } } } } },
    ],
    [
      "author name",
      (n) => embed({ author: { name: x(n) } }),
      256,
      { embeds: { 0: { author: { name: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 256 or fewer in length." }] } } } } },
    ],
    [
      "all embed texts together",
      // Two embeds, each within its own limits: 10 ("A giveaway") + 4,096 in the first, the rest up to n in the second.
      (n) => ({ embeds: [{ title: "A giveaway", description: x(4096) }, { description: x(n - 4106) }] }),
      6000,
      { embeds: { _errors: [{ code: "MAX_EMBED_SIZE_EXCEEDED", message: "Embed size exceeds maximum size of 6000" }] } },
    ],
  ];

  it.each(cases)("%s: %# the limit is accepted, one more is 400 50035", async (_name, body, limit, errors) => {
    expect((await post(body(limit))).status).toBe(204);
    const refused = await post(body(limit + 1));
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toBe("application/json");
    expect(await refused.json()).toEqual({ code: 50035, message: "Invalid Form Body", errors });
  });

  it("counts characters, not UTF-16 units: 2,000 ghosts (4,000 units) are a valid content", async () => {
    expect((await post({ content: "👻".repeat(2000) })).status).toBe(204);
    expect((await post({ content: "👻".repeat(2001) })).status).toBe(400);
  });

  it("wants a name and a value in every field", async () => {
    const refused = await post({ embeds: [{ fields: [{ name: "n" }] }] });
    expect(await refused.json()).toMatchObject({
      code: 50035,
      errors: { embeds: { 0: { fields: { 0: { value: { _errors: [{ code: "BASE_TYPE_REQUIRED" }] } } } } } },
    });
  });

  it("refuses a message with neither content nor embeds 400 50006 (blank content too)", async () => {
    for (const body of [{}, { content: "" }, { content: "   " }, { embeds: [] }, { allowed_mentions: { parse: [] } }]) {
      const refused = await post(body);
      expect([body, refused.status, await refused.json()]).toEqual([body, 400, { code: 50006, message: "Cannot send an empty message" }]);
    }
  });

  it("refuses a body that is not JSON 400 50109", async () => {
    const refused = await fetch(webhook.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect([refused.status, await refused.json()]).toEqual([400, { code: 50109, message: "The request body contains invalid JSON." }]);
  });
});

describe("posting", () => {
  it("answers 204 with no body, or with ?wait=true the created message; needs no Authorization", async () => {
    const plain = await post({ content: "A giveaway opened" });
    expect([plain.status, await plain.text(), plain.headers.get("content-type")]).toEqual([204, "", null]);

    const body = {
      embeds: [{ title: "Giveaway drawn", description: "3 winners", fields: [{ name: "Verify", value: "https://spooks.example/verify" }] }],
    };
    const waited = await post(body, { wait: true });
    expect(waited.status).toBe(200);
    const message = await waited.json();
    expect(message).toMatchObject({
      id: expect.stringMatching(/^\d{17,19}$/),
      channel_id: webhook.channelId,
      webhook_id: webhook.id,
      content: "",
      embeds: [{ type: "rich", ...body.embeds[0] }],
      author: { id: webhook.id, username: "Spooks announcements", bot: true },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
    });
    expect(discord.messages(webhook.id).at(-1)).toMatchObject({ message, body, wait: true });
  });

  it("records allowed_mentions: with parse [] nobody is pinged; without it, everyone in the text is", async () => {
    const user = discord.createUser();
    const content = `@everyone the draw is done, congratulations <@${user.id}>`;
    await post({ content, allowed_mentions: { parse: [] } });
    expect(discord.messages().at(-1)).toMatchObject({
      allowedMentions: { parse: [] },
      mentions: { everyone: false, users: [], roles: [] },
    });
    const pinged = await (await post({ content }, { wait: true })).json();
    expect(discord.messages().at(-1)).toMatchObject({ allowedMentions: undefined, mentions: { everyone: true, users: [user.id] } });
    expect(pinged).toMatchObject({ mention_everyone: true, mentions: [{ id: user.id }] });
  });

  it("refuses allowed_mentions.parse values other than roles, users, everyone", async () => {
    const refused = await post({ content: "hi", allowed_mentions: { parse: ["here"] } });
    expect(await refused.json()).toMatchObject({
      code: 50035,
      errors: { allowed_mentions: { parse: { 0: { _errors: [{ code: "BASE_TYPE_CHOICES" }] } } } },
    });
  });

  it("works with @discordjs/rest (auth: false): a created message, and limits surfacing as DiscordAPIError 50035", async () => {
    const rest = new REST({ api: discord.apiUrl, version: "10" });
    const created = await rest.post(Routes.webhook(webhook.id, webhook.token), {
      auth: false,
      body: { content: "A proposal opened", allowed_mentions: { parse: [] } },
      query: makeURLSearchParams({ wait: true }),
    });
    expect(created).toMatchObject({ content: "A proposal opened", webhook_id: webhook.id });
    const error = await rest
      .post(Routes.webhook(webhook.id, webhook.token), { auth: false, body: { content: x(2001) } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ status: 400, code: 50035, message: expect.stringContaining("content[BASE_TYPE_MAX_LENGTH]") });
  });

  it("answers a wrong token 401 50027 and a deleted webhook 404 10015, counting the calls made after deletion", async () => {
    const doomed = discord.createWebhook();
    const wrongToken = await post({ content: "hi" }, { url: `${discord.apiUrl}/webhooks/${doomed.id}/${"y".repeat(68)}` });
    expect([wrongToken.status, await wrongToken.json()]).toEqual([401, { code: 50027, message: "Invalid Webhook Token" }]);
    discord.deleteWebhook(doomed.id);
    for (const url of [doomed.url, doomed.url.replace("/api/", "/api/v10/")]) {
      const gone = await post({ content: "hi" }, { url });
      expect([gone.status, await gone.json()]).toEqual([404, { code: 10015, message: "Unknown Webhook" }]);
    }
    expect(discord.stats().deletedWebhookCalls).toBe(2);
  });

  it("limits each webhook in its own bucket, with the rate-limit headers", async () => {
    const spare = await startDiscordDouble({ rateLimits: { webhook: { limit: 2, windowMs: 2_000 } } });
    try {
      const [a, b] = [spare.createWebhook(), spare.createWebhook()];
      const statuses: number[] = [];
      for (const hook of [a, a, a, b]) {
        const answer = await post({ content: "hi" }, { url: hook.url });
        expect(answer.headers.get("x-ratelimit-limit")).toBe("2");
        statuses.push(answer.status);
      }
      expect(statuses).toEqual([204, 204, 429, 204]);
    } finally {
      await spare.close();
    }
  });
});
