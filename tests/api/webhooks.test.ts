/** The admin's signed webhooks (issue 24, item 5): add, list, deliveries, replay, rotate, delete; admin only, audited. */
import { describe, expect, it } from "vitest";
import { createWebhook } from "../../db/queries/webhooks.server.ts";
import { webhookChannel } from "../../indexer/notifications/webhook-channel.server.ts";
import { attempt, fanOut, insertEvent } from "../../indexer/notifications/channel-test-support.ts";
import { nonAdminSession, useApi } from "./support.ts";

const ctx = useApi();
const admin = async () => ({ cookie: await ctx.adminCookie() });

describe("admin webhooks", () => {
  it("adds an endpoint with a secret shown once, lists it without, and audits it without the secret", async () => {
    // The test server runs without WEBHOOK_ALLOW_PRIVATE: public https only. A literal public address needs no DNS.
    const created = await ctx.call(
      "POST",
      "/api/admin/webhooks",
      { url: "https://93.184.216.34/hook", events: ["giveaway.opened", "stake.ended"] },
      await admin(),
    );
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      url: "https://93.184.216.34/hook",
      events: ["giveaway.opened", "stake.ended"],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      active: true,
    });
    const listed = await ctx.call("GET", "/api/admin/webhooks", undefined, await admin());
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual({
      id: created.body.id,
      url: "https://93.184.216.34/hook",
      events: ["giveaway.opened", "stake.ended"],
      active: true,
      disabledReason: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain("whsec_");
    const [audit] =
      await ctx.sql`select actor, actor_address, action, after::text as after from audit_log where target = ${`webhook:${created.body.id}`}`;
    expect(audit).toMatchObject({ actor: "web", actorAddress: ctx.admin.address, action: "webhook.create" });
    expect(audit.after).not.toContain("whsec_");
  });

  it("refuses destinations that are not public https, and unknown events (400), changing nothing", async () => {
    const before = await ctx.sql`select count(*)::int as n from webhook_endpoints`;
    const refusals: [unknown, string][] = [
      [{ url: "http://93.184.216.34/hook", events: ["giveaway.opened"] }, "url must be an https:// URL (http is not allowed)"],
      [
        { url: "https://127.0.0.1/hook", events: ["giveaway.opened"] },
        "url's host 127.0.0.1 resolves to 127.0.0.1, which is not a public address",
      ],
      [
        { url: "https://10.0.0.5/hook", events: ["giveaway.opened"] },
        "url's host 10.0.0.5 resolves to 10.0.0.5, which is not a public address",
      ],
      [{ url: "https://[::1]/hook", events: ["giveaway.opened"] }, "url's host ::1 resolves to ::1, which is not a public address"],
      [
        { url: "https://169.254.169.254/latest", events: ["giveaway.opened"] },
        "url's host 169.254.169.254 resolves to 169.254.169.254, which is not a public address",
      ],
      [{ url: "https://localhost/hook", events: ["giveaway.opened"] }, "url's host localhost resolves to"],
      [{ url: "https://user:pw@93.184.216.34/", events: ["giveaway.opened"] }, "url must not carry a user name or password"],
      [{ url: "ftp://93.184.216.34/", events: ["giveaway.opened"] }, "url must be an https:// URL"],
      [{ url: "https://93.184.216.34/", events: ["giveaway.exploded"] }, "events must name notification events"],
      [{ url: "https://93.184.216.34/", events: [] }, "events must name at least one event"],
      [{ url: "https://93.184.216.34/", events: ["giveaway.opened", "giveaway.opened"] }, "events names an event more than once"],
    ];
    for (const [body, message] of refusals) {
      const answer = await ctx.call("POST", "/api/admin/webhooks", body, await admin());
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message).toContain(message);
    }
    expect(await ctx.sql`select count(*)::int as n from webhook_endpoints`).toEqual(before);
  });

  it("is the admin's only: 401 without a session, 403 for another, 403 from another site", async () => {
    const body = { url: "https://93.184.216.34/hook", events: ["giveaway.opened"] };
    expect((await ctx.call("GET", "/api/admin/webhooks")).status).toBe(401);
    expect((await ctx.call("POST", "/api/admin/webhooks", body)).status).toBe(401);
    const other = await nonAdminSession(ctx.sql);
    expect((await ctx.call("GET", "/api/admin/webhooks", undefined, { cookie: other })).status).toBe(403);
    expect((await ctx.call("POST", "/api/admin/webhooks", body, { ...(await admin()), origin: "https://evil.example" })).status).toBe(403);
    expect((await ctx.call("DELETE", "/api/admin/webhooks/1", undefined, { cookie: other })).status).toBe(403);
    expect((await ctx.call("GET", "/api/admin/webhooks/1/deliveries")).status).toBe(401);
    expect((await ctx.call("POST", "/api/admin/webhooks/1/rotate-secret")).status).toBe(401);
  });

  it("lists deliveries by webhook-id, replays one with the same id, rotates the secret, deletes the endpoint", async () => {
    // A loopback endpoint the API would refuse: made directly, delivered by the channel with private destinations allowed.
    const endpoint = await createWebhook(ctx.sql, { url: "http://127.0.0.1:9/closed", events: ["giveaway.drawn"], actor: { kind: "cli" } });
    const channel = webhookChannel({ allowPrivate: true });
    const event = await insertEvent(ctx.sql, { event: "giveaway.drawn" });
    const [deliveryId] = await fanOut(ctx.sql, channel, event);
    await attempt(ctx.sql, channel, event, deliveryId);

    const list = await ctx.call("GET", `/api/admin/webhooks/${endpoint.id}/deliveries`, undefined, await admin());
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    const [delivery] = list.body;
    expect(delivery).toMatchObject({ event: "giveaway.drawn", attempts: 1, status: "retrying", lastStatusCode: null });
    expect(delivery.id).toMatch(new RegExp(`^msg_[A-Za-z0-9]+_${deliveryId}$`));
    expect(delivery.lastError).toMatch(/ECONNREFUSED|connect/);
    expect(Date.parse(delivery.nextAttemptAt)).toBeGreaterThan(Date.now());

    const replayed = await ctx.call(
      "POST",
      `/api/admin/webhooks/${endpoint.id}/deliveries/${delivery.id}/replay`,
      undefined,
      await admin(),
    );
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ id: delivery.id, status: "retrying" });
    const [row] = await ctx.sql`select state, attempts from notification_deliveries where id = ${deliveryId}`;
    expect(row).toEqual({ state: "pending", attempts: 0 });
    const wrongSalt = delivery.id.replace(/^msg_[A-Za-z0-9]+_/, "msg_other_");
    expect(
      (await ctx.call("POST", `/api/admin/webhooks/${endpoint.id}/deliveries/${wrongSalt}/replay`, undefined, await admin())).status,
    ).toBe(404);
    expect((await ctx.call("POST", `/api/admin/webhooks/${endpoint.id}/deliveries/nonsense/replay`, undefined, await admin())).status).toBe(
      404,
    );
    expect((await ctx.call("GET", "/api/admin/webhooks/999999/deliveries", undefined, await admin())).status).toBe(404);

    const rotated = await ctx.call("POST", `/api/admin/webhooks/${endpoint.id}/rotate-secret`, undefined, await admin());
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);

    await ctx.sql`update webhook_endpoints set active = false, disabled_reason = 'The receiver answered 410 Gone' where id = ${endpoint.id}`;
    const disabled = await ctx.call(
      "POST",
      `/api/admin/webhooks/${endpoint.id}/deliveries/${delivery.id}/replay`,
      undefined,
      await admin(),
    );
    expect(disabled.status).toBe(409);
    const shown = await ctx.call("GET", "/api/admin/webhooks", undefined, await admin());
    expect(shown.body.find((hook: { id: number }) => hook.id === endpoint.id)).toMatchObject({
      active: false,
      disabledReason: "The receiver answered 410 Gone",
    });

    const deleted = await ctx.call("DELETE", `/api/admin/webhooks/${endpoint.id}`, undefined, await admin());
    expect(deleted.status).toBe(200);
    expect((await ctx.call("DELETE", `/api/admin/webhooks/${endpoint.id}`, undefined, await admin())).status).toBe(404);
    const actions = await ctx.sql`select action from audit_log where target = ${`webhook:${endpoint.id}`} order by id`;
    expect(actions.map((entry) => entry.action)).toEqual(["webhook.create", "webhook.replay", "webhook.rotate-secret", "webhook.delete"]);
  });

  it("keeps a webhook URL's path out of the audit trail: its origin and a hash (issue 32, item 6)", async () => {
    const url = "https://93.184.216.34/hooks/s3cr3t-path-token-Zq81";
    const created = await ctx.call("POST", "/api/admin/webhooks", { url, events: ["giveaway.opened"] }, await admin());
    expect(created.status).toBe(201);
    expect((await ctx.call("DELETE", `/api/admin/webhooks/${created.body.id}`, undefined, await admin())).status).toBe(200);
    const rows = await ctx.sql<{ action: string; row: string }[]>`
      select action, row_to_json(a)::text as row from audit_log a where target = ${`webhook:${created.body.id}`} order by id`;
    expect(rows.map((entry) => entry.action)).toEqual(["webhook.create", "webhook.delete"]);
    for (const { row } of rows) expect(row).not.toContain("s3cr3t-path-token");
    const shown = await ctx.call("GET", "/api/admin/audit?action=webhook", undefined, await admin());
    expect(JSON.stringify(shown.body)).not.toContain("s3cr3t-path-token");
    const create = shown.body.entries.find(
      (entry: { action: string; target: string }) => entry.action === "webhook.create" && entry.target === `webhook:${created.body.id}`,
    );
    expect(create.after.url).toMatch(/^https:\/\/93\.184\.216\.34\/\[path sha256:[0-9a-f]{12}\]$/);
    // A row written before (the whole URL in it) is shown the same way.
    await ctx.sql`
      insert into audit_log (actor, action, target, details, after, created_at)
      values ('cli', 'webhook.create', 'webhook:999999', '{}', ${ctx.sql.json({ id: 999999, url: "https://93.184.216.34/hooks/old-s3cr3t-path-token" })}, now())`;
    const old = await ctx.call("GET", "/api/admin/audit?action=webhook.create", undefined, await admin());
    expect(JSON.stringify(old.body)).not.toContain("old-s3cr3t-path-token");
  });
});
