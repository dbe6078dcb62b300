/**
 * The notification worker's throughput (issue 24 "Figures"): 1,000 queued events fanned out and delivered by the
 * real worker (indexer/notifications/worker.server.ts: claims with a lease in a transaction, sends, records each
 * result) to a local receiver on loopback, beside a bare `fetch` loop posting the same 1,000 bodies to the same
 * receiver; then the same through the Discord channel to the Discord double (its webhook bucket made roomy).
 *
 *   node --import tsx bench/notifications.ts        (EVENTS=1000, TARGETS=1 to change)
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import type { Sql } from "../db/client.server.ts";
import { notify } from "../db/queries/notifications.server.ts";
import { startDiscordDouble } from "../doubles/discord/discord-double.server.ts";
import type { NotificationChannel } from "../indexer/notifications/channel.server.ts";
import { discordChannel } from "../indexer/notifications/discord-channel.server.ts";
import { webhookChannel } from "../indexer/notifications/webhook-channel.server.ts";
import { createWebhook } from "../db/queries/webhooks.server.ts";
import { runNotificationPass } from "../indexer/notifications/worker.server.ts";
import { withBenchDatabase } from "./bench-database.ts";

const EVENTS = Number(process.env.EVENTS ?? 1000);
const TARGETS = Number(process.env.TARGETS ?? 1);

async function startReceiver(): Promise<{ url: string; received: () => number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A channel posting each delivery as a JSON body with its id as `webhook-id` (what a signed webhook sends, unsigned). */
function receiverChannel(url: string): NotificationChannel {
  return {
    name: "webhook",
    repeatsAreIdempotent: true,
    targets: async () => Array.from({ length: TARGETS }, (_, n) => `t${n}`),
    async deliver(_sql, event, delivery) {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "webhook-id": `msg_${delivery.id}` },
        body: JSON.stringify({ type: event.event, timestamp: event.occurredAt.toISOString(), data: event.data }),
      });
      await response.body?.cancel();
      return response.ok
        ? { outcome: "delivered", statusCode: response.status }
        : { outcome: "failed", statusCode: response.status, error: "no" };
    },
  };
}

async function queue(sql: Sql, label: string): Promise<void> {
  await sql`delete from notification_events`;
  const events = Array.from({ length: EVENTS }, (_, n) => ({
    event: "giveaway.opened" as const,
    subject: `${label}-${n}`,
    title: `Bench giveaway ${n}`,
    body: "Enter with 5 points a ticket until 2031-01-01 00:00 UTC.",
    link: "/rewards",
    data: { giveawayId: n, title: `Bench giveaway ${n}`, pointsCost: 5 },
  }));
  await sql.begin((tx) => notify(tx, events));
}

async function drain(sql: Sql, channels: NotificationChannel[]): Promise<{ ms: number; delivered: number }> {
  const started = performance.now();
  let delivered = 0;
  for (;;) {
    const summary = await runNotificationPass({ sql, channels });
    delivered += summary.delivered;
    if (summary.delivered + summary.retried === 0) break;
  }
  return { ms: performance.now() - started, delivered };
}

const perSecond = (count: number, ms: number) => `${Math.round((count / ms) * 1000).toLocaleString("en-US")}/s`;

export async function run(): Promise<void> {
  await withBenchDatabase("notify", 4, async (sql) => {
    const receiver = await startReceiver();
    try {
      // Baseline: a bare fetch loop, one request after another, as the worker sends one target's deliveries.
      const body = JSON.stringify({ type: "giveaway.opened", timestamp: new Date().toISOString(), data: { giveawayId: 1 } });
      const started = performance.now();
      for (let n = 0; n < EVENTS * TARGETS; n++) {
        const response = await fetch(receiver.url, {
          method: "POST",
          headers: { "content-type": "application/json", "webhook-id": `msg_${n}` },
          body,
        });
        await response.body?.cancel();
      }
      const bareMs = performance.now() - started;
      console.log(`bare fetch loop        ${EVENTS * TARGETS} posts in ${bareMs.toFixed(0)} ms: ${perSecond(EVENTS * TARGETS, bareMs)}`);

      await queue(sql, "receiver");
      const worker = await drain(sql, [receiverChannel(receiver.url)]);
      console.log(
        `worker → receiver      ${worker.delivered} deliveries (${EVENTS} events × ${TARGETS} target${TARGETS === 1 ? "" : "s"}) in ${worker.ms.toFixed(0)} ms: ` +
          `${perSecond(worker.delivered, worker.ms)} (fan-out, claim, send, record each; ${(bareMs / worker.ms).toFixed(2)}× the bare loop's rate)`,
      );

      // The signed webhooks channel itself (endpoint read, Standard Webhooks signature, the guarded POST) to one endpoint.
      await sql`delete from notification_deliveries`;
      await createWebhook(sql, { url: receiver.url, events: ["giveaway.opened"], actor: { kind: "system" } });
      await queue(sql, "webhook");
      const signed = await drain(sql, [webhookChannel({ allowPrivate: true })]);
      console.log(
        `worker → webhook channel ${signed.delivered} signed deliveries in ${signed.ms.toFixed(0)} ms: ${perSecond(signed.delivered, signed.ms)} ` +
          `(${(bareMs / signed.ms).toFixed(2)}× the bare loop's rate; target ≥ 0.8×)`,
      );
    } finally {
      await receiver.close();
    }

    const discord = await startDiscordDouble({ rateLimits: { webhook: { limit: 1_000_000, windowMs: 1000 } }, globalPerSecond: 1_000_000 });
    try {
      const webhook = discord.createWebhook();
      await sql`delete from notification_deliveries`;
      await queue(sql, "discord");

      const posted = await drain(sql, [discordChannel({ webhookUrl: webhook.url })]);
      console.log(
        `worker → Discord double ${posted.delivered} posts in ${posted.ms.toFixed(0)} ms: ${perSecond(posted.delivered, posted.ms)} ` +
          "(Discord itself allows about 5 posts per 2 s per webhook: a real channel takes ~7 min for 1,000 events)",
      );
    } finally {
      await discord.close();
    }
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await run();
