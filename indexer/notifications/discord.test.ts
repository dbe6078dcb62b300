/**
 * The worker and the Discord channel (issue 24 items 1, 4, 7) against the Discord double (doubles/discord): each
 * public event posted once as an embed with `?wait=true`, mentioning nobody, within the limits; a 429 waited out
 * by its Retry-After; a 404 disables the channel (no more calls) and says why; the timing with a short interval.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { now } from "../../app/domain/clock.ts";
import { startDiscordDouble, type DiscordDouble, type Webhook } from "../../doubles/discord/discord-double.server.ts";
import { createGiveaway } from "../../db/queries/giveaways.server.ts";
import { channelState, notify } from "../../db/queries/notifications.server.ts";
import { addPoints } from "../../db/queries/points.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { testAddress } from "../test-support.ts";
import { discordChannel, DISCORD_LIMITS, truncate } from "./discord-channel.server.ts";
import { runNotificationPass, startNotificationWorker } from "./worker.server.ts";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let discord: DiscordDouble;
let webhook: Webhook;
let run = 0;
const CLI = { kind: "cli" } as const;

beforeAll(async () => {
  db = await createTestDatabase();
  discord = await startDiscordDouble({ rateLimits: { webhook: { limit: 100, windowMs: 1000 } } });
});
afterAll(async () => {
  await discord.close();
  await db.close();
});
beforeEach(async () => {
  run += 1;
  webhook = discord.createWebhook({ name: `Spooks ${run}` });
  discord.clearRecords();
  discord.resetStats();
  // Each test starts with an empty outbox (events of earlier tests are delivered or failed already).
  await db.owner.sql`delete from notification_events`;
  await db.owner.sql`delete from notification_channel_state`;
});
afterEach(() => {});

const channel = () => discordChannel({ webhookUrl: webhook.url, publicUrl: "https://spooks.example" });
const pass = (channels = [channel()]) => runNotificationPass({ sql: db.sql, channels, leaseMs: 5000 });
const giveaway = (title: string) =>
  createGiveaway(
    db.sql,
    { title, description: "d", imageUrl: "/uploads/x.png", pointsCost: 5, endDate: new Date(now().getTime() + 72 * 3_600_000), winners: 1 },
    CLI,
  );

async function deliveries() {
  return db.sql<{ state: string; attempts: number; lastStatusCode: number | null; lastError: string | null; nextAttemptAt: Date }[]>`
    select state, attempts, last_status_code, last_error, next_attempt_at from notification_deliveries order by id`;
}

describe("the Discord channel", () => {
  it("posts every public event once as an embed (wait=true, mentioning nobody) and no personal one", async () => {
    const created = await giveaway("Haunted <@everyone> Hoodie");
    await addPoints(db.sql, { address: testAddress(`discord-${run}`), points: 3, actor: CLI });
    const summary = await pass();
    expect(summary).toMatchObject({ fannedOut: 2, delivered: 1, failed: 0 });
    await pass(); // nothing more
    const posted = discord.messages(webhook.id);
    expect(posted).toHaveLength(1);
    expect(posted[0].wait).toBe(true);
    expect(posted[0].allowedMentions).toEqual({ parse: [] });
    expect(posted[0].mentions).toMatchObject({ everyone: false });
    expect(posted[0].body.embeds).toEqual([
      expect.objectContaining({
        title: "New giveaway: Haunted <@everyone> Hoodie",
        url: "https://spooks.example/rewards",
        footer: { text: "Spooks · giveaway.opened" },
      }),
    ]);
    expect(await deliveries()).toEqual([expect.objectContaining({ state: "delivered", attempts: 1, lastStatusCode: 200 })]);
    expect(created.id).toBeGreaterThan(0);
  });

  it("keeps every embed within Discord's limits (the double refuses one character more)", async () => {
    const long = "👻".repeat(3000);
    await notify(db.sql, [{ event: "giveaway.opened", subject: `long-${run}`, title: long, body: long + long, link: "/rewards" }]);
    expect(await pass()).toMatchObject({ delivered: 1, failed: 0 });
    const [embed] = discord.messages(webhook.id)[0].body.embeds as { title: string; description: string }[];
    expect(embed.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.title);
    expect(embed.description.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    expect(embed.title.endsWith("…")).toBe(true);
    expect(truncate("a👻b", 3)).toBe("a…"); // never half of a surrogate pair
  });

  it("waits out a 429 by its Retry-After, then posts once; no request is refused twice", async () => {
    await giveaway("Rate limited");
    discord.failNext("POST /webhooks/{webhook}/{token}", { status: 429, retryAfter: 0.4 });
    const started = Date.now();
    expect(await pass()).toMatchObject({ delivered: 0, retried: 1 });
    const [waiting] = await deliveries();
    expect(waiting).toMatchObject({ state: "retrying", lastStatusCode: 429 });
    expect(waiting.nextAttemptAt.getTime() - started).toBeGreaterThanOrEqual(1000); // Retry-After: 1 (whole seconds)
    expect(await pass()).toMatchObject({ delivered: 0 }); // not due yet: no call
    await new Promise((resolve) => setTimeout(resolve, waiting.nextAttemptAt.getTime() - Date.now() + 50));
    expect(await pass()).toMatchObject({ delivered: 1 });
    expect(discord.messages(webhook.id)).toHaveLength(1);
    expect(Math.max(...Object.values(discord.stats().refusals))).toBeLessThanOrEqual(1);
  });

  it("a 404 (the webhook was deleted) disables the channel, tells why, and calls it no more", async () => {
    discord.deleteWebhook(webhook.id);
    await giveaway("Gone one");
    await giveaway("Gone two");
    const summary = await pass();
    expect(summary).toMatchObject({ delivered: 0, failed: 2 });
    const rows = await deliveries();
    expect(rows[0]).toMatchObject({ state: "failed", lastStatusCode: 404 });
    expect(rows[0].lastError).toContain("10015");
    expect(rows[1]).toMatchObject({ state: "failed" });
    expect(rows[1].lastError).toMatch(/^The Discord channel is disabled: Discord answered 404/);
    expect(discord.requests().filter((request) => request.status === 404)).toHaveLength(1);
    const state = await channelState(db.sql, "discord");
    expect(state?.disabledReason).toMatch(/webhook is gone/);
    // Another URL (a new DISCORD_WEBHOOK_URL) is not disabled.
    webhook = discord.createWebhook({ name: "New one" });
    expect(await channel().disabled(db.sql)).toBeNull();
  });

  it("posts within the interval of its cause (item 7: within 60 s; here a 200 ms interval)", async () => {
    const worker = startNotificationWorker({ sql: db.sql, channels: [channel()], intervalMs: 200, leaseMs: 5000 });
    try {
      // Timed from a running worker: its first pass done (a wake answers once the passes queued before it have run).
      await worker.wake();
      const caused = Date.now();
      await giveaway("Timed");
      while (discord.messages(webhook.id).length === 0 && Date.now() - caused < 10_000)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const postedAt = discord.messages(webhook.id)[0].at;
      expect(postedAt - caused).toBeLessThan(200 + 1500);
      // closing_soon: raised by the pass once 24 h before the end has come (item 7: within 5 minutes of its time).
      const endsAt = Date.now() + 24 * 3_600_000 + 600;
      await createGiveaway(
        db.sql,
        { title: "Soon", description: "d", imageUrl: "/uploads/x.png", pointsCost: 5, endDate: new Date(endsAt), winners: 1 },
        CLI,
      );
      const due = endsAt - 24 * 3_600_000;
      const soon = () =>
        discord.messages(webhook.id).find((message) => JSON.stringify(message.body).includes("Giveaway closing soon: Soon"));
      while (!soon() && Date.now() - due < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(soon()!.at).toBeGreaterThanOrEqual(due);
      expect(soon()!.at - due).toBeLessThan(200 + 1500);
    } finally {
      await worker.stop();
    }
  });
});
