/**
 * The admin team over real HTTP (issue 35, items 2, 3 and 5): the spec's single admin while no team exists; the
 * owner adds and removes members (bad input 400); a member signs in with the same challenge and gets their role;
 * removing a member ends their sessions at once, and membership is read on every request; the sessions list
 * (created, last seen, user agent) and ending a session.
 */
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newWallet, signIn, useApi, type Wallet } from "./support.ts";

const ctx = useApi();

async function owner() {
  return { cookie: await ctx.adminCookie() };
}

describe("while no team exists", () => {
  it("the owner (ADMIN_ADDRESS) is the only admin, exactly as the spec's one admin", async () => {
    const team = await ctx.call("GET", "/api/admin/team", undefined, await owner());
    expect(team.body).toEqual([{ address: ctx.admin.address, role: "owner", addedBy: null, addedAt: null }]);
    const stranger = newWallet();
    const challenge = await ctx.call("GET", `/api/auth/challenge?address=${stranger.address}`);
    expect([challenge.status, challenge.body]).toEqual([403, { message: "Only the admin wallet can sign in" }]);
    const session = await ctx.call("GET", "/api/auth/session", undefined, await owner());
    expect(session.body).toEqual({ address: ctx.admin.address, isAdmin: true, role: "owner" });
  });
});

describe("the owner manages the team", () => {
  let moderator: Wallet;
  let moderatorCookie = "";

  it("adds a member, who signs in with the same challenge and gets their role", async () => {
    moderator = newWallet();
    const added = await ctx.call("POST", "/api/admin/team", { address: moderator.address, role: "moderator" }, await owner());
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ address: moderator.address, role: "moderator", addedBy: ctx.admin.address });
    const challenge = await ctx.call("GET", `/api/auth/challenge?address=${moderator.address}`);
    expect(challenge.body.message).toContain("Sign in to Spooks.");
    const signed = await ctx.call(
      "POST",
      "/api/auth/session",
      { address: moderator.address, message: challenge.body.message, signature: moderator.sign(challenge.body.message) },
      { headers: { "user-agent": "TeamTest/1.0 (moderator's laptop)" } },
    );
    expect(signed.body).toEqual({ address: moderator.address, isAdmin: true, role: "moderator" });
    moderatorCookie = signed.headers.getSetCookie()[0].split(";")[0];
    expect((await ctx.call("GET", "/api/auth/session", undefined, { cookie: moderatorCookie })).body).toMatchObject({ role: "moderator" });
    const [audit] = await ctx.sql`select actor_address, after from audit_log where action = 'team.add' and target = ${moderator.address}`;
    expect(audit).toEqual({ actorAddress: ctx.admin.address, after: { role: "moderator" } });
    const team = await ctx.call("GET", "/api/admin/team", undefined, { cookie: moderatorCookie });
    expect(team.body.map((member: { role: string }) => member.role)).toEqual(["owner", "moderator"]);
  });

  it("gives a member another role with the same call (audited team.role)", async () => {
    const viewer = newWallet();
    await ctx.call("POST", "/api/admin/team", { address: viewer.address, role: "viewer" }, await owner());
    const promoted = await ctx.call("POST", "/api/admin/team", { address: viewer.address, role: "admin" }, await owner());
    expect(promoted.body.role).toBe("admin");
    const [audit] = await ctx.sql`select before, after from audit_log where action = 'team.role' and target = ${viewer.address}`;
    expect(audit).toEqual({ before: { role: "viewer" }, after: { role: "admin" } });
  });

  it("refuses a bad address, an unknown role, the owner's address and removing the owner (400 with a message)", async () => {
    const cases: [string, string, unknown, string][] = [
      ["POST", "/api/admin/team", { address: "DNotAnAddress", role: "viewer" }, "Invalid Dogecoin address"],
      ["POST", "/api/admin/team", { address: newWallet().address, role: "owner" }, "role must be one of admin, moderator, viewer"],
      ["POST", "/api/admin/team", { address: newWallet().address, role: "wizard" }, "role must be one of admin, moderator, viewer"],
      [
        "POST",
        "/api/admin/team",
        { address: ctx.admin.address, role: "viewer" },
        "That address is the owner (ADMIN_ADDRESS): the owner's role never changes",
      ],
      ["DELETE", `/api/admin/team/${ctx.admin.address}`, undefined, "The owner (ADMIN_ADDRESS) cannot be removed from the team"],
      ["DELETE", `/api/admin/team/${newWallet().address}`, undefined, "No member has that address"],
      ["DELETE", "/api/admin/team/DNotAnAddress", undefined, "Invalid Dogecoin address"],
    ];
    for (const [method, path, body, message] of cases) {
      const answer = await ctx.call(method, path, body, await owner());
      expect([answer.status, answer.body], `${method} ${path} ${JSON.stringify(body)}`).toEqual([400, { message }]);
    }
  });

  it("lists sessions with when they began, were last seen and from which browser; each member sees only their own", async () => {
    const all = await ctx.call("GET", "/api/admin/sessions", undefined, await owner());
    const mine = all.body.find((session: { address: string }) => session.address === moderator.address);
    expect(mine).toMatchObject({ role: "moderator", userAgent: "TeamTest/1.0 (moderator's laptop)", current: false });
    expect(mine.id).toMatch(/^[0-9a-f]{12}$/);
    expect(Date.parse(mine.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(mine.createdAt));
    expect(
      all.body.some((session: { address: string; current: boolean }) => session.address === ctx.admin.address && session.current),
    ).toBe(true);
    const own = await ctx.call("GET", "/api/admin/sessions", undefined, { cookie: moderatorCookie });
    expect(own.body.map((session: { address: string }) => session.address)).toEqual([moderator.address]);
    expect(own.body[0].current).toBe(true);
  });

  it("a member may not end another's session (403); the owner may end anyone's, and it is over at once", async () => {
    const ownerSessions = await ctx.call("GET", "/api/admin/sessions", undefined, await owner());
    const ownerSession = ownerSessions.body.find((session: { current: boolean }) => session.current);
    const refused = await ctx.call("DELETE", `/api/admin/sessions/${ownerSession.id}`, undefined, { cookie: moderatorCookie });
    expect(refused.body).toEqual({ message: "A moderator cannot end another member's session" });

    const second = await signIn(ctx, moderator);
    const modSession = ownerSessions.body.find((session: { address: string }) => session.address === moderator.address);
    const ended = await ctx.call("DELETE", `/api/admin/sessions/${modSession.id}`, undefined, await owner());
    expect(ended.body).toEqual({ success: true });
    expect((await ctx.call("GET", "/api/admin/users", undefined, { cookie: moderatorCookie })).status).toBe(401);
    expect((await ctx.call("GET", "/api/admin/users", undefined, { cookie: second })).status).toBe(200);
    const [audit] = await ctx.sql`select actor_address, target, details from audit_log where action = 'auth.session-end'`;
    expect(audit).toMatchObject({ actorAddress: ctx.admin.address, target: moderator.address, details: { session: modSession.id } });
    expect((await ctx.call("DELETE", `/api/admin/sessions/${modSession.id}`, undefined, await owner())).status).toBe(404);
    moderatorCookie = second;
  });

  it("removing a member ends their sessions at once: their next request is refused", async () => {
    const third = await signIn(ctx, moderator);
    const before = await ctx.call("GET", "/api/admin/users", undefined, { cookie: moderatorCookie });
    expect(before.status).toBe(200);
    const removed = await ctx.call("DELETE", `/api/admin/team/${moderator.address}`, undefined, await owner());
    expect(removed.body).toEqual({ success: true });
    for (const cookie of [moderatorCookie, third]) {
      const after = await ctx.call("GET", "/api/admin/users", undefined, { cookie });
      expect([after.status, after.body]).toEqual([401, { message: "Sign in as the admin first" }]);
    }
    const [audit] =
      await ctx.sql`select details, before, after from audit_log where action = 'team.remove' and target = ${moderator.address}`;
    expect(audit).toEqual({ details: { sessionsEnded: 2 }, before: { role: "moderator" }, after: null });
    expect((await ctx.call("GET", `/api/auth/challenge?address=${moderator.address}`)).status).toBe(403);
  });

  it("membership is read on every request: a session that outlived its member's row is refused (403)", async () => {
    const member = newWallet();
    await ctx.call("POST", "/api/admin/team", { address: member.address, role: "admin" }, await owner());
    // A session row the removal did not reach (written after it, or by an older release): only membership decides.
    const token = randomBytes(32).toString("base64url");
    await ctx.ownerSql`delete from team_members where address = ${member.address}`;
    await ctx.sql`
      insert into sessions (token_hash, address, created_at, expires_at)
      values (${createHash("sha256").update(token).digest("hex")}, ${member.address}, now(), now() + interval '1 hour')`;
    const answer = await ctx.call("GET", "/api/admin/users", undefined, { cookie: `spooks_session=${token}` });
    expect([answer.status, answer.body]).toEqual([403, { message: "Only the admin may do this" }]);
  });

  it("only the owner manages the team (403 naming the role)", async () => {
    const admin = newWallet();
    await ctx.call("POST", "/api/admin/team", { address: admin.address, role: "admin" }, await owner());
    const cookie = await signIn(ctx, admin);
    const answer = await ctx.call("POST", "/api/admin/team", { address: newWallet().address, role: "viewer" }, { cookie });
    expect([answer.status, answer.body]).toEqual([403, { message: "An admin cannot manage the team" }]);
    const points = await ctx.call("POST", "/api/admin/recalculate-points", undefined, { cookie });
    expect(points.status).toBe(200);
  });
});
