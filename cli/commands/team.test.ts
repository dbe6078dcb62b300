/**
 * `spooks-admin team list|add|remove` and `approvals list` (issue 35, item 6), the real binary against a test
 * database: direct changes audited as the operator's (`cli`), the owner from ADMIN_ADDRESS (or demo mode's admin),
 * a removal ending the member's sessions, bad input refused with the API's words.
 */
import { hexToBytes } from "@noble/hashes/utils.js";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addressOfPrivateKey } from "../../app/domain/signature.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { randomAddress } from "../testing/fixtures.ts";
import { cliEnv, runCli, runJson, type CliEnv } from "../testing/run-cli.ts";

// Each test runs several CLI processes, each starting Node, tsx and the database.
vi.setConfig({ testTimeout: 120_000 });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: CliEnv;
const owner = randomAddress();
const member = randomAddress();

beforeAll(async () => {
  db = await createTestDatabase();
  env = cliEnv(db.url, { ADMIN_ADDRESS: owner, ORD_URL: "http://127.0.0.1:9" });
});
afterAll(async () => {
  await db?.close();
});

type Member = { address: string; role: string; addedBy: string | null; addedAt: string | null };

describe("spooks-admin team", () => {
  it("list: the owner alone until someone is added", async () => {
    expect(await runJson<Member[]>(["team", "list"], env)).toEqual([{ address: owner, role: "owner", addedBy: null, addedAt: null }]);
  });

  it("add: a member with a role, audited as the operator's; list shows them", async () => {
    const added = await runJson<Member>(["team", "add", member, "moderator"], env);
    expect(added).toMatchObject({ address: member, role: "moderator", addedBy: "cli" });
    const [audit] = await db.sql`select actor, action, target, after from audit_log where action = 'team.add'`;
    expect(audit).toEqual({ actor: "cli", action: "team.add", target: member, after: { role: "moderator" } });
    const table = await runCli(["team", "list"], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(member);
    expect(table.stdout).toContain("moderator");
  });

  it("add: refuses a bad address, an unknown role and the owner, changing nothing", async () => {
    for (const [args, message] of [
      [["DNotAnAddress", "viewer"], "Invalid Dogecoin address"],
      [[randomAddress(), "wizard"], "role must be one of admin, moderator, viewer"],
      [[owner, "viewer"], "That address is the owner (ADMIN_ADDRESS)"],
    ] as const) {
      const result = await runCli(["team", "add", ...args], env);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toContain(message);
    }
    expect(await db.sql`select count(*)::int as n from team_members`).toEqual([{ n: 1 }]);
  });

  it("remove: asks first (refused without a terminal), then removes the member and ends their sessions", async () => {
    await db.sql`
      insert into sessions (token_hash, address, created_at, expires_at)
      values (${"ab".repeat(32)}, ${member}, now(), now() + interval '1 hour')`;
    const unasked = await runCli(["team", "remove", member], env);
    expect(unasked.code).toBe(1);
    expect(unasked.stderr).toContain("needs confirmation");
    const removed = await runJson(["team", "remove", member, "--yes"], env);
    expect(removed).toEqual({ address: member, sessionsEnded: 1 });
    expect(await db.sql`select revoked_at is not null as revoked from sessions where address = ${member}`).toEqual([{ revoked: true }]);
    const ownerRemoval = await runCli(["team", "remove", owner, "--yes"], env);
    expect(ownerRemoval.code).toBe(1);
    expect(ownerRemoval.stderr).toContain("The owner (ADMIN_ADDRESS) cannot be removed from the team");
  });

  it("in demo mode the owner is the demo admin of DATA_DIR", async () => {
    const demo = cliEnv(db.url);
    const [first] = await runJson<Member[]>(["team", "list"], demo);
    const keys = JSON.parse(fs.readFileSync(path.join(demo.DATA_DIR!, "demo-wallets.json"), "utf8")) as { admin: string };
    expect(first).toMatchObject({ role: "owner", address: addressOfPrivateKey(hexToBytes(keys.admin)) });
  });
});

describe("spooks-admin approvals", () => {
  it("list: each approval with its status and before → after; --status filters; a bad status is refused", async () => {
    await db.sql`
      insert into admin_approvals (kind, operation, input, summary, preview, proposed_by, created_at, expires_at)
      values ('clear-points', 'clearPoints', ${db.sql.json({ address: member })}, ${`Clear the points of ${member}`},
              ${db.sql.json({ before: { points: 42 }, after: { points: 0 } })}, ${owner}, now(), now() + interval '24 hours'),
             ('boosts', 'setBoosts', '{}', 'Set the boost schedule', '{"before":null,"after":null}', ${owner},
              now() - interval '2 days', now() - interval '1 day')`;
    const all = await runJson<{ status: string; summary: string; preview: unknown }[]>(["approvals", "list"], env);
    expect(all.map((entry) => entry.status)).toEqual(["expired", "pending"]);
    const pending = await runJson<{ summary: string; preview: unknown }[]>(["approvals", "list", "--status", "pending"], env);
    expect(pending).toEqual([
      expect.objectContaining({ summary: `Clear the points of ${member}`, preview: { before: { points: 42 }, after: { points: 0 } } }),
    ]);
    const table = await runCli(["approvals", "list"], env);
    expect(table.stdout).toContain('{"points":42} → {"points":0}');
    const bad = await runCli(["approvals", "list", "--status", "maybe"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--status must be one of pending, approved, rejected, expired");
  });
});
