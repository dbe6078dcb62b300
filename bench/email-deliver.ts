/**
 * The email channel's share of "a stake ended by a transfer → its email in the test receiver" (issue 24's
 * figures): one `deliver()` of a `stake.ended` event to a confirmed subscriber, through SMTP to the mail
 * double (smtp-server on loopback) until the double has the message, beside a bare nodemailer sendMail of the
 * same message to the same double. The outbox write at the transfer and the worker's wait (NOTIFY_INTERVAL_S)
 * come on top; the whole path is measured after the worker is merged.
 *
 *   node --import tsx bench/email-deliver.ts        (MAILS=200 to change)
 */
import nodemailer from "nodemailer";
import { pathToFileURL } from "node:url";
import { smtpMailer } from "../app/utils/mail.server.ts";
import { confirmEmail, subscribeEmail } from "../db/queries/email-subscriptions.server.ts";
import { startMailDouble } from "../doubles/mail/mail-double.server.ts";
import { emailChannel } from "../indexer/notifications/email-channel.server.ts";
import { addressOfPrivateKey, newPrivateKey } from "../app/domain/signature.ts";
import { withBenchDatabase } from "./bench-database.ts";

const MAILS = Number(process.env.MAILS ?? 200);
const FROM = "Spooks <notifications@spooks.example>";

function summary(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return `${label.padEnd(44)} median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, mean ${mean.toFixed(1)} ms (${samples.length})`;
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
        const { subscription, confirmToken } = await subscribeEmail(sql, { address, email: `h${n}@example.com`, events: ["stake.ended"] });
        await confirmEmail(sql, confirmToken);
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
  } finally {
    mailer.close();
    bare.close();
    await mail.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await run();
