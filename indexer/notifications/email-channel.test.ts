/**
 * The email channel (issue 24, item 6) through its contract, against the mail double (smtp-server on
 * loopback): consent and confirmation gate every mail, one-click unsubscribe headers, 4xx retried, 5xx
 * bounces (three unsubscribe), the daily limit, DKIM over both list headers, demo mode's capture.
 */
import { createHash, generateKeyPairSync } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EMAIL_RETRY_DELAYS_MS } from "../../app/domain/email-notifications.ts";
import { hasControlCharacters } from "../../app/domain/terminal-text.ts";
import type { NotificationEventName } from "../../app/domain/notifications.ts";
import { captureMailer, smtpMailer, type Mailer } from "../../app/utils/mail.server.ts";
import {
  confirmEmail,
  findSubscription,
  issueLinkToken,
  subscribeEmail,
  unsubscribeEmail,
} from "../../db/queries/email-subscriptions.server.ts";
import { startMailDouble, type MailDouble } from "../../doubles/mail/mail-double.server.ts";
import { newWallet } from "../../tests/api/support.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { attempt, deliveryRow, fanOut, insertEvent } from "./channel-test-support.ts";
import { emailChannel } from "./email-channel.server.ts";
import { sendTestNotification } from "./test-send.server.ts";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let mail: MailDouble;
let mailer: Mailer;
const FROM = "Spooks <notifications@spooks.example>";
const T0 = new Date("2026-11-01T18:00:00.000Z");
let clock = T0;

beforeAll(async () => {
  db = await createTestDatabase();
  mail = await startMailDouble();
  mailer = smtpMailer(mail.url, FROM);
});
afterAll(async () => {
  mailer?.close();
  await mail?.close();
  await db?.close();
});
beforeEach(() => {
  mail.received.length = 0;
  clock = T0;
});

const channel = (options: { mailer?: Mailer } = {}) =>
  emailChannel({ mailer: options.mailer ?? mailer, publicUrl: "https://spooks.example", now: () => clock });

let mailboxes = 0;
async function subscriber(events: NotificationEventName[] = ["giveaway.won", "stake.ended", "points.adjusted"], confirmed = true) {
  mailboxes += 1;
  const address = newWallet().address;
  const email = `holder${mailboxes}@example.com`;
  const subscription = await subscribeEmail(db.sql, { address, email, events });
  // What opening the link of a sent confirmation does (the token is made when the mail goes out).
  if (confirmed) await confirmEmail(db.sql, await issueLinkToken(db.sql, subscription.id, "confirm"));
  const unsubscribeToken = await issueLinkToken(db.sql, subscription.id, "unsubscribe");
  return { ...subscription, address, email, unsubscribeToken };
}

const personal = (recipient: string, event: NotificationEventName = "stake.ended") =>
  insertEvent(db.sql, {
    event,
    recipient,
    title: "Your stake of Spooks #12 ended",
    body: "Spooks #12 moved to another wallet.",
    link: "/rewards/history",
  });

describe("email channel", () => {
  it("issue 33: the admin's test goes to the sender's own mailbox (MAIL_FROM), captured in demo mode; no subscriber gets it", async () => {
    await subscriber();
    const capture = captureMailer(FROM, db.sql);
    const withTest = emailChannel({ mailer: capture, publicUrl: "https://spooks.example", testRecipient: FROM, now: () => clock });
    const [result] = await sendTestNotification(db.sql, [withTest], "email");
    expect(result).toMatchObject({ target: "test", outcome: "delivered", statusCode: 250 });
    const captured = await db.sql<
      { recipient: string; subject: string }[]
    >`select recipient, subject from captured_mail order by id desc limit 1`;
    expect(captured).toEqual([{ recipient: FROM, subject: "Test notification from Spooks" }]);
    // Without a sender to write to, the channel has no test target.
    await expect(sendTestNotification(db.sql, [channel()], "email")).rejects.toThrow(/no target/);
  });

  it("goes only to confirmed, subscribed mailboxes that asked for the event; a personal one only to its wallet's", async () => {
    const alice = await subscriber(["stake.ended", "giveaway.opened"]);
    const bob = await subscriber(["stake.ended"]);
    const unconfirmed = await subscriber(["stake.ended", "giveaway.opened"], false);
    const gone = await subscriber(["giveaway.opened"]);
    await unsubscribeEmail(db.sql, gone.unsubscribeToken);
    expect(await channel().targets(db.sql, await personal(alice.address))).toEqual([String(alice.id)]);
    expect(await channel().targets(db.sql, await personal(unconfirmed.address))).toEqual([]);
    const opened = await insertEvent(db.sql, { event: "giveaway.opened" });
    const targets = await channel().targets(db.sql, opened);
    expect(targets).toContain(String(alice.id));
    expect(targets).not.toContain(String(bob.id));
    expect(targets).not.toContain(String(unconfirmed.id));
    expect(targets).not.toContain(String(gone.id));
  });

  it("sends the event with RFC 8058 one-click unsubscribe: exactly one https List-Unsubscribe and List-Unsubscribe-Post", async () => {
    const alice = await subscriber();
    const event = await personal(alice.address);
    const [id] = await fanOut(db.sql, channel(), event, T0);
    const result = await attempt(db.sql, channel(), event, id, T0);
    expect(result).toEqual({ outcome: "delivered", statusCode: 250 });
    const [message] = await mail.waitFor(1);
    expect(message.to).toEqual([alice.email]);
    expect(message.from).toBe("notifications@spooks.example");
    expect(message.parsed.subject).toBe("Your stake of Spooks #12 ended");
    expect(message.parsed.text).toContain("Spooks #12 moved to another wallet.");
    expect(message.parsed.text).toContain("https://spooks.example/rewards/history");
    // The header section, long lines unfolded (RFC 5322 folding is whitespace, not content).
    const headerLines = message.raw
      .split(/\r?\n\r?\n/, 1)[0]
      .replace(/\r?\n(?=[ \t])/g, "")
      .split(/\r?\n/);
    const listUnsubscribe = headerLines.filter((line) => /^list-unsubscribe:/i.test(line));
    expect(listUnsubscribe).toHaveLength(1);
    const token = /^List-Unsubscribe: <https:\/\/spooks\.example\/api\/notifications\/email\/unsubscribe\/([A-Za-z0-9_-]{43})>$/.exec(
      listUnsubscribe[0],
    )?.[1];
    expect(token).toBeDefined();
    // The mail's own token, kept only as its SHA-256: it unsubscribes the subscription, and is nowhere in the database.
    const stored = await db.sql`
      select kind from email_link_tokens where subscription_id = ${alice.id} and token_sha256 = ${createHash("sha256").update(token!).digest("hex")}`;
    expect(stored).toEqual([{ kind: "unsubscribe" }]);
    const dump =
      JSON.stringify(await db.sql`select * from email_link_tokens`) + JSON.stringify(await db.sql`select * from email_subscriptions`);
    expect(dump).not.toContain(token);
    expect(headerLines.filter((line) => /^list-unsubscribe-post:/i.test(line))).toEqual([
      "List-Unsubscribe-Post: List-Unsubscribe=One-Click",
    ]);
    // The text links to the site's own unsubscribe page (issue 33, item 9); the header keeps the one-click URL.
    expect(message.parsed.text).toContain(`https://spooks.example/email/unsubscribe/${token}`);
  });

  it("retries an SMTP 4xx later and an unreachable server; delivers when it accepts", async () => {
    const alice = await subscriber();
    const event = await personal(alice.address);
    const [id] = await fanOut(db.sql, channel(), event, T0);
    mail.refuseRecipient(alice.email, 451, 1);
    const soft = await attempt(db.sql, channel(), event, id, T0);
    expect(soft).toMatchObject({ outcome: "retry", statusCode: 451, retryAt: new Date(T0.getTime() + EMAIL_RETRY_DELAYS_MS[0]) });
    if (soft.outcome !== "retry") throw new Error("unreachable");
    expect(soft.error).toMatch(/^SMTP 451/);
    const down = smtpMailer("smtp://127.0.0.1:9", FROM, undefined, { connectionMs: 2000 });
    const unreachable = await attempt(db.sql, channel({ mailer: down }), event, id, T0);
    expect(unreachable).toMatchObject({ outcome: "retry", retryAt: new Date(T0.getTime() + EMAIL_RETRY_DELAYS_MS[1]) });
    expect(unreachable.statusCode).toBeUndefined();
    expect(await attempt(db.sql, channel(), event, id, T0)).toMatchObject({ outcome: "delivered" });
    expect(await mail.waitFor(1)).toHaveLength(1);
    expect(await deliveryRow(db.sql, id)).toMatchObject({ state: "delivered", attempts: 3 });
  });

  it("keeps an SMTP server's answer without the escape sequences and control characters it sent (issue 32, item 3)", async () => {
    // smtp-server (the double) cleans its own replies; a server out there need not: one that answers RCPT with escapes.
    const hostile = net.createServer((socket) => {
      socket.write("220 hostile.example ESMTP\r\n");
      socket.on("data", (data: Buffer) => {
        for (const line of data.toString("latin1").split("\r\n").filter(Boolean)) {
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === "EHLO" || verb === "HELO") socket.write("250 hostile.example\r\n");
          else if (verb === "MAIL") socket.write("250 OK\r\n");
          else if (verb === "RCPT")
            socket.write("451 \u001b]0;owned\u0007\u001b]52;c;ZXZpbA==\u0007\u001b[31mbusy\u001b[0m\u009b2J now\r\n");
          else if (verb === "QUIT") socket.end("221 bye\r\n");
          else socket.write("250 OK\r\n");
        }
      });
    });
    await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
    const hostileMailer = smtpMailer(`smtp://127.0.0.1:${(hostile.address() as net.AddressInfo).port}`, FROM);
    try {
      const alice = await subscriber();
      const event = await personal(alice.address);
      const [id] = await fanOut(db.sql, channel(), event, T0);
      expect(await attempt(db.sql, channel({ mailer: hostileMailer }), event, id, T0)).toMatchObject({ outcome: "retry", statusCode: 451 });
      const row = await deliveryRow(db.sql, id);
      expect(row.lastError).toMatch(/^SMTP .*451 busy now/);
      expect(hasControlCharacters(row.lastError ?? "")).toBe(false);
    } finally {
      hostileMailer.close();
      await new Promise<void>((resolve) => hostile.close(() => resolve()));
    }
  });

  it("counts a 5xx as a hard bounce; the third unsubscribes the address and skips its waiting mail", async () => {
    const alice = await subscriber();
    mail.refuseRecipient(alice.email, 550);
    const waiting = await personal(alice.address, "points.adjusted");
    const [waitingId] = await fanOut(db.sql, channel(), waiting, T0);
    for (const bounce of [1, 2, 3]) {
      const event = await personal(alice.address);
      const [id] = await fanOut(db.sql, channel(), event, T0);
      const result = await attempt(db.sql, channel(), event, id, T0);
      expect(result).toMatchObject({ outcome: "failed", statusCode: 550 });
      if (result.outcome !== "failed") throw new Error("unreachable");
      expect(result.error).toContain(bounce === 3 ? "hard bounce 3: unsubscribed" : `hard bounce ${bounce} of 3`);
    }
    expect(await findSubscription(db.sql, alice.id)).toMatchObject({ hardBounces: 3, unsubscribeReason: "bounced" });
    expect(await deliveryRow(db.sql, waitingId)).toMatchObject({ state: "skipped" });
    expect(await channel().targets(db.sql, await personal(alice.address))).toEqual([]);
    expect(mail.received).toHaveLength(0);
  });

  it("a DATA refused with 5xx is a bounce too; one accepted mail clears the count", async () => {
    const alice = await subscriber();
    const first = await personal(alice.address);
    const [firstId] = await fanOut(db.sql, channel(), first, T0);
    mail.refuseData(554);
    expect(await attempt(db.sql, channel(), first, firstId, T0)).toMatchObject({ outcome: "failed", statusCode: 554 });
    expect((await findSubscription(db.sql, alice.id))?.hardBounces).toBe(1);
    const second = await personal(alice.address);
    const [secondId] = await fanOut(db.sql, channel(), second, T0);
    expect(await attempt(db.sql, channel(), second, secondId, T0)).toMatchObject({ outcome: "delivered" });
    expect((await findSubscription(db.sql, alice.id))?.hardBounces).toBe(0);
  });

  it("sends nothing more once unsubscribed, even a delivery already made", async () => {
    const alice = await subscriber();
    const event = await personal(alice.address);
    const [id] = await fanOut(db.sql, channel(), event, T0);
    await unsubscribeEmail(db.sql, alice.unsubscribeToken);
    expect(await deliveryRow(db.sql, id)).toMatchObject({ state: "skipped", lastError: "Unsubscribed" });
    expect(await channel().deliver(db.sql, event, { id, target: String(alice.id), attempts: 0, createdAt: T0 })).toEqual({
      outcome: "failed",
      error: "Unsubscribed",
    });
    expect(mail.received).toHaveLength(0);
  });

  it("holds a fourth personal email in 24 hours until the first is a day old; giveaway.won always goes", async () => {
    const alice = await subscriber();
    const sentAt: Date[] = [];
    for (const hour of [0, 1, 2]) {
      clock = new Date(T0.getTime() + hour * 3_600_000);
      const event = await personal(alice.address, hour === 1 ? "points.adjusted" : "stake.ended");
      const [id] = await fanOut(db.sql, channel(), event, clock);
      expect(await attempt(db.sql, channel(), event, id, clock)).toMatchObject({ outcome: "delivered" });
      sentAt.push(clock);
    }
    clock = new Date(T0.getTime() + 3 * 3_600_000);
    const fourth = await personal(alice.address);
    const [fourthId] = await fanOut(db.sql, channel(), fourth, clock);
    const held = await attempt(db.sql, channel(), fourth, fourthId, clock);
    expect(held).toMatchObject({ outcome: "retry", retryAt: new Date(sentAt[0].getTime() + 24 * 3_600_000 + 1000) });
    const won = await personal(alice.address, "giveaway.won");
    const [wonId] = await fanOut(db.sql, channel(), won, clock);
    expect(await attempt(db.sql, channel(), won, wonId, clock)).toMatchObject({ outcome: "delivered" });
    clock = new Date(sentAt[0].getTime() + 24 * 3_600_000 + 1000);
    // Still three in the last 24 h (hours 1, 2 and the win at 3): held again, until hour 25.
    const again = await attempt(db.sql, channel(), fourth, fourthId, clock);
    expect(again).toMatchObject({ outcome: "retry", retryAt: new Date(sentAt[1].getTime() + 24 * 3_600_000 + 1000) });
    clock = new Date(sentAt[1].getTime() + 24 * 3_600_000 + 1000);
    expect(await attempt(db.sql, channel(), fourth, fourthId, clock)).toMatchObject({ outcome: "delivered" });
    expect(mail.received).toHaveLength(5);
  });

  it("DKIM-signs with both list headers among the signed ones", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const signing = smtpMailer(mail.url, FROM, {
      domainName: "spooks.example",
      keySelector: "mail",
      privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    });
    try {
      const alice = await subscriber();
      const event = await personal(alice.address);
      const [id] = await fanOut(db.sql, channel(), event, T0);
      expect(await attempt(db.sql, channel({ mailer: signing }), event, id, T0)).toMatchObject({ outcome: "delivered" });
      const [message] = await mail.waitFor(1);
      const unfolded = message.raw.replace(/\r?\n[ \t]+/g, " ");
      const header = /^DKIM-Signature: (.*)$/im.exec(unfolded)?.[1] ?? "";
      expect(header).toContain("d=spooks.example");
      expect(header).toContain("s=mail");
      const signed = (/(?:^|;\s*)h=([^;]+)/.exec(header)?.[1] ?? "").replace(/\s/g, "").toLowerCase().split(":");
      expect(signed).toContain("list-unsubscribe");
      expect(signed).toContain("list-unsubscribe-post");
    } finally {
      signing.close();
    }
  });

  it("in demo mode captures the mail, headers and all, instead of sending it", async () => {
    const capture = captureMailer(FROM, db.sql);
    const alice = await subscriber();
    const event = await personal(alice.address);
    const [id] = await fanOut(db.sql, channel(), event, T0);
    expect(await attempt(db.sql, channel({ mailer: capture }), event, id, T0)).toMatchObject({ outcome: "delivered" });
    expect(mail.received).toHaveLength(0);
    const [captured] = await db.sql`select recipient, subject, headers, text_body from captured_mail order by id desc limit 1`;
    expect(captured).toMatchObject({ recipient: alice.email, subject: "Your stake of Spooks #12 ended" });
    expect(captured.headers["List-Unsubscribe"]).toMatch(
      /^<https:\/\/spooks\.example\/api\/notifications\/email\/unsubscribe\/[A-Za-z0-9_-]{43}>$/,
    );
    expect(captured.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(captured.textBody).toContain("Spooks #12 moved");
  });
});

describe("confirmation emails (issue 32, items 2 and 6)", () => {
  async function queued(email: string) {
    const address = newWallet().address;
    const subscription = await subscribeEmail(db.sql, { address, email, events: ["stake.ended"], at: clock });
    return { ...subscription, address };
  }
  // The links a mail's text carries: the site's own confirm and unsubscribe pages (issue 33, item 9).
  const linkOf = (text: string, kind: "confirm" | "unsubscribe") =>
    new RegExp(`https://spooks\\.example/email/${kind}/([A-Za-z0-9_-]{43})`).exec(text)?.[1];

  it("the worker's pass sends a queued confirmation, outside any transaction; its links work and are kept only hashed", async () => {
    const bob = await queued("bob.confirm@example.com");
    expect(await channel().sendQueued!(db.sql)).toBe(1);
    const [message] = await mail.waitFor(1);
    expect(message.to).toEqual(["bob.confirm@example.com"]);
    expect(message.parsed.subject).toBe("Confirm your Spooks notifications");
    const confirmToken = linkOf(message.parsed.text ?? "", "confirm")!;
    const unsubscribeToken = /List-Unsubscribe:\s*<[^>]*\/unsubscribe\/([A-Za-z0-9_-]{43})>/i.exec(
      message.raw.replace(/\r?\n[ \t]+/g, ""),
    )?.[1];
    expect(confirmToken).toBeDefined();
    expect(unsubscribeToken).toBeDefined();
    const everything = JSON.stringify([
      await db.sql`select * from email_link_tokens`,
      await db.sql`select * from email_subscriptions`,
      await db.sql`select * from email_confirmations`,
    ]);
    expect(everything).not.toContain(confirmToken);
    expect(everything).not.toContain(unsubscribeToken);
    expect(await db.sql`select state from email_confirmations where subscription_id = ${bob.id}`).toEqual([{ state: "sent" }]);
    // Sent once: the next pass has nothing to send.
    expect(await channel().sendQueued!(db.sql)).toBe(0);
    expect((await confirmEmail(db.sql, confirmToken))?.confirmedAt).not.toBeNull();
    expect(await unsubscribeEmail(db.sql, unsubscribeToken!)).toBe(true);
  });

  it("retries an SMTP 4xx later, skips a subscription replaced before its mail went, gives up after 24 hours", async () => {
    const carol = await queued("carol.retry@example.com");
    mail.refuseRecipient("carol.retry@example.com", 451, 1);
    expect(await channel().sendQueued!(db.sql)).toBe(0);
    const [retrying] = await db.sql<{ state: string; nextAttemptAt: Date; lastError: string }[]>`
      select state, next_attempt_at, last_error from email_confirmations where subscription_id = ${carol.id}`;
    expect(retrying).toMatchObject({ state: "pending", nextAttemptAt: new Date(T0.getTime() + EMAIL_RETRY_DELAYS_MS[0]) });
    expect(retrying.lastError).toMatch(/^SMTP /);
    // No token of the mail that did not go out is left.
    expect(await db.sql`select 1 from email_link_tokens where subscription_id = ${carol.id}`).toEqual([]);
    clock = new Date(T0.getTime() + EMAIL_RETRY_DELAYS_MS[0]);
    expect(await channel().sendQueued!(db.sql)).toBe(1);

    const dave = await queued("dave.first@example.com");
    await subscribeEmail(db.sql, { address: dave.address, email: "dave.second@example.com", events: ["stake.ended"], at: clock });
    const beforeSkip = mail.received.length;
    await channel().sendQueued!(db.sql);
    expect(mail.received.slice(beforeSkip).map((message) => message.to[0])).toEqual(["dave.second@example.com"]);
    expect(await db.sql`select state from email_confirmations where mailbox = 'dave.first@example.com'`).toEqual([{ state: "skipped" }]);

    const erin = await queued("erin.late@example.com");
    clock = new Date(clock.getTime() + 25 * 3_600_000);
    await channel().sendQueued!(db.sql);
    expect(await db.sql`select state, last_error from email_confirmations where subscription_id = ${erin.id}`).toEqual([
      { state: "failed", lastError: "Not sent within 24 hours of the request" },
    ]);
  });
});
