/**
 * Email notifications over HTTP (issue 24, item 6): the signed consent with staking's timestamp and replay
 * rules, the confirmation email and link, one-click unsubscribe as mail clients send it (no cookie, any
 * Origin, urlencoded or multipart, 200 never a redirect), the masked status, the demo outbox view.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emailSubscribeMessage } from "../../app/domain/messages.ts";
import { captureMailer } from "../../app/utils/mail.server.ts";
import { emailChannel } from "../../indexer/notifications/email-channel.server.ts";
import { attempt, fanOut, insertEvent } from "../../indexer/notifications/channel-test-support.ts";
import { startMailDouble, type MailDouble } from "../../doubles/mail/mail-double.server.ts";
import { smtpMailer } from "../../app/utils/mail.server.ts";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { newWallet, useApi, type Wallet } from "./support.ts";

const ctx = useApi();
let mail: MailDouble;
let server: TestServer;

beforeAll(async () => {
  mail = await startMailDouble();
  // A second server of the same app, sending mail through the double; ctx's own sends none.
  server = await startTestServer({
    sql: ctx.sql,
    adminAddress: ctx.admin.address,
    env: { SMTP_URL: mail.url, MAIL_FROM: "Spooks <notifications@spooks.example>" },
  });
}, 900_000);
afterAll(async () => {
  await server?.close();
  await mail?.close();
});

type Raw = { status: number; headers: Headers; text: string; json: () => unknown };

async function send(method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Raw> {
  const response = await fetch(`${server.url}${path}`, { method, redirect: "manual", ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
}

const postJson = (path: string, body: unknown) =>
  send("POST", path, { body: JSON.stringify(body), headers: { "content-type": "application/json" } });

function consent(wallet: Wallet, email: string, at = new Date(), events = ["giveaway.won", "stake.ended"]) {
  const message = emailSubscribeMessage(wallet.address, email, at);
  return { address: wallet.address, email, events, message, signature: wallet.sign(message) };
}

function linkIn(text: string, kind: "confirm" | "unsubscribe"): string {
  const match = new RegExp(`https?://[^/\\s]+(/api/notifications/email/${kind}/[A-Za-z0-9_-]{43})`).exec(text);
  if (!match) throw new Error(`no ${kind} link in:\n${text}`);
  return match[1];
}

describe("email subscription", () => {
  it("records a signed consent, emails a confirmation link, and sends nothing else until it is confirmed", async () => {
    const holder = newWallet();
    const email = "first@example.com";
    const answer = await postJson("/api/notifications/email", consent(holder, email));
    expect(answer.status).toBe(201);
    expect(answer.json()).toEqual({ address: holder.address, email, events: ["giveaway.won", "stake.ended"], confirmed: false });
    const [confirmation] = await mail.waitFor(1);
    expect(confirmation.to).toEqual([email]);
    expect(confirmation.parsed.subject).toBe("Confirm your Spooks notifications");
    const confirmLink = linkIn(confirmation.parsed.text ?? "", "confirm");

    const channel = emailChannel({ mailer: smtpMailer(mail.url, "notifications@spooks.example"), publicUrl: "https://spooks.example" });
    const event = await insertEvent(ctx.sql, { event: "stake.ended", recipient: holder.address });
    expect(await channel.targets(ctx.sql, event)).toEqual([]);

    // Opening the link shows a page; only its button (a POST) confirms.
    const page = await send("GET", confirmLink);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain('<form method="post">');
    expect(page.text).toContain(holder.address);
    expect((await send("GET", `/api/notifications/email/${holder.address}`)).json()).toEqual({
      available: true,
      subscribed: true,
      confirmed: false,
      email: "f•••t@example.com",
      events: ["giveaway.won", "stake.ended"],
    });
    const confirmed = await send("POST", confirmLink, { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain("now go to first@example.com");
    expect((await send("POST", confirmLink)).json()).toEqual({ confirmed: true, address: holder.address });
    expect((await ctx.call("GET", `/api/notifications/email/${holder.address}`)).body.confirmed).toBe(true);

    const [id] = await fanOut(ctx.sql, channel, event);
    expect(await attempt(ctx.sql, channel, event, id)).toMatchObject({ outcome: "delivered" });
    expect(await mail.waitFor(2)).toHaveLength(2);
    expect((await send("GET", "/api/notifications/email/confirm/" + "x".repeat(43))).status).toBe(404);
  });

  it("uses staking's rules for the signature: its own address and email, fresh, once", async () => {
    const holder = newWallet();
    const other = newWallet();
    const before = mail.received.length;
    const body = consent(holder, "rules@example.com");
    const tries: [unknown, number][] = [
      [{ ...body, signature: other.sign(body.message) }, 401],
      [{ ...body, email: "else@example.com" }, 401],
      [consent(holder, "rules@example.com", new Date(Date.now() - 11 * 60_000)), 401],
      [{ ...consent(other, "rules@example.com"), address: holder.address }, 401],
      [{ ...body, events: ["giveaway.exploded"] }, 400],
      [{ ...body, email: "not an email" }, 400],
    ];
    for (const [payload, status] of tries)
      expect((await postJson("/api/notifications/email", payload)).status, JSON.stringify(payload)).toBe(status);
    expect((await postJson("/api/notifications/email", body)).status).toBe(201);
    const replay = await postJson("/api/notifications/email", body);
    expect(replay.status).toBe(401);
    expect(replay.json()).toEqual({ message: "This signature has already been used" });
    await mail.waitFor(before + 1);
    expect(mail.received.length).toBe(before + 1);
  });

  it("keeps one address per wallet: a new signed consent replaces the old one and needs its own confirmation", async () => {
    const holder = newWallet();
    const before = mail.received.length;
    expect((await postJson("/api/notifications/email", consent(holder, "old@example.com"))).status).toBe(201);
    const [first] = (await mail.waitFor(before + 1)).slice(before);
    await send("POST", linkIn(first.parsed.text ?? "", "confirm"));
    expect((await postJson("/api/notifications/email", consent(holder, "new@example.com", new Date(Date.now() + 1)))).status).toBe(201);
    const rows = await ctx.sql`select email, confirmed_at from email_subscriptions where address = ${holder.address}`;
    expect(rows).toEqual([{ email: "new@example.com", confirmedAt: null }]);
    // The old link no longer names anything.
    expect((await send("POST", linkIn(first.parsed.text ?? "", "confirm"))).status).toBe(404);
  });

  it("answers 503 and keeps nothing when the confirmation cannot be sent (the signature can be used again)", async () => {
    const holder = newWallet();
    mail.refuseRecipient("refused@example.com", 550, 1);
    const body = consent(holder, "refused@example.com");
    const answer = await postJson("/api/notifications/email", body);
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("60");
    expect(await ctx.sql`select 1 from email_subscriptions where address = ${holder.address}`).toHaveLength(0);
    expect((await postJson("/api/notifications/email", body)).status).toBe(201);
  });

  it("is 404 on a site that sends no email", async () => {
    const holder = newWallet();
    const answer = await ctx.call("POST", "/api/notifications/email", consent(holder, "none@example.com"));
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ message: "This site does not send email notifications" });
    // The page asks first, and offers no email form there.
    expect((await ctx.call("GET", `/api/notifications/email/${holder.address}`)).body).toMatchObject({
      available: false,
      subscribed: false,
    });
  });
});

describe("one-click unsubscribe (RFC 8058)", () => {
  async function subscribed(email: string) {
    const holder = newWallet();
    const before = mail.received.length;
    expect((await postJson("/api/notifications/email", consent(holder, email))).status).toBe(201);
    const [message] = (await mail.waitFor(before + 1)).slice(before);
    const headers = message.raw.split(/\r?\n\r?\n/, 1)[0].replace(/\r?\n(?=[ \t])/g, "");
    expect(headers).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    expect(headers).toMatch(/^List-Unsubscribe: <https?:\/\/[^>]+\/api\/notifications\/email\/unsubscribe\/[A-Za-z0-9_-]{43}>$/m);
    await send("POST", linkIn(message.parsed.text ?? "", "confirm"));
    // The URL a mail client POSTs to: the List-Unsubscribe header's.
    const path = /^List-Unsubscribe: <https?:\/\/[^/>]+(\/[^>]+)>$/m.exec(headers)?.[1];
    if (!path) throw new Error(`no List-Unsubscribe URL in:\n${headers}`);
    return { holder, path };
  }

  it("stops all mail at once on an urlencoded POST from anywhere, without a cookie: 200, never a redirect", async () => {
    const { holder, path } = await subscribed("oneclick@example.com");
    const event = await insertEvent(ctx.sql, { event: "stake.ended", recipient: holder.address });
    const channel = emailChannel({ mailer: smtpMailer(mail.url, "n@spooks.example"), publicUrl: "https://spooks.example" });
    const [id] = await fanOut(ctx.sql, channel, event);
    // What a mailbox provider's server sends: no cookie, its own Origin (or none).
    const answer = await send("POST", path, {
      body: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://mail.provider.example" },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("location")).toBeNull();
    expect(answer.json()).toEqual({ unsubscribed: true });
    const [row] = await ctx.sql`select state from notification_deliveries where id = ${id}`;
    expect(row.state).toBe("skipped");
    expect(await channel.targets(ctx.sql, event)).toEqual([]);
    expect((await ctx.call("GET", `/api/notifications/email/${holder.address}`)).body.subscribed).toBe(false);
    // Again: still 200.
    expect(
      (await send("POST", path, { body: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } }))
        .status,
    ).toBe(200);
  });

  it("accepts multipart/form-data; refuses a body without List-Unsubscribe=One-Click (400) and an unknown token (404)", async () => {
    const { holder, path } = await subscribed("multipart@example.com");
    const wrong = await send("POST", path, {
      body: "List-Unsubscribe=Maybe",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(wrong.status).toBe(400);
    expect(
      (
        await send("POST", path, {
          body: JSON.stringify({ "List-Unsubscribe": "One-Click" }),
          headers: { "content-type": "application/json" },
        })
      ).status,
    ).toBe(400);
    expect((await send("POST", path)).status).toBe(400);
    const form = new FormData();
    form.set("List-Unsubscribe", "One-Click");
    const answer = await send("POST", path, { body: form });
    expect(answer.status).toBe(200);
    const [row] = await ctx.sql`select unsubscribe_reason from email_subscriptions where address = ${holder.address}`;
    expect(row.unsubscribeReason).toBe("one-click");
    const unknown = await send("POST", "/api/notifications/email/unsubscribe/" + "A".repeat(43), {
      body: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(unknown.status).toBe(404);
  });

  it("the link opened in a browser shows a page whose button does the same POST; opening it changes nothing", async () => {
    const { holder, path } = await subscribed("page@example.com");
    const page = await send("GET", path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<input type="hidden" name="List-Unsubscribe" value="One-Click">');
    expect((await ctx.call("GET", `/api/notifications/email/${holder.address}`)).body.subscribed).toBe(true);
    const clicked = await send("POST", path, {
      body: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    });
    expect(clicked.status).toBe(200);
    expect(clicked.text).toContain("No more notification emails");
  });
});

describe("demo mode's outbox view", () => {
  it("lists the captured mail to the admin only", async () => {
    await captureMailer("Spooks <notifications@spooks.invalid>", ctx.sql).send({
      to: "demo@example.com",
      subject: "Confirm your Spooks notifications",
      text: "hello",
      unsubscribeUrl: "http://localhost:3000/api/notifications/email/unsubscribe/abc",
    });
    expect((await ctx.call("GET", "/api/admin/mail-outbox")).status).toBe(401);
    const answer = await ctx.call("GET", "/api/admin/mail-outbox", undefined, { cookie: await ctx.adminCookie() });
    expect(answer.status).toBe(200);
    expect(answer.body[0]).toMatchObject({
      recipient: "demo@example.com",
      subject: "Confirm your Spooks notifications",
      textBody: "hello",
      headers: {
        "List-Unsubscribe": "<http://localhost:3000/api/notifications/email/unsubscribe/abc>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      },
    });
  });
});
