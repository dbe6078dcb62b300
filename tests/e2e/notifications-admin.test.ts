/**
 * The admin's signed webhooks and the demo's mail outbox in a real browser (issue 24 items 5, 6, 8): the admin
 * adds a webhook pointing at a local receiver (the secret shown once), an event is delivered by the real worker
 * and verified by the receiver with `standardwebhooks`, the delivery shows in the tab, Replay sends the same
 * message again, a rotation shows a new secret that signs from then on, Delete removes the endpoint; a holder
 * subscribes by signing in <EmailNotifications/> on the staking page (fitting 360 px) and, in demo mode, the
 * confirmation email is captured and shown in the admin's Mail outbox.
 * One server, one browser, one worker for the file; the tests run in order and build on each other.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../../doubles/webhook-receiver/webhook-receiver.server.ts";
import { notificationChannels } from "../../indexer/notifications/channels.server.ts";
import { startNotificationWorker, type NotificationWorker } from "../../indexer/notifications/worker.server.ts";
import { injectMyDoge, launchBrowser, newPage, waitForToast, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

let world: E2eWorld;
let browser: Browser;
let receiver: WebhookReceiver;
let worker: NotificationWorker;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];
let admin: Page;

const WAIT = { timeout: 20_000, interval: 200 };
const SECRET = /^whsec_[A-Za-z0-9+/]+=*$/;

beforeAll(async () => {
  [world, browser, receiver] = await Promise.all([
    // Demo mode (no ORD_URL, no SMTP_URL): mail is captured for the outbox view; webhooks may go to loopback.
    startE2eWorld({ demo: true, holderOwns: 1, perCollection: 2, env: { WEBHOOK_ALLOW_PRIVATE: "true" } }),
    launchBrowser(),
    startWebhookReceiver(),
  ]);
  // The indexer's notification worker, as NOTIFY_INTERVAL_S would run it, but every 250 ms: it also sends the
  // confirmation emails (captured in demo mode).
  worker = startNotificationWorker({
    sql: world.db.sql,
    channels: notificationChannels(
      { webhooks: { allowPrivate: true }, publicUrl: world.url, mail: world.server.context.config.mail },
      { sql: world.db.sql },
    ),
    intervalMs: 250,
  });
  const opening = await newPage(browser, world.url);
  opened.push(opening);
  admin = opening.page;
  admin.setDefaultTimeout(20_000);
  await opening.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: world.url });
  await injectMyDoge(admin, { privateKeyHex: world.admin.privateKeyHex });
  await admin.goto("/admin");
  await admin.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
  await admin.getByRole("tab", { name: "Notifications" }).click();
  await admin.getByTestId("webhook-endpoints").waitFor();
}, 300_000);

afterAll(async () => {
  await worker?.stop();
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await receiver?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

const endpoint = () => admin.getByTestId("webhook-endpoint");

describe("signed webhooks in the Notifications tab", () => {
  let secret = "";
  let webhookId = "";

  test("adding one shows its secret once, with a copy button", async () => {
    await admin.getByText("No endpoints yet.").waitFor();
    await admin.getByLabel("Endpoint URL").fill(`${receiver.url}/spooks`);
    // Only what a giveaway bot needs.
    const events = admin.getByRole("group", { name: "Events" }).getByRole("checkbox");
    for (let index = 0; index < (await events.count()); index++) await events.nth(index).uncheck();
    await admin.getByRole("checkbox", { name: "giveaway.opened" }).check();
    await admin.getByRole("button", { name: "Add webhook" }).click();

    const shown = admin.getByTestId("webhook-secret");
    secret = await shown.getByTestId("webhook-secret-value").innerText();
    expect(secret).toMatch(SECRET);
    expect(await shown.innerText()).toContain("shown only now");
    await shown.getByRole("button", { name: "Copy secret" }).click();
    await waitForToast(admin, "Copied");
    expect(await admin.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    expect(await endpoint().innerText()).toContain(`${receiver.url}/spooks`);
    expect(await endpoint().getByTestId("webhook-state").innerText()).toBe("Active");
    expect(await endpoint().innerText()).toContain("giveaway.opened");
    const [row] = await world.db.sql<{ events: string[] }[]>`select events from webhook_endpoints`;
    expect(row.events).toEqual(["giveaway.opened"]);

    // Once: dismissed, and after a reload, the secret is nowhere on the page.
    await shown.getByRole("button", { name: "Done" }).click();
    await admin.reload();
    await admin.getByRole("tab", { name: "Notifications" }).click();
    await endpoint().waitFor();
    expect(await admin.content()).not.toContain(secret);
    receiver.secrets.push(secret);
  });

  test("an event is delivered, verified by the receiver, and shown with its webhook-id", async () => {
    const giveaway = await world.createGiveaway({
      title: "Webhook Lantern",
      description: "Glows.",
      pointsCost: 5,
      endDate: new Date(Date.now() + 5 * 86_400_000),
    });
    await expect.poll(() => receiver.received.length, WAIT).toBe(1);
    const [message] = receiver.received;
    expect(message.path).toBe("/spooks");
    expect(message.verifiedWith).toEqual([secret]);
    const body = JSON.parse(message.body) as { type: string; data: { id?: number; title?: string } };
    expect(body.type).toBe("giveaway.opened");
    expect(JSON.stringify(body.data)).toContain("Webhook Lantern");
    expect(JSON.stringify(body.data)).toContain(String(giveaway.id));
    webhookId = String(message.headers["webhook-id"]);
    expect(webhookId).toMatch(/^msg_/);

    await endpoint().getByRole("button", { name: "Deliveries" }).click();
    const row = endpoint().getByTestId("webhook-delivery-row");
    // Issue 33, item 7: what happened, in words ("204 accepted"), not the raw state.
    await expect.poll(() => row.first().getByTestId("webhook-delivery-status").innerText(), WAIT).toBe("204 accepted");
    const text = await row.first().innerText();
    expect(text).toContain(webhookId);
    expect(text).toContain("giveaway.opened");
    expect(text).toMatch(/\b1\b/); // attempts
    expect(text).toContain("204");
  });

  test("Replay sends the same message again, with the same webhook-id", async () => {
    await endpoint().getByTestId("webhook-delivery-row").first().getByRole("button", { name: "Replay" }).click();
    await waitForToast(admin, "Queued again");
    await expect.poll(() => receiver.received.length, WAIT).toBe(2);
    expect(receiver.received[1].headers["webhook-id"]).toBe(webhookId);
    expect(receiver.received[1].verifiedWith).toEqual([secret]);
    await expect.poll(() => endpoint().getByTestId("webhook-delivery-row").first().innerText(), WAIT).toMatch(/204 accepted/);
    expect(await endpoint().getByTestId("webhook-delivery-row").count()).toBe(1);
  });

  test("Rotate secret shows a new secret once, which signs from then on", async () => {
    await endpoint().getByRole("button", { name: "Rotate secret" }).click();
    const shown = endpoint().getByTestId("webhook-secret");
    const rotated = await shown.getByTestId("webhook-secret-value").innerText();
    expect(rotated).toMatch(SECRET);
    expect(rotated).not.toBe(secret);
    expect(await shown.innerText()).toContain("shown only now");
    await shown.getByRole("button", { name: "Done" }).click();
    expect(await admin.content()).not.toContain(rotated);

    // A bot that switched to the new secret verifies the next message (both sign during the overlap).
    receiver.secrets.splice(0, receiver.secrets.length, rotated, secret);
    await endpoint().getByTestId("webhook-delivery-row").first().getByRole("button", { name: "Replay" }).click();
    await expect.poll(() => receiver.received.length, WAIT).toBe(3);
    expect(receiver.received[2].verifiedWith).toEqual([rotated, secret]);
  });

  test("Delete, once confirmed, removes the endpoint", async () => {
    await endpoint().getByRole("button", { name: "Delete" }).click();
    const dialog = admin.getByRole("alertdialog", { name: "Delete this webhook?" });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await endpoint().count()).toBe(1);
    await endpoint().getByRole("button", { name: "Delete" }).click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await waitForToast(admin, "Webhook deleted");
    await admin.getByText("No endpoints yet.").waitFor();
    expect(await endpoint().count()).toBe(0);
    const rows = await world.db.sql`select id from webhook_endpoints`;
    expect(rows).toHaveLength(0);
  });

  test("a refusal is toasted with the server's reason", async () => {
    await admin.getByLabel("Endpoint URL").fill("ftp://bot.example/hook");
    await admin.getByRole("button", { name: "Add webhook" }).click();
    await waitForToast(admin, "Webhook not added");
    expect(await admin.locator("li[data-variant]").filter({ hasText: "Webhook not added" }).innerText()).toMatch(/url/i);
    expect(await endpoint().count()).toBe(0);
  });
});

describe("email notifications, captured in demo mode", () => {
  test("a holder subscribes by signing on the staking page (360 px wide) and the confirmation shows in the Mail outbox", async () => {
    const opening = await newPage(browser, world.url);
    opened.push(opening);
    const holder = opening.page;
    holder.setDefaultTimeout(20_000);
    await holder.setViewportSize({ width: 360, height: 780 });
    await injectMyDoge(holder, { privateKeyHex: world.holder.privateKeyHex, connected: true });
    // No mail yet, and the admin signed in with MyDoge rather than the demo wallet: no outbox to show.
    expect(await admin.getByRole("region", { name: "Mail outbox" }).count()).toBe(0);
    await holder.goto("/");
    const form = holder.getByRole("form", { name: "Email notifications" });
    await form.waitFor();
    expect(await holder.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await form.getByLabel("Email address").fill("holder@example.com");
    await form.getByRole("button", { name: "Sign and subscribe" }).click();
    await form.getByRole("status").filter({ hasText: "Check holder@example.com" }).waitFor();
    expect(await holder.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    await admin.reload();
    await admin.getByRole("tab", { name: "Notifications" }).click();
    const outbox = admin.getByRole("region", { name: "Mail outbox" });
    const mail = outbox.getByRole("button", { name: /Confirm your Spooks notifications/ });
    await mail.waitFor();
    expect(await mail.innerText()).toContain("to holder@example.com");
    await mail.click();
    const text = await outbox.locator("pre").innerText();
    expect(text).toContain(world.holder.address);
    // Issue 33, item 9: the link opens a page of the site, in its layout.
    const link = new RegExp(`${world.url.replace(/[.:/]/g, "\\$&")}/email/confirm/[A-Za-z0-9_-]+`).exec(text)?.[0];
    expect(link).toBeDefined();
    expect(await outbox.innerText()).toContain("List-Unsubscribe-Post");
    // The mail's own unsubscribe token (kept hashed: only the mail has it, issue 32).
    const token = /\/unsubscribe\/([A-Za-z0-9_-]{43})/.exec(await outbox.innerText())?.[1];
    expect(token).toBeDefined();

    // It says which wallet and mailbox, what they will receive, and the way back; Confirm confirms.
    await holder.goto(link!);
    await holder.getByRole("heading", { level: 1, name: "Confirm your Spooks notifications" }).waitFor();
    await holder.getByRole("banner").waitFor();
    await holder
      .getByTestId("subscription-text")
      .getByText(`Send notifications for ${world.holder.address} to holder@example.com?`)
      .waitFor();
    await holder
      .getByTestId("subscription-events")
      .getByText(/^I win a giveaway/)
      .waitFor();
    await holder.getByRole("link", { name: "Back to Spooks" }).waitFor();
    expect(await holder.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await holder.getByRole("button", { name: "Confirm" }).click();
    await holder.getByRole("heading", { level: 1, name: "Confirmed" }).waitFor();
    const [subscription] = await world.db.sql<{ confirmedAt: Date | null }[]>`select confirmed_at from email_subscriptions`;
    expect(subscription.confirmedAt).not.toBeNull();
    await holder.getByRole("link", { name: "Notification settings" }).click();
    await holder.getByRole("heading", { level: 1, name: "Notification settings" }).waitFor();

    // The unsubscribe link of a mail's text: a page too, one button, and what stops.
    await holder.goto(`/email/unsubscribe/${token}`);
    await holder.getByRole("heading", { level: 1, name: "Unsubscribe from Spooks notifications" }).waitFor();
    await holder
      .getByTestId("subscription-events")
      .getByText(/^I win a giveaway/)
      .waitFor();
    await holder.getByRole("button", { name: "Unsubscribe" }).click();
    await holder.getByRole("heading", { level: 1, name: "Unsubscribed" }).waitFor();
    await holder.getByText("You no longer receive an email when:").waitFor();
    const [after] = await world.db.sql<{ unsubscribedAt: Date | null }[]>`select unsubscribed_at from email_subscriptions`;
    expect(after.unsubscribedAt).not.toBeNull();
  });
});
