/**
 * Notifications over HTTP (issue 24 items 3, 8): the site's list for an address, and the admin's routes (the
 * deliveries with their answers, the channels, replay, send a test) against the Discord double. Every answer is
 * checked against the OpenAPI document by `ctx.call`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDiscordDouble, type DiscordDouble, type Webhook } from "../../doubles/discord/discord-double.server.ts";
import { discordChannel } from "../../indexer/notifications/discord-channel.server.ts";
import { runNotificationPass } from "../../indexer/notifications/worker.server.ts";
import { givePoints, minutesFromNow, newWallet, useApi } from "./support.ts";

const ctx = useApi();
let discord: DiscordDouble;
let webhook: Webhook;
const holder = newWallet();
const other = newWallet();

beforeAll(async () => {
  discord = await startDiscordDouble({ rateLimits: { webhook: { limit: 100, windowMs: 1000 } } });
  webhook = discord.createWebhook();
  ctx.server.context.config.notifications = { intervalS: 10, discordWebhookUrl: webhook.url };
});
afterAll(() => discord.close());

const admin = async () => ({ cookie: await ctx.adminCookie() });
const pass = () => runNotificationPass({ sql: ctx.sql, channels: [discordChannel({ webhookUrl: webhook.url })] });

describe("GET /api/notifications/{address}", () => {
  it("lists the public events and the address's own, newest first, by pages; another's personal events never", async () => {
    await givePoints(ctx.sql, holder.address, 25);
    await givePoints(ctx.sql, other.address, 5);
    const created = await ctx.call(
      "POST",
      "/api/giveaways",
      { title: "Lantern", description: "d", imageUrl: "/uploads/x.png", pointsCost: 1, endDate: minutesFromNow(3 * 24 * 60), winners: 1 },
      await admin(),
    );
    expect(created.status).toBe(201);
    const page = await ctx.call("GET", `/api/notifications/${holder.address}?limit=1`);
    expect(page.status).toBe(200);
    expect(page.body.entries).toEqual([
      expect.objectContaining({ event: "giveaway.opened", title: "New giveaway: Lantern", link: "/rewards" }),
    ]);
    const older = await ctx.call("GET", `/api/notifications/${holder.address}?cursor=${page.body.nextCursor}`);
    expect(older.body.entries.map((entry: { event: string }) => entry.event)).toContain("points.adjusted");
    const personal = older.body.entries.filter((entry: { event: string }) => entry.event === "points.adjusted");
    expect(personal.map((entry: { title: string }) => entry.title)).toEqual(["You received 25 points"]);
  });

  it("refuses a bad address, limit or cursor with 400 and a message", async () => {
    expect((await ctx.call("GET", "/api/notifications/nope")).status).toBe(400);
    expect((await ctx.call("GET", `/api/notifications/${holder.address}?limit=0`)).body).toEqual({ message: "limit must be at least 1" });
    expect((await ctx.call("GET", `/api/notifications/${holder.address}?cursor=abc`)).body).toEqual({
      message: "cursor must be the nextCursor of an earlier page",
    });
  });
});

describe("the admin's notification routes", () => {
  it("need the admin's session", async () => {
    expect((await ctx.call("GET", "/api/admin/notifications/deliveries")).status).toBe(401);
    expect((await ctx.call("POST", "/api/admin/notifications/test", { channel: "discord" })).status).toBe(401);
  });

  it("list the deliveries with the answer received, replay a failed one, and show a disabled channel", async () => {
    discord.deleteWebhook(webhook.id);
    await pass();
    const failed = await ctx.call("GET", "/api/admin/notifications/deliveries?failed=true&channel=discord", undefined, await admin());
    expect(failed.status).toBe(200);
    expect(failed.body.entries[0]).toMatchObject({ channel: "discord", state: "failed", lastStatusCode: 404 });
    expect(failed.body.entries[0].lastError).toContain("Unknown Webhook");
    const channels = await ctx.call("GET", "/api/admin/notifications/channels", undefined, await admin());
    expect(channels.body.find((row: { channel: string }) => row.channel === "discord")).toMatchObject({ configured: true });
    expect(channels.body.find((row: { channel: string }) => row.channel === "discord").disabledReason).toMatch(/webhook is gone/);
    expect(channels.body.find((row: { channel: string }) => row.channel === "webhook")).toMatchObject({ configured: true });

    // The admin points DISCORD_WEBHOOK_URL at a new webhook, sends a test, and replays the failed delivery.
    webhook = discord.createWebhook();
    ctx.server.context.config.notifications = { intervalS: 10, discordWebhookUrl: webhook.url };
    const test = await ctx.call("POST", "/api/admin/notifications/test", { channel: "discord" }, await admin());
    expect(test.body).toEqual({ channel: "discord", results: [{ target: "", outcome: "delivered", statusCode: 200, error: null }] });
    expect(discord.messages(webhook.id)[0].body.embeds).toEqual([expect.objectContaining({ title: "Test notification from Spooks" })]);

    const id = failed.body.entries[0].id;
    const replayed = await ctx.call("POST", `/api/admin/notifications/deliveries/${id}/replay`, undefined, await admin());
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ id, state: "pending" });
    await pass();
    expect(discord.messages(webhook.id).map((message) => (message.body.embeds as { title: string }[])[0].title)).toEqual([
      "Test notification from Spooks",
      failed.body.entries[0].title,
    ]);
    const [audit] = await ctx.sql`select action, target from audit_log where action = 'notifications.replay' order by id desc limit 1`;
    expect(audit).toEqual({ action: "notifications.replay", target: `delivery:${id}` });
  });

  it("refuse an unknown delivery (404), a channel not configured (409) and a bad channel (400)", async () => {
    expect((await ctx.call("POST", "/api/admin/notifications/deliveries/999999/replay", undefined, await admin())).status).toBe(404);
    expect((await ctx.call("POST", "/api/admin/notifications/test", { channel: "email" }, await admin())).body).toEqual({
      message: "The email channel is not configured (set SMTP_URL and MAIL_FROM)",
    });
    expect((await ctx.call("POST", "/api/admin/notifications/test", { channel: "pigeon" }, await admin())).status).toBe(400);
  });
});
