/**
 * "A stake ended by a transfer → its email in the test receiver" (issue 24's figures), in two parts:
 * - the email channel alone: one `deliver()` of a `stake.ended` event to a confirmed subscriber, through SMTP
 *   to the mail double (smtp-server on loopback) until the double has the message, beside a bare nodemailer
 *   sendMail of the same message to the same double;
 * - the whole path in the real indexer service (`startIndexer`: its sync on node-cron, its notification
 *   worker): an item moved on the simulated wonky-ord, until its former staker's mail is in the receiver.
 *   The service's waits are its settings: here a sync every second and a worker pass every second; with the
 *   defaults (a sync a minute, NOTIFY_INTERVAL_S=10) add up to 60 s + 10 s.
 *
 *   node --import tsx bench/email-deliver.ts        (MAILS=200, TRANSFERS=20 to change)
 */
import nodemailer from "nodemailer";
import { pathToFileURL } from "node:url";
import { smtpMailer } from "../app/utils/mail.server.ts";
import { confirmEmail, issueLinkToken, subscribeEmail } from "../db/queries/email-subscriptions.server.ts";
import { startMailDouble } from "../doubles/mail/mail-double.server.ts";
import { emailChannel } from "../indexer/notifications/email-channel.server.ts";
import { addressOfPrivateKey, newPrivateKey } from "../app/domain/signature.ts";
import { withBenchDatabase } from "./bench-database.ts";
import type { Sql } from "../db/client.server.ts";
import type { Mailer } from "../app/utils/mail.server.ts";
import type { MailDouble } from "../doubles/mail/mail-double.server.ts";
import { silentLogger } from "../app/utils/logger.server.ts";
import { startIndexer } from "../indexer/service.server.ts";
import { startSimulatedChain } from "../indexer/simulated-chain.server.ts";
import { indexerConfig, seedItems } from "../indexer/test-support.ts";

const MAILS = Number(process.env.MAILS ?? 200);
const TRANSFERS = Number(process.env.TRANSFERS ?? 20);
const FROM = "Spooks <notifications@spooks.example>";

function summary(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return `${label.padEnd(50)} median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, mean ${mean.toFixed(1)} ms (${samples.length})`;
}

export async function run(): Promise<void> {
  const mail = await startMailDouble();
  const mailer = smtpMailer(mail.url, FROM);
  const bare = nodemailer.createTransport({ url: mail.url });
  try {
    await withBenchDatabase("email", 4, async (sql) => {
      const channel = emailChannel({ mailer, publicUrl: "https://spooks.example" });
      const ours: number[] = [];
      const baseline: number[] = [];
      for (let n = 0; n < MAILS; n += 1) {
        const address = addressOfPrivateKey(newPrivateKey());
        const subscription = await subscribeEmail(sql, { address, email: `h${n}@example.com`, events: ["stake.ended"] });
        await confirmEmail(sql, await issueLinkToken(sql, subscription.id, "confirm"));
        const [event] = await sql<{ id: number }[]>`
          insert into notification_events (event, subject, recipient, title, body, link)
          values ('stake.ended', ${`bench-${n}`}, ${address}, 'Your stake of Spooks #12 ended', 'Spooks #12 moved to another wallet.', '/rewards/history')
          returning id`;
        const [delivery] = await sql<{ id: number; createdAt: Date }[]>`
          insert into notification_deliveries (event_id, channel, target) values (${event.id}, 'email', ${String(subscription.id)})
          returning id, created_at`;
        const outbox = {
          id: event.id,
          event: "stake.ended" as const,
          subject: `bench-${n}`,
          recipient: address,
          occurredAt: new Date(),
          title: "Your stake of Spooks #12 ended",
          body: "Spooks #12 moved to another wallet.",
          link: "/rewards/history",
          data: {},
        };
        const before = mail.received.length;
        let started = performance.now();
        const result = await channel.deliver(sql, outbox, {
          id: delivery.id,
          target: String(subscription.id),
          attempts: 0,
          createdAt: delivery.createdAt,
        });
        await mail.waitFor(before + 1);
        ours.push(performance.now() - started);
        if (result.outcome !== "delivered") throw new Error(`not delivered: ${JSON.stringify(result)}`);

        started = performance.now();
        await bare.sendMail({ from: FROM, to: `b${n}@example.com`, subject: outbox.title, text: outbox.body });
        await mail.waitFor(before + 2);
        baseline.push(performance.now() - started);
      }
      // The first few warm up connections and JIT: left out of both.
      const warm = Math.min(10, Math.floor(MAILS / 10));
      console.log(summary("email channel deliver() → in the receiver", ours.slice(warm)));
      console.log(summary("baseline: bare nodemailer sendMail", baseline.slice(warm)));
    });
    await withBenchDatabase("email-transfer", 4, (sql) => transferToEmail(sql, mail, mailer));
  } finally {
    mailer.close();
    bare.close();
    await mail.close();
  }
}

/**
 * TRANSFERS wallets, each staking one item with a confirmed subscription (one each: at most 3 personal mails a
 * day per wallet); each item is moved in turn and timed until its mail is in the receiver.
 */
async function transferToEmail(sql: Sql, mail: MailDouble, mailer: Mailer): Promise<void> {
  const items = await seedItems(sql, TRANSFERS);
  const stakers = items.map(() => addressOfPrivateKey(newPrivateKey()));
  const chain = await startSimulatedChain({ owners: new Map(items.map((item, index) => [item.inscriptionId, stakers[index]])) });
  const newOwner = addressOfPrivateKey(newPrivateKey());
  const config = {
    ...indexerConfig({ syncCron: "* * * * * *" }),
    ordUrl: chain.url,
    notifications: { intervalS: 1, discordWebhookUrl: undefined },
  };
  const indexer = await startIndexer({
    sql,
    config,
    logger: silentLogger,
    channels: [emailChannel({ mailer, publicUrl: "https://spooks.example" })],
  });
  try {
    await indexer.ready;
    for (const [index, item] of items.entries()) {
      const subscription = await subscribeEmail(sql, {
        address: stakers[index],
        email: `t${index}@example.com`,
        events: ["stake.ended"],
      });
      await confirmEmail(sql, await issueLinkToken(sql, subscription.id, "confirm"));
      await sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${stakers[index]}, now())`;
    }
    const samples: number[] = [];
    for (const [index, item] of items.entries()) {
      const before = mail.received.length;
      const started = performance.now();
      chain.transfer(item.inscriptionId, newOwner);
      await mail.waitFor(before + 1, 120_000);
      samples.push(performance.now() - started);
      const to = mail.received.at(-1)?.to;
      if (!String(to).includes(`t${index}@example.com`)) throw new Error(`the mail went to ${String(to)}, not t${index}@example.com`);
    }
    console.log(summary("transfer → its email, whole service (1 s ticks)", samples));
  } finally {
    await indexer.stop();
    await chain.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await run();
