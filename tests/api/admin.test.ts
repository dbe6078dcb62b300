/** Sign-in (challenge, session cookie) and the admin points routes. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { balanceUnits, givePoints, newWallet, nonAdminSession, useApi } from "./support.ts";

const ctx = useApi();

async function challengeFor(address: string) {
  const answer = await ctx.call("GET", `/api/auth/challenge?address=${address}`);
  expect(answer.status).toBe(200);
  return answer.body as { message: string; expiresAt: string };
}

describe("sign-in", () => {
  it("issues a one-time challenge laid out like Sign-In With Ethereum, for Dogecoin", async () => {
    const { message, expiresAt } = await challengeFor(ctx.admin.address);
    const host = new URL(ctx.url).host;
    const lines = message.split("\n");
    expect(lines[0]).toBe(`${host} wants you to sign in with your Dogecoin account:`);
    expect(lines[1]).toBe(ctx.admin.address);
    expect(lines[2]).toBe("");
    expect(lines[4]).toBe("");
    expect(lines[5]).toBe(`URI: ${ctx.url}`);
    expect(lines[6]).toMatch(/^Nonce: [A-Za-z0-9]{16,}$/);
    const issuedAt = Date.parse(lines[7].replace("Issued At: ", ""));
    expect(lines[8]).toBe(`Expiration Time: ${expiresAt}`);
    expect(Date.parse(expiresAt) - issuedAt).toBe(10 * 60_000);
    expect((await ctx.call("GET", "/api/auth/challenge")).status).toBe(400);
    expect((await ctx.call("GET", "/api/auth/challenge?address=DNotAnAddress")).status).toBe(400);
  });

  it("opens an HTTP-only SameSite=Strict session stored hashed, once per challenge", async () => {
    const { message } = await challengeFor(ctx.admin.address);
    const body = { address: ctx.admin.address, message, signature: ctx.admin.sign(message) };
    const answer = await ctx.call("POST", "/api/auth/session", body);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ address: ctx.admin.address, isAdmin: true, role: "owner" });
    const setCookie = answer.headers.getSetCookie()[0];
    expect(setCookie).toMatch(/^spooks_session=[\w-]{40,};/);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/;");
    expect(setCookie).toContain(`Max-Age=${12 * 3600}`);
    expect(setCookie).not.toContain("Secure"); // plain http, no PUBLIC_URL: tests/api/security.test.ts has https
    const token = setCookie.split(";")[0].split("=")[1];
    const hashes = (await ctx.sql`select token_hash from sessions`).map((row) => row.tokenHash);
    expect(hashes).toContain(createHash("sha256").update(token).digest("hex"));
    expect(hashes).not.toContain(token);

    const cookie = `spooks_session=${token}`;
    expect((await ctx.call("GET", "/api/auth/session", undefined, { cookie })).body).toEqual({
      address: ctx.admin.address,
      isAdmin: true,
      role: "owner",
    });
    expect((await ctx.call("POST", "/api/auth/session", body)).status).toBe(401);

    const out = await ctx.call("DELETE", "/api/auth/session", undefined, { cookie });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toContain("Max-Age=0");
    expect((await ctx.call("GET", "/api/auth/session", undefined, { cookie })).body).toEqual({ address: null, isAdmin: false, role: null });
    expect((await ctx.call("GET", "/api/admin/users", undefined, { cookie })).status).toBe(401);
  });

  it("refuses forged, tampered, foreign and expired challenges (401)", async () => {
    const intruder = newWallet();
    const { message } = await challengeFor(ctx.admin.address);
    const post = (body: unknown) => ctx.call("POST", "/api/auth/session", body);
    expect((await post({ address: ctx.admin.address, message, signature: intruder.sign(message) })).status).toBe(401);
    const tampered = message.replace(/Nonce: (\w+)/, "Nonce: AAAAAAAAAAAAAAAAAAAAAAAA");
    expect((await post({ address: ctx.admin.address, message: tampered, signature: ctx.admin.sign(tampered) })).status).toBe(401);
    const invented = message.replace(/Expiration Time: .*/, "Expiration Time: 2099-01-01T00:00:00.000Z");
    expect((await post({ address: ctx.admin.address, message: invented, signature: ctx.admin.sign(invented) })).status).toBe(401);
    const theirs = message.replace(ctx.admin.address, intruder.address);
    expect((await post({ address: ctx.admin.address, message: theirs, signature: ctx.admin.sign(theirs) })).status).toBe(401);
    expect((await post({ address: intruder.address, message: theirs, signature: intruder.sign(theirs) })).status).toBe(403);
    expect((await post({ address: ctx.admin.address, message: "hello", signature: ctx.admin.sign("hello") })).status).toBe(401);

    const stale = await challengeFor(ctx.admin.address);
    const nonce = /Nonce: (\w+)/.exec(stale.message)![1];
    await ctx.sql`update auth_challenges set issued_at = issued_at - interval '1 hour', expires_at = expires_at - interval '1 hour' where nonce = ${nonce}`;
    expect((await post({ address: ctx.admin.address, message: stale.message, signature: ctx.admin.sign(stale.message) })).status).toBe(401);
    expect((await post({ address: 12, message: 1, signature: null })).status).toBe(400);
  });

  it("gives no challenge to an address that is not the admin (403, nothing stored)", async () => {
    const holder = newWallet();
    const before = await ctx.sql`select count(*)::int as n from auth_challenges`;
    const answer = await ctx.call("GET", `/api/auth/challenge?address=${holder.address}`);
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ message: "Only the admin wallet can sign in" });
    expect(await ctx.sql`select count(*)::int as n from auth_challenges`).toEqual(before);
  });

  it("refuses admin routes to a session that is not the admin's (ADMIN_ADDRESS changed since): 403", async () => {
    const holder = newWallet();
    const cookie = await nonAdminSession(ctx.sql, holder.address);
    expect((await ctx.call("GET", "/api/auth/session", undefined, { cookie })).body).toEqual({
      address: holder.address,
      isAdmin: false,
      role: null,
    });
    expect((await ctx.call("GET", "/api/admin/users", undefined, { cookie })).status).toBe(403);
    expect((await ctx.call("POST", "/api/add-permanent-points", { address: holder.address, amount: 5 }, { cookie })).status).toBe(403);
  });
});

describe("admin points", () => {
  const adminOnly: [string, string, unknown][] = [
    ["GET", "/api/admin/users", undefined],
    ["POST", "/api/add-permanent-points", { amount: 5 }],
    ["POST", "/api/admin/clear-points", {}],
    ["POST", "/api/admin/recalculate-points", {}],
    ["POST", "/api/admin/reset-negative-balances", {}],
  ];

  it("refuses every admin points call without a session, even naming the admin in the body (401)", async () => {
    for (const [method, path, body] of adminOnly) {
      const withAdmin =
        body === undefined ? undefined : { ...(body as object), address: ctx.admin.address, adminAddress: ctx.admin.address };
      const answer = await ctx.call(method, path, withAdmin);
      expect(answer.status, path).toBe(401);
      expect(answer.body.message).toEqual(expect.any(String));
    }
  });

  it("adds, lists (with a case-insensitive search), clears, and audits", async () => {
    const cookie = await ctx.adminCookie();
    const holder = newWallet();
    const added = await ctx.call(
      "POST",
      "/api/add-permanent-points",
      { address: holder.address, amount: 12.5, description: "Thanks" },
      { cookie },
    );
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ success: true, address: holder.address, totalPoints: 12.5 });
    await ctx.call("POST", "/api/add-permanent-points", { address: holder.address, amount: "7.5" }, { cookie });
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(20 * 2400);
    const [ledger] = await ctx.sql`select description, actor from points_ledger where address = ${holder.address} order by id desc limit 1`;
    expect(ledger).toEqual({ description: "Manual adjustment by admin", actor: `web:${ctx.admin.address}` });

    const needle = holder.address.slice(5, 15).toLowerCase();
    const users = await ctx.call("GET", `/api/admin/users?search=${needle}`, undefined, { cookie });
    expect(users.body).toEqual([{ address: holder.address, totalPoints: 20, stakedCount: 0, dailyRate: 0 }]);
    const all = await ctx.call("GET", "/api/admin/users", undefined, { cookie });
    expect(all.body.length).toBeGreaterThanOrEqual(1);

    const cleared = await ctx.call(
      "POST",
      "/api/admin/clear-points",
      { address: holder.address, adminAddress: ctx.admin.address },
      { cookie },
    );
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ success: true, clearedPoints: 20 });
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(0);
    const actions = (await ctx.sql`select action from audit_log where target = ${holder.address} order by id`).map((row) => row.action);
    expect(actions).toEqual(["points.add", "points.add", "points.clear"]);
  });

  it("validates amounts and addresses (400)", async () => {
    const cookie = await ctx.adminCookie();
    const holder = newWallet();
    for (const amount of [0, -5, "abc", 1e12, 1.234, null, Number.MAX_SAFE_INTEGER]) {
      const answer = await ctx.call("POST", "/api/add-permanent-points", { address: holder.address, amount }, { cookie });
      expect(answer.status, String(amount)).toBe(400);
    }
    expect((await ctx.call("POST", "/api/add-permanent-points", { address: "nope", amount: 5 }, { cookie })).status).toBe(400);
    expect((await ctx.call("POST", "/api/admin/clear-points", { address: "nope" }, { cookie })).status).toBe(400);
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(0);
  });

  it("accepts every amount with at most 2 decimals up to the maximum, exactly", async () => {
    const cookie = await ctx.adminCookie();
    const holder = newWallet();
    // 555,555,555.55 × 100 is not a whole number in binary floating point; it is still a valid amount.
    const added = await ctx.call("POST", "/api/add-permanent-points", { address: holder.address, amount: 555_555_555.55 }, { cookie });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ success: true, totalPoints: 555_555_555.55 });
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(55_555_555_555 * 24);
  });

  it("recalculates cached balances from the ledger and resets negative balances with ledger rows", async () => {
    const cookie = await ctx.adminCookie();
    const drifted = newWallet();
    const negative = newWallet();
    await givePoints(ctx.sql, drifted.address, 40);
    await ctx.sql`update balances set units = 1 where address = ${drifted.address}`;
    const recalculated = await ctx.call("POST", "/api/admin/recalculate-points", { address: ctx.admin.address }, { cookie });
    expect(recalculated.status).toBe(200);
    const [{ n }] = await ctx.sql`select count(*)::int as n from balances`;
    expect(recalculated.body).toEqual({ success: true, addressesProcessed: n });
    expect(await balanceUnits(ctx.sql, drifted.address)).toBe(40 * 2400);

    await ctx.sql`
      insert into points_ledger (address, kind, amount, actor, created_at)
      values (${negative.address}, 'admin_clear', ${-30 * 2400}, 'cli', now())`;
    const reset = await ctx.call("POST", "/api/admin/reset-negative-balances", {}, { cookie });
    expect(reset.body).toEqual({ success: true, adjustmentsApplied: 1 });
    expect(await balanceUnits(ctx.sql, negative.address)).toBe(0);
    const again = await ctx.call("POST", "/api/admin/reset-negative-balances", {}, { cookie });
    expect(again.body).toEqual({ success: true, adjustmentsApplied: 0 });
  });
});
