/**
 * Migrations 0025 and 0026 on a database that already has email subscriptions and deleted giveaways (issue 32):
 * the links already mailed keep working though their tokens are now kept only hashed, each mailbox's standing is
 * recorded from its subscriptions (normalized as the app does), and a giveaway id deleted before is never used again.
 */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { normalizedMailbox } from "../app/domain/email-notifications.ts";
import type { Sql } from "./client.server.ts";
import { databaseBefore } from "./testing/older-database.ts";
import { confirmEmail, findSubscriptionByUnsubscribeToken, unsubscribeEmail } from "./queries/email-subscriptions.server.ts";

let sql: Sql;
let close: () => Promise<void>;

const token = () => randomBytes(32).toString("base64url");
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const tokens = { confirm: token(), unsubscribeA: token(), unsubscribeB: token(), unsubscribeC: token() };

beforeAll(async () => {
  const older = await databaseBefore("m0025", "0025");
  ({ sql } = older);
  close = older.close;
  const row = (address: string, email: string, confirmToken: string, unsubscribeToken: string, state: string) => sql`
    insert into email_subscriptions (address, email, events, confirm_token_hash, unsubscribe_token, confirmed_at, unsubscribed_at,
                                     unsubscribe_reason, created_at)
    values (${address}, ${email}, ${["stake.ended"]}, ${sha(confirmToken)}, ${unsubscribeToken},
            ${state === "pending" ? null : new Date("2026-10-02T10:00:00Z")},
            ${state === "one-click" || state === "bounced" ? new Date("2026-10-03T10:00:00Z") : null},
            ${state === "one-click" || state === "bounced" ? state : null}, ${new Date("2026-10-01T10:00:00Z")})`;
  await row("DWalletA", "Pending.Holder+spooks@GoogleMail.com", tokens.confirm, tokens.unsubscribeA, "pending");
  await row("DWalletB", "left@example.com", token(), tokens.unsubscribeB, "one-click");
  await row("DWalletC", "Kept@Example.com", token(), tokens.unsubscribeC, "confirmed");
  // A giveaway deleted before (its audit row is all that is left of it), and one that still exists.
  const [kept] = await sql<{ id: number }[]>`
    insert into giveaways (title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, created_at)
    values ('Kept', 'd', '/x.png', 1, now() + interval '1 day', ${"0".repeat(64)}, ${"1".repeat(64)}, now()) returning id`;
  await sql`
    insert into audit_log (actor, action, target, details, created_at)
    values ('cli', 'giveaway.delete', ${`giveaway:${kept.id + 40}`}, '{}', now()), ('cli', 'giveaway.delete', 'giveaway:banana', '{}', now())`;
  await older.migrateTheRest();
}, 120_000);

afterAll(async () => {
  await close?.();
});

it("keeps every link already mailed working, with no token left in the clear", async () => {
  const columns = await sql<{ name: string }[]>`
    select column_name as name from information_schema.columns where table_name = 'email_subscriptions'`;
  expect(columns.map((column) => column.name)).not.toContain("unsubscribe_token");
  expect(columns.map((column) => column.name)).not.toContain("confirm_token_hash");
  const everything = JSON.stringify(await sql`select * from email_link_tokens`);
  for (const plain of Object.values(tokens)) expect(everything).not.toContain(plain);

  expect((await findSubscriptionByUnsubscribeToken(sql, tokens.unsubscribeC))?.address).toBe("DWalletC");
  expect((await confirmEmail(sql, tokens.confirm))?.address).toBe("DWalletA");
  expect(await unsubscribeEmail(sql, tokens.unsubscribeA)).toBe(true);
});

it("records each mailbox's standing from its subscriptions, normalized as the app normalizes", async () => {
  const mailboxes = await sql<{ mailbox: string; confirmed: boolean; suppressedReason: string | null }[]>`
    select mailbox, confirmed_at is not null as confirmed, suppressed_reason from email_mailboxes order by mailbox`;
  expect(mailboxes).toEqual(
    expect.arrayContaining([
      { mailbox: normalizedMailbox("left@example.com"), confirmed: true, suppressedReason: "unsubscribed" },
      { mailbox: normalizedMailbox("Kept@Example.com"), confirmed: true, suppressedReason: null },
    ]),
  );
  // The pending one was confirmed and then unsubscribed by the first test, under the app's own normalization.
  expect(mailboxes.map((row) => row.mailbox).sort()).toEqual(
    [normalizedMailbox("Pending.Holder+spooks@GoogleMail.com"), "kept@example.com", "left@example.com"].sort(),
  );
});

it("never uses again the id of a giveaway deleted before the migration", async () => {
  const [{ id }] = await sql<{ id: number }[]>`select id from giveaways where title = 'Kept'`;
  expect(await sql`select giveaway_id from giveaway_deletions`).toEqual([{ giveawayId: id + 40 }]);
  const refused = await sql`
    insert into giveaways (id, title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, created_at)
    values (${id + 40}, 'Again', 'd', '/x.png', 1, now() + interval '1 day', ${"0".repeat(64)}, ${"1".repeat(64)}, now())`.then(
    () => "accepted",
    (error: { code?: string }) => error.code,
  );
  expect(refused).toBe("23514");
});
