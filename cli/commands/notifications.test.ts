/**
 * `spooks-admin notifications list [--failed] [--json]`, `notifications replay ID` and `notifications test CHANNEL`
 * (the real binary) against a test database and the Discord double.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startDiscordDouble, type DiscordDouble, type Webhook } from "../../doubles/discord/discord-double.server.ts";
import { notify } from "../../db/queries/notifications.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { cliEnv, runCli, runJson, type CliEnv } from "../testing/run-cli.ts";

// Each test runs several CLI processes, each starting Node, tsx and the database: more than the suite's 30 s on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let discord: DiscordDouble;
let webhook: Webhook;
let env: CliEnv;
let failedId = 0;
let deliveredId = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  discord = await startDiscordDouble();
  webhook = discord.createWebhook();
  env = cliEnv(db.url, { DISCORD_WEBHOOK_URL: webhook.url, DISCORD_API_URL: discord.apiUrl });
  await notify(db.sql, [
    { event: "giveaway.opened", subject: "cli-1", title: "One", body: "b", link: "/rewards" },
    { event: "giveaway.opened", subject: "cli-2", title: "Two", body: "b", link: "/rewards" },
  ]);
  const events = await db.sql<{ id: number }[]>`select id from notification_events order by id`;
  [{ id: deliveredId }, { id: failedId }] = await db.sql<{ id: number }[]>`
    insert into notification_deliveries (event_id, channel, target, state, attempts, last_status_code, last_error, created_at, next_attempt_at)
    values (${events[0].id}, 'discord', '', 'delivered', 1, 200, null, now(), now()),
           (${events[1].id}, 'discord', '', 'failed', 1, 404, '404 Unknown Webhook', now(), now())
    returning id`;
});
afterAll(async () => {
  await discord?.close();
  await db?.close();
});

describe("spooks-admin notifications", () => {
  it("list --failed --json answers the failed deliveries as the API does; list shows them all", async () => {
    const page = await runJson<{ entries: { id: number; state: string; lastError: string }[] }>(
      ["notifications", "list", "--failed", "--json"],
      env,
    );
    expect(page.entries).toEqual([expect.objectContaining({ id: failedId, state: "failed", lastError: "404 Unknown Webhook" })]);
    const table = await runCli(["notifications", "list"], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain("404 Unknown Webhook");
    expect(table.stdout).toContain(String(deliveredId));
  });

  it("replay ID puts it back to pending and audits it; an unknown id is refused", async () => {
    const replayed = await runJson<{ id: number; state: string }>(["notifications", "replay", String(failedId), "--json"], env);
    expect(replayed).toMatchObject({ id: failedId, state: "pending" });
    const [audit] = await db.sql`select actor, action, target from audit_log where action = 'notifications.replay'`;
    expect(audit).toEqual({ actor: "cli", action: "notifications.replay", target: `delivery:${failedId}` });
    const unknown = await runCli(["notifications", "replay", "999999"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Delivery not found");
  });

  it("test CHANNEL posts a test on Discord now; a channel with nobody to send to exits 1", async () => {
    const answer = await runJson<{ results: { outcome: string }[] }>(["notifications", "test", "discord", "--json"], env);
    expect(answer.results).toEqual([{ target: "", outcome: "delivered", statusCode: 200, error: null }]);
    expect(discord.messages(webhook.id)).toHaveLength(1);
    // Issue 33, item 8: the email test goes to the sender's own mailbox (MAIL_FROM), which demo mode captures.
    const email = await runJson<{ results: { target: string; outcome: string }[] }>(["notifications", "test", "email", "--json"], env);
    expect(email.results).toEqual([{ target: "test", outcome: "delivered", statusCode: 250, error: null }]);
    // A channel with nobody to send to: the signed webhooks, no endpoint yet.
    const noEndpoint = await runCli(["notifications", "test", "webhook"], env);
    expect(noEndpoint.code).toBe(1);
    const bad = await runCli(["notifications", "test", "pigeon"], env);
    expect(bad.code).toBe(1);
  });
});
