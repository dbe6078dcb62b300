/**
 * `approval.pending` (issue 35, item 4): a covered request's pending approval is announced in the transaction that
 * keeps it, posted to the Discord channel (the Discord double) and to the webhooks that ask for it, and never
 * emailed nor listed on the site's public notifications.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDiscordDouble, type DiscordDouble, type Webhook } from "../../doubles/discord/discord-double.server.ts";
import { proposeApproval } from "../../db/queries/approvals.server.ts";
import { notificationsFor } from "../../db/queries/notifications.server.ts";
import { createWebhook } from "../../db/queries/webhooks.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { testAddress } from "../test-support.ts";
import type { NotificationChannel } from "./channel.server.ts";
import { discordChannel } from "./discord-channel.server.ts";
import { emailChannel } from "./email-channel.server.ts";
import { webhookChannel } from "./webhook-channel.server.ts";
import { runNotificationPass } from "./worker.server.ts";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let discord: DiscordDouble;
let channelWebhook: Webhook;
const owner = testAddress("approval-owner");
const CLI = { kind: "cli" } as const;

beforeAll(async () => {
  db = await createTestDatabase();
  discord = await startDiscordDouble();
  channelWebhook = discord.createWebhook({ name: "Spooks admins" });
});
afterAll(async () => {
  await discord.close();
  await db.close();
});

const propose = (summary: string) =>
  proposeApproval(
    db.sql,
    {
      kind: "clear-points",
      operation: "clearPoints",
      input: { address: owner },
      summary,
      preview: { before: { points: 10 }, after: { points: 0 } },
      proposedBy: owner,
      ttlMs: 24 * 3_600_000,
    },
    { kind: "web", address: owner },
  );

describe("approval.pending", () => {
  it("is written with its approval, and not when the approval rolls back", async () => {
    const rolledBack = db.sql.begin(async (tx) => {
      await proposeApproval(
        tx,
        {
          kind: "boosts",
          operation: "setBoosts",
          input: {},
          summary: "Never",
          preview: { before: null, after: null },
          proposedBy: owner,
          ttlMs: 1000,
        },
        { kind: "web", address: owner },
      );
      throw new Error("roll back");
    });
    await expect(rolledBack).rejects.toThrow("roll back");
    expect(await db.sql`select 1 from notification_events where event = 'approval.pending'`).toHaveLength(0);
    const approval = await propose(`Clear the points of ${owner}`);
    const [event] = await db.sql`select recipient, title, body, link, data from notification_events where event = 'approval.pending'`;
    expect(event).toMatchObject({
      recipient: null,
      title: `Approval needed: action #${approval.id}`,
      link: "/admin",
      data: { approvalId: approval.id, action: "clear-points", summary: `Clear the points of ${owner}` },
    });
  });

  it("goes to the Discord channel and to the webhooks that ask for it; never by email, never on the public list", async () => {
    const asking = await createWebhook(db.sql, { url: "https://admins.example/hook", events: ["approval.pending"], actor: CLI });
    await createWebhook(db.sql, { url: "https://bot.example/hook", events: ["giveaway.opened"], actor: CLI });
    const member = testAddress("approval-member");
    await db.sql`
      insert into email_subscriptions (address, email, events, created_at, confirmed_at)
      values (${member}, 'admin@example.com', ${["approval.pending", "giveaway.opened"]}, now(), now())`;
    const mailer = { send: async () => ({ accepted: true as const }) } as unknown as Parameters<typeof emailChannel>[0]["mailer"];
    const channels: NotificationChannel[] = [
      discordChannel({ webhookUrl: channelWebhook.url, publicUrl: "https://spooks.example" }),
      // Fanned out only: the webhook's receiver is not called in this test (its deliveries stay pending).
      {
        ...webhookChannel({ allowPrivate: false }),
        deliver: async () => ({ outcome: "retry", retryAt: new Date(Date.now() + 3_600_000), error: "not sent in this test" }),
      },
      emailChannel({ mailer, publicUrl: "https://spooks.example" }),
    ];
    await runNotificationPass({ sql: db.sql, channels, leaseMs: 5000 });
    const deliveries = await db.sql<{ channel: string; target: string }[]>`
      select d.channel, d.target from notification_deliveries d join notification_events e on e.id = d.event_id
      where e.event = 'approval.pending' order by d.channel, d.target`;
    expect(deliveries).toEqual([
      { channel: "discord", target: "" },
      { channel: "webhook", target: String(asking.id) },
    ]);
    const [posted] = discord.messages(channelWebhook.id);
    const [embed] = (posted.body as { embeds: { title: string }[] }).embeds;
    expect(embed).toMatchObject({ url: "https://spooks.example/admin", footer: { text: "Spooks · approval.pending" } });
    expect(embed.title).toMatch(/^Approval needed: action #\d+$/);
    expect((await notificationsFor(db.sql, member)).entries.map((entry) => entry.event)).not.toContain("approval.pending");
  });
});
