/**
 * The signed webhooks channel (issue 24, item 5) through its contract: targets, and one attempt at a time
 * against a receiver that verifies with the `standardwebhooks` package, on every failure path.
 */
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { NotificationEventName } from "../../app/domain/notifications.ts";
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from "../../app/domain/webhooks.ts";
import { isPublicAddress } from "../../app/utils/public-destination.server.ts";
import { postWebhook } from "../../app/utils/webhook-post.server.ts";
import { signatureHeader, signWebhook } from "../../app/utils/webhook-signing.server.ts";
import { createWebhook, findWebhook, listWebhookDeliveries, rotateWebhookSecret } from "../../db/queries/webhooks.server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../doubles/webhook-receiver/webhook-receiver.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { attempt, deliveryRow, fanOut, insertEvent } from "./channel-test-support.ts";
import { sendTestNotification } from "./test-send.server.ts";
import { webhookChannel } from "./webhook-channel.server.ts";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let receiver: WebhookReceiver;
const CLI = { kind: "cli" } as const;
const T0 = new Date("2026-11-01T18:00:00.000Z");
let clock = T0;
const at = (ms: number) => new Date(T0.getTime() + ms);

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await db?.close();
});
beforeEach(async () => {
  receiver.received.length = 0;
  receiver.secrets.length = 0;
  clock = T0;
  await db.sql`update webhook_endpoints set active = false, disabled_reason = 'an earlier test'`;
});

const channel = (options: Partial<Parameters<typeof webhookChannel>[0]> = {}) =>
  webhookChannel({ allowPrivate: true, publicUrl: "https://spooks.example", now: () => clock, random: () => 0.5, ...options });

async function endpoint(events: NotificationEventName[] = ["giveaway.opened"], path = "/hook") {
  const created = await createWebhook(db.sql, { url: `${receiver.url}${path}`, events, actor: CLI });
  receiver.secrets.push(created.secret);
  return created;
}

describe("Standard Webhooks signatures", () => {
  it("match the spec's test vector, and the standardwebhooks package verifies ours", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const body = '{"test": 2432232314}';
    expect(signWebhook(secret, id, 1614265330, body)).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    const now = Math.floor(Date.now() / 1000);
    const headers = { "webhook-id": id, "webhook-timestamp": String(now), "webhook-signature": signatureHeader([secret], id, now, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual({ test: 2432232314 });
    expect(() => new Webhook(secret).verify(body.replace("2", "3"), headers)).toThrow();
  });
});

describe("webhook channel", () => {
  it("sends { type, timestamp, data } signed, to the endpoints that asked for the event only", async () => {
    const wanted = await endpoint(["giveaway.opened", "giveaway.drawn"]);
    await endpoint(["proposal.opened"], "/other");
    clock = new Date(); // the receiver's standardwebhooks checks the timestamp against its own clock
    const event = await insertEvent(db.sql, { event: "giveaway.opened", data: { giveawayId: 7 } });
    const targets = await channel().targets(db.sql, event);
    expect(targets).toEqual([String(wanted.id)]);
    const [id] = await fanOut(db.sql, channel(), event);
    const result = await attempt(db.sql, channel(), event, id);
    expect(result).toEqual({ outcome: "delivered", statusCode: 204 });
    expect(receiver.received).toHaveLength(1);
    const message = receiver.received[0];
    expect(message.path).toBe("/hook");
    expect(message.verifiedWith).toEqual([wanted.secret]);
    expect(message.headers["content-type"]).toBe("application/json");
    expect(message.headers["webhook-timestamp"]).toBe(String(Math.floor(clock.getTime() / 1000)));
    expect(message.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(message.body)).toEqual({
      type: "giveaway.opened",
      timestamp: "2026-11-01T18:00:00.000Z",
      data: {
        giveawayId: 7,
        id: event.id,
        subject: event.subject,
        title: event.title,
        body: event.body,
        link: "https://spooks.example/rewards",
      },
    });
    const [listed] = await listWebhookDeliveries(db.sql, { id: wanted.id, limit: 10 });
    expect(listed).toMatchObject({
      id: message.headers["webhook-id"],
      status: "delivered",
      attempts: 1,
      lastStatusCode: 204,
      nextAttemptAt: null,
    });
  });

  it("retries every non-2xx on the schedule with jitter, the same webhook-id each time, and gives up after 10 attempts", async () => {
    const { id: endpointId } = await endpoint();
    const event = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [id] = await fanOut(db.sql, channel(), event, T0);
    // Failures short of 24 h keep the endpoint active: answer one 2xx at 23 h to reset its failing clock.
    const statuses = [500, 503, 400, 404, 302, 301, 500, 500, 500, 500];
    let elapsed = 0;
    for (const [index, status] of statuses.entries()) {
      receiver.script({ status, headers: status >= 300 && status < 400 ? { location: "/moved" } : {}, body: "upstream says no" });
      clock = at(elapsed);
      const result = await attempt(db.sql, channel(), event, id, clock);
      if (index < WEBHOOK_MAX_ATTEMPTS - 1) {
        expect(result).toMatchObject({ outcome: "retry", statusCode: status });
        if (result.outcome !== "retry") throw new Error("unreachable");
        // random() = 0.5: no jitter, the base wait.
        expect(result.retryAt.getTime() - clock.getTime()).toBe(WEBHOOK_RETRY_DELAYS_MS[index]);
        expect(result.error).toContain(`HTTP ${status}`);
        elapsed += WEBHOOK_RETRY_DELAYS_MS[index];
        // Keep the endpoint from the 24 h rule: a success elsewhere resets its failing clock.
        await db.sql`update webhook_endpoints set failing_since = null where id = ${endpointId}`;
      } else {
        expect(result).toMatchObject({ outcome: "failed", statusCode: status });
      }
    }
    expect(receiver.received).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(new Set(receiver.received.map((message) => message.headers["webhook-id"])).size).toBe(1);
    expect(receiver.received.every((message) => message.path === "/hook")).toBe(true); // no redirect followed
    expect(receiver.received.map((message) => Number(message.headers["webhook-timestamp"]))).toEqual(
      [0, ...WEBHOOK_RETRY_DELAYS_MS].map((_, index) =>
        Math.floor((T0.getTime() + WEBHOOK_RETRY_DELAYS_MS.slice(0, index).reduce((a, b) => a + b, 0)) / 1000),
      ),
    );
    const row = await deliveryRow(db.sql, id);
    expect(row).toMatchObject({ state: "failed", attempts: 10, lastStatusCode: 500 });
    expect(row.lastError).toContain("all 10 attempts failed");
    const total = WEBHOOK_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(WEBHOOK_RETRY_DELAYS_MS[0]).toBeLessThan(60_000);
  });

  it("jitters each wait by up to ±20%", async () => {
    await endpoint();
    const event = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [id] = await fanOut(db.sql, channel(), event, T0);
    receiver.script({ status: 500 });
    const low = await attempt(db.sql, channel({ random: () => 0 }), event, id, T0);
    receiver.script({ status: 500 });
    await db.sql`update notification_deliveries set attempts = 0 where id = ${id}`;
    const high = await attempt(db.sql, channel({ random: () => 0.999999 }), event, id, T0);
    if (low.outcome !== "retry" || high.outcome !== "retry") throw new Error("expected retries");
    expect(low.retryAt.getTime() - T0.getTime()).toBe(4000);
    expect(high.retryAt.getTime() - T0.getTime()).toBe(6000);
  });

  it("honours Retry-After on 429, 502 and 504 (seconds or a date), not on 503", async () => {
    await endpoint();
    const event = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [id] = await fanOut(db.sql, channel(), event, T0);
    const cases: [number, string, number][] = [
      [429, "120", 120_000],
      [502, new Date(T0.getTime() + 600_000).toUTCString(), 600_000],
      [504, "30", 30_000],
      [503, "3600", WEBHOOK_RETRY_DELAYS_MS[0]],
    ];
    for (const [status, retryAfter, wait] of cases) {
      await db.sql`update notification_deliveries set attempts = 0 where id = ${id}`;
      receiver.script({ status, headers: { "retry-after": retryAfter } });
      const result = await attempt(db.sql, channel(), event, id, T0);
      if (result.outcome !== "retry") throw new Error(`expected a retry after ${status}`);
      expect(result.retryAt.getTime() - T0.getTime(), `${status}`).toBe(wait);
    }
  });

  it("410 Gone disables the endpoint at once; its other deliveries fail and new events skip it", async () => {
    const { id: endpointId } = await endpoint();
    const event = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [first] = await fanOut(db.sql, channel(), event, T0);
    const other = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [second] = await fanOut(db.sql, channel(), other, T0);
    receiver.script({ status: 410 });
    expect(await attempt(db.sql, channel(), event, first)).toMatchObject({ outcome: "failed", statusCode: 410 });
    expect(await findWebhook(db.sql, endpointId)).toMatchObject({ active: false, disabledReason: "The receiver answered 410 Gone" });
    expect(await attempt(db.sql, channel(), other, second)).toEqual({
      outcome: "failed",
      error: "The webhook is disabled: The receiver answered 410 Gone",
    });
    expect(receiver.received).toHaveLength(1);
    expect(await channel().targets(db.sql, await insertEvent(db.sql, { event: "giveaway.opened" }))).toEqual([]);
    const audit = await db.sql`select actor, action, details from audit_log where target = ${`webhook:${endpointId}`} order by id`;
    expect(audit.map((row) => row.action)).toEqual(["webhook.create", "webhook.disable"]);
    expect(audit[1]).toMatchObject({ actor: "system", details: { reason: "The receiver answered 410 Gone" } });
  });

  it("keeps a receiver's answer without the escape sequences and control characters it sent (issue 32, item 3)", async () => {
    await endpoint();
    const event = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [id] = await fanOut(db.sql, channel(), event, T0);
    receiver.script({
      status: 500,
      body: "\u001b]0;spooks-admin: all good\u0007\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007\u001b[31mboom\u001b[0m\u009b2J\u0000!",
    });
    expect(await attempt(db.sql, channel(), event, id)).toMatchObject({ outcome: "retry", statusCode: 500 });
    const row = await deliveryRow(db.sql, id);
    expect(row.lastError).toBe("HTTP 500: boom!");
  });

  it("24 hours of failures disable the endpoint; a success in between resets the count", async () => {
    const { id: endpointId } = await endpoint();
    const event = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [id] = await fanOut(db.sql, channel(), event, T0);
    receiver.script({ status: 500 }, { status: 200 }, { status: 500 }, { status: 500 }, { status: 500 });
    clock = at(0);
    expect((await attempt(db.sql, channel(), event, id)).outcome).toBe("retry");
    clock = at(20 * 3600_000);
    expect((await attempt(db.sql, channel(), event, id)).outcome).toBe("delivered");
    const later = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [next] = await fanOut(db.sql, channel(), later, clock);
    clock = at(21 * 3600_000);
    expect((await attempt(db.sql, channel(), later, next)).outcome).toBe("retry");
    clock = at(44 * 3600_000);
    expect((await attempt(db.sql, channel(), later, next)).outcome).toBe("retry");
    clock = at(45 * 3600_000);
    const result = await attempt(db.sql, channel(), later, next);
    expect(result).toMatchObject({ outcome: "failed", statusCode: 500 });
    const disabled = await findWebhook(db.sql, endpointId);
    expect(disabled?.active).toBe(false);
    expect(disabled?.disabledReason).toBe(`No delivery accepted for 24 hours (failing since ${at(21 * 3600_000).toISOString()})`);
  });

  it("gives up on an attempt after the timeout, and retries", async () => {
    await endpoint();
    const event = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [id] = await fanOut(db.sql, channel(), event, T0);
    receiver.script({ status: 200, delayMs: 2000 });
    const started = performance.now();
    const result = await attempt(db.sql, channel({ timeoutMs: 200 }), event, id, T0);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(result).toMatchObject({ outcome: "retry", error: "No answer within 0.2 s" });
    expect(result.statusCode).toBeUndefined();
  });

  it("a refused connection is retried", async () => {
    const created = await createWebhook(db.sql, { url: "http://127.0.0.1:9/closed", events: ["giveaway.opened"], actor: CLI });
    const event = await insertEvent(db.sql, { event: "giveaway.opened" });
    const ids = await fanOut(db.sql, channel(), event, T0);
    expect(ids).toHaveLength(1);
    const result = await attempt(db.sql, channel(), event, ids[0], T0);
    expect(result).toMatchObject({ outcome: "retry" });
    expect((await findWebhook(db.sql, created.id))?.active).toBe(true);
  });

  it("without WEBHOOK_ALLOW_PRIVATE a loopback or http destination is refused at delivery and disables the endpoint", async () => {
    const plain = await endpoint();
    const event = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [id] = await fanOut(db.sql, channel(), event, T0);
    const result = await attempt(db.sql, channel({ allowPrivate: false }), event, id, T0);
    expect(result).toEqual({
      outcome: "failed",
      error: "The destination is not allowed: url must be an https:// URL (http is not allowed)",
    });
    expect((await findWebhook(db.sql, plain.id))?.active).toBe(false);
    expect(receiver.received).toHaveLength(0);

    // https to a name that resolves to loopback: refused by the lookup the socket uses, before connecting.
    const tls = https.createServer((_, response) => response.end("reached"));
    await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
    const port = (tls.address() as AddressInfo).port;
    try {
      for (const url of [`https://localhost:${port}/`, `https://127.0.0.1:${port}/`, `https://[::ffff:127.0.0.1]:${port}/`]) {
        await expect(postWebhook(url, { headers: {}, body: "{}", timeoutMs: 2000, allowPrivate: false })).rejects.toMatchObject({
          code: "EDESTINATION",
        });
      }
    } finally {
      tls.close();
    }
  });

  it("signs with both secrets for 24 hours after a rotation, then with the new one only", async () => {
    const created = await endpoint();
    const rotated = await rotateWebhookSecret(db.sql, { id: created.id, actor: CLI });
    receiver.secrets.push(rotated.secret);
    clock = new Date();
    const event = await insertEvent(db.sql, { event: "giveaway.opened" });
    const [id] = await fanOut(db.sql, channel(), event, T0);
    expect((await attempt(db.sql, channel(), event, id)).outcome).toBe("delivered");
    expect(receiver.received[0].headers["webhook-signature"]?.toString().split(" ")).toHaveLength(2);
    expect(receiver.received[0].verifiedWith).toEqual([created.secret, rotated.secret]);

    await db.sql`update webhook_endpoints set previous_secret_expires_at = ${new Date(Date.now() - 1000)} where id = ${created.id}`;
    const [again] = await fanOut(db.sql, channel(), await insertEvent(db.sql, { event: "giveaway.opened" }), T0);
    expect((await attempt(db.sql, channel(), event, again)).outcome).toBe("delivered");
    expect(receiver.received[1].verifiedWith).toEqual([rotated.secret]);
    const audit = await db.sql`select details::text as details from audit_log where action = 'webhook.rotate-secret'`;
    expect(audit.map((row) => row.details).join()).not.toContain("whsec_");
  });

  it("keeps every body within 20 KB", async () => {
    await endpoint();
    clock = new Date();
    const event = await insertEvent(db.sql, { event: "giveaway.opened", data: { winners: "D".repeat(40_000) } });
    const [id] = await fanOut(db.sql, channel(), event, T0);
    expect((await attempt(db.sql, channel(), event, id)).outcome).toBe("delivered");
    const body = receiver.received[0].body;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(20 * 1024);
    expect(JSON.parse(body).data).toMatchObject({ id: event.id, truncated: true, title: event.title });
    expect(receiver.received[0].verifiedWith).toHaveLength(1);
  });
});

describe("public destinations", () => {
  it("refuses loopback, private, link-local, shared, documentation, multicast and mapped addresses", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "192.0.2.1",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:a00:1",
      "2001:db8::1",
      "ff02::1",
      "not an ip",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });
});

describe("send a test (issue 32, item 11)", () => {
  it("goes to every active endpoint, whatever events it asked for, signed as any message; a disabled one gets none", async () => {
    const first = await endpoint(["giveaway.opened"], "/first");
    const second = await endpoint(["stake.ended", "points.adjusted"], "/second");
    const gone = await endpoint(["giveaway.drawn"], "/gone");
    await db.sql`update webhook_endpoints set active = false, disabled_reason = 'test' where id = ${gone.id}`;
    clock = new Date(); // the receiver checks the signature's timestamp against its own clock
    const results = await sendTestNotification(db.sql, [channel()], "webhook");
    expect(results).toEqual([
      { target: String(first.id), outcome: "delivered", statusCode: 204, error: null },
      { target: String(second.id), outcome: "delivered", statusCode: 204, error: null },
    ]);
    expect(receiver.received.map((message) => message.path).sort()).toEqual(["/first", "/second"]);
    for (const message of receiver.received) {
      expect(JSON.parse(message.body)).toMatchObject({ type: "notifications.test", data: { title: "Test notification from Spooks" } });
      expect(message.verifiedWith).toHaveLength(1);
    }
  });
});

describe("connections (issue 36, item 3)", () => {
  /** A raw HTTP/1.1 receiver: answers 204 and keeps the connection; `resetNext` drops the next request on a kept one. */
  async function rawReceiver() {
    const state = { connections: 0, answered: 0, resetNext: false };
    const server = net.createServer((socket) => {
      state.connections += 1;
      let requests = 0;
      let buffered = "";
      socket.on("data", (chunk) => {
        buffered += chunk.toString("latin1");
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        requests += 1;
        // The receiver closed this kept connection meanwhile: the request reaches nobody.
        if (requests > 1 && state.resetNext) {
          state.resetNext = false;
          socket.resetAndDestroy();
          return;
        }
        state.answered += 1;
        socket.write("HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\nKeep-Alive: timeout=30\r\n\r\n");
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { state, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }
  const post = (url: string, allowPrivate = true) => postWebhook(url, { headers: {}, body: "{}", timeoutMs: 5000, allowPrivate });

  it("POSTs to one receiver share a kept-alive connection; one the receiver dropped is replaced and the POST sent once more", async () => {
    const raw = await rawReceiver();
    try {
      const url = `http://localhost:${raw.port}/hook`;
      for (let i = 0; i < 5; i++) expect((await post(url)).status).toBe(204);
      expect(raw.state).toMatchObject({ connections: 1, answered: 5 });
      raw.state.resetNext = true;
      expect((await post(url)).status).toBe(204);
      expect(raw.state).toMatchObject({ connections: 2, answered: 6 });
    } finally {
      await raw.close();
    }
  });

  it("a connection kept for a private destination is never used where private destinations are refused", async () => {
    const raw = await rawReceiver();
    try {
      expect((await post(`http://localhost:${raw.port}/hook`)).status).toBe(204);
      for (const url of [`http://localhost:${raw.port}/hook`, `http://127.0.0.1:${raw.port}/hook`]) {
        await expect(post(url, false)).rejects.toMatchObject({ code: "EDESTINATION" });
      }
      expect(raw.state).toMatchObject({ connections: 1, answered: 1 });
    } finally {
      await raw.close();
    }
  });
});
