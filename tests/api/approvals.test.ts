/**
 * Second signatures (issue 35, item 4) over real HTTP, a real database and real wallet signatures: off by
 * default; a covered request answers 202 and changes nothing; only a different member with the right to do it
 * applies it, by signing `Approve Spooks action #{id}: {summary}. Timestamp: {ISO}`, in the same transaction as
 * the decision; the proposer never approves their own; a refused action leaves it pending; reject; expiry after
 * 24 hours; proposer and approver in the audit row; `approval.pending` on the admin channels only.
 */
import { describe, expect, it } from "vitest";
import { newDrawSeed } from "../../app/domain/giveaways.ts";
import { pointsToUnits } from "../../app/domain/rewards.ts";
import { deleteGiveaway } from "../../db/queries/giveaways.server.ts";
import { approveAs, balanceUnits, givePoints, minutesFromNow, newWallet, signedApproval, signIn, useApi, type Wallet } from "./support.ts";

const ctx = useApi();

const team = {} as { admin: Wallet; moderator: Wallet; cookies: Record<"owner" | "admin" | "moderator", string> };

async function owner() {
  return { cookie: await ctx.adminCookie() };
}

async function addTeam() {
  if (team.cookies) return;
  const cookies = { owner: await ctx.adminCookie() } as Record<"owner" | "admin" | "moderator", string>;
  for (const role of ["admin", "moderator"] as const) {
    team[role] = newWallet();
    await ctx.call("POST", "/api/admin/team", { address: team[role].address, role }, { cookie: cookies.owner });
    cookies[role] = await signIn(ctx, team[role]);
  }
  team.cookies = cookies;
}

const setPolicy = (body: { pointsAbove: number | null; actions: string[] }, cookie: string) =>
  ctx.call("PUT", "/api/admin/approvals/policy", body, { cookie });

async function pendingEntry(id: number) {
  const list = await ctx.call("GET", "/api/admin/approvals", undefined, await owner());
  return list.body.entries.find((entry: { id: number }) => entry.id === id);
}

async function insertGiveaway(fields: { endDate: Date; title: string }): Promise<number> {
  const { seed, commitment } = newDrawSeed();
  const [row] = await ctx.sql<{ id: number }[]>`
    insert into giveaways (title, description, image_url, points_cost, end_date, active, draw_commitment, draw_seed, created_at)
    values (${fields.title}, 'A prize', '/x.png', 10, ${fields.endDate}, true, ${commitment}, ${seed}, now())
    returning id`;
  return row.id;
}

describe("with no policy (the default)", () => {
  it("every change applies at once, as the spec's single admin expects", async () => {
    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 5000);
    const policy = await ctx.call("GET", "/api/admin/approvals/policy", undefined, await owner());
    expect(policy.body).toEqual({ pointsAbove: null, actions: [] });
    const cleared = await ctx.call("POST", "/api/admin/clear-points", { address: holder.address }, await owner());
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ success: true, address: holder.address, clearedPoints: 5000 });
    expect((await ctx.call("GET", "/api/admin/approvals", undefined, await owner())).body.entries).toEqual([]);
  });
});

describe("a covered request", () => {
  const holder = newWallet();
  let id = 0;
  let summary = "";

  it("answers 202 and changes nothing but its pending row, announced to the admin channels only", async () => {
    await addTeam();
    await givePoints(ctx.sql, holder.address, 1234.5);
    const set = await setPolicy({ pointsAbove: 1000, actions: ["clear-points", "giveaway.delete", "team"] }, team.cookies.owner);
    expect(set.status).toBe(200);
    const auditBefore = await ctx.sql`select count(*)::int as n from audit_log where action = 'points.clear'`;

    const asked = await ctx.call("POST", "/api/admin/clear-points", { address: holder.address }, await owner());
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ approvalId: expect.any(Number), status: "pending" });
    ({ approvalId: id, summary } = asked.body);
    expect(summary).toBe(`Clear the points of ${holder.address}`);
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(pointsToUnits(1234.5));
    expect(await ctx.sql`select count(*)::int as n from audit_log where action = 'points.clear'`).toEqual(auditBefore);

    const entry = await pendingEntry(id);
    expect(entry).toMatchObject({
      id,
      action: "clear-points",
      summary,
      preview: { before: { points: 1234.5 }, after: { points: 0 } },
      proposedBy: ctx.admin.address,
      status: "pending",
      decidedBy: null,
    });
    expect(Date.parse(entry.expiresAt) - Date.parse(entry.createdAt)).toBe(24 * 3_600_000);

    const [event] =
      await ctx.sql`select event, recipient, title, body, link from notification_events where event = 'approval.pending' and subject = ${String(id)}`;
    expect(event).toMatchObject({ recipient: null, title: `Approval needed: action #${id}`, link: "/admin" });
    expect(event.body).toContain(summary);
    // Not in the site's public list.
    const publicList = await ctx.call("GET", `/api/notifications/${holder.address}`);
    expect(publicList.body.entries.map((entry: { event: string }) => entry.event)).not.toContain("approval.pending");
  });

  it("is never approved by its proposer, even the owner (403), and the signature stays unused", async () => {
    const own = signedApproval(ctx.admin, id, summary);
    const refused = await ctx.call("POST", `/api/admin/approvals/${id}/approve`, own, await owner());
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: "You proposed this action: a different member must approve it" });
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(pointsToUnits(1234.5));
    expect(await ctx.sql`select 1 from used_signatures where signature = ${own.signature}`).toHaveLength(0);
  });

  it("is refused to a member whose role may not do it (403 naming the role)", async () => {
    const refused = await ctx.call("POST", `/api/admin/approvals/${id}/approve`, signedApproval(team.moderator, id, summary), {
      cookie: team.cookies.moderator,
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: "A moderator cannot clear points" });
    expect((await pendingEntry(id)).status).toBe("pending");
  });

  it("is refused a signature that is not this approval's, someone else's, or stale (401)", async () => {
    const cookie = { cookie: team.cookies.admin };
    const path = `/api/admin/approvals/${id}/approve`;
    const other = signedApproval(team.admin, id, `Clear the points of ${newWallet().address}`);
    expect((await ctx.call("POST", path, other, cookie)).status).toBe(401);
    const byOwnerKey = signedApproval(ctx.admin, id, summary);
    expect((await ctx.call("POST", path, byOwnerKey, cookie)).status).toBe(401);
    const stale = signedApproval(team.admin, id, summary, new Date(Date.now() - 11 * 60_000));
    expect((await ctx.call("POST", path, stale, cookie)).status).toBe(401);
    expect((await pendingEntry(id)).status).toBe("pending");
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(pointsToUnits(1234.5));
  });

  it("is applied when a different member with the right signs it, in one transaction with the decision", async () => {
    const signed = signedApproval(team.admin, id, summary);
    const approved = await ctx.call("POST", `/api/admin/approvals/${id}/approve`, signed, { cookie: team.cookies.admin });
    expect(approved.status).toBe(200);
    expect(approved.body.approval).toMatchObject({ id, status: "approved", decidedBy: team.admin.address });
    expect(approved.body.result).toEqual({ success: true, address: holder.address, clearedPoints: 1234.5 });
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(0);

    const [row] =
      await ctx.sql`select actor, actor_address, details, before, after from audit_log where action = 'points.clear' and target = ${holder.address}`;
    expect(row).toMatchObject({
      actor: "web",
      actorAddress: ctx.admin.address,
      details: { approval: { id, proposedBy: ctx.admin.address, approvedBy: team.admin.address } },
      before: { points: 1234.5 },
      after: { points: 0 },
    });
    const [stored] = await ctx.sql`select approval_message, approval_signature from admin_approvals where id = ${id}`;
    expect(stored).toEqual({ approvalMessage: signed.message, approvalSignature: signed.signature });

    // Once: a second approval (even a fresh signature) is 409, and the same signature is a replay.
    const again = await ctx.call("POST", `/api/admin/approvals/${id}/approve`, signedApproval(team.admin, id, summary), {
      cookie: team.cookies.admin,
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: `Approval #${id} was already approved` });
  });

  it("stays pending when the action is refused at approval, with nothing changed", async () => {
    const giveawayId = await insertGiveaway({ endDate: minutesFromNow(600), title: "Haunted Hoodie" });
    const asked = await ctx.call("DELETE", `/api/giveaways/${giveawayId}`, undefined, { cookie: team.cookies.moderator });
    expect(asked.status).toBe(202);
    expect(asked.body.summary).toBe(`Delete giveaway #${giveawayId} "Haunted Hoodie"`);
    // Gone meanwhile (deleted outside the policy: the CLI's direct change).
    await deleteGiveaway(ctx.sql, giveawayId, { kind: "cli" });
    const approved = await approveAs(ctx, team.admin, team.cookies.admin, asked.body);
    expect(approved.status).toBe(404);
    expect((await pendingEntry(asked.body.approvalId)).status).toBe("pending");
  });

  it("is withdrawn by its proposer, or rejected by a member who could approve it; never applied after", async () => {
    const other = newWallet();
    await givePoints(ctx.sql, other.address, 50);
    const first = await ctx.call("POST", "/api/admin/clear-points", { address: other.address }, { cookie: team.cookies.admin });
    expect(first.status).toBe(202);
    const withdrawn = await ctx.call("POST", `/api/admin/approvals/${first.body.approvalId}/reject`, undefined, {
      cookie: team.cookies.admin,
    });
    expect(withdrawn.body).toMatchObject({ status: "rejected", decidedBy: team.admin.address });

    const second = await ctx.call("POST", "/api/admin/clear-points", { address: other.address }, { cookie: team.cookies.admin });
    const byModerator = await ctx.call("POST", `/api/admin/approvals/${second.body.approvalId}/reject`, undefined, {
      cookie: team.cookies.moderator,
    });
    expect(byModerator.status).toBe(403);
    expect(byModerator.body).toEqual({ message: "A moderator cannot clear points" });
    const rejected = await ctx.call("POST", `/api/admin/approvals/${second.body.approvalId}/reject`, undefined, await owner());
    expect(rejected.body).toMatchObject({ status: "rejected", decidedBy: ctx.admin.address });

    const late = await approveAs(ctx, ctx.admin, (await owner()).cookie, second.body);
    expect(late.status).toBe(409);
    expect(await balanceUnits(ctx.sql, other.address)).toBe(pointsToUnits(50));
    const audit = await ctx.sql`select action from audit_log where action = 'approval.reject' order by id`;
    expect(audit).toHaveLength(2);
  });
});

describe("what the policy covers", () => {
  it("points above the threshold: an addition over it waits, one under it applies", async () => {
    await addTeam();
    const holder = newWallet();
    const small = await ctx.call("POST", "/api/add-permanent-points", { address: holder.address, amount: 1000 }, await owner());
    expect(small.status).toBe(200);
    const big = await ctx.call("POST", "/api/add-permanent-points", { address: holder.address, amount: 1000.01 }, await owner());
    expect(big.status).toBe(202);
    expect(big.body.summary).toBe(`Add 1,000.01 points to ${holder.address}`);
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(pointsToUnits(1000));
    expect((await pendingEntry(big.body.approvalId)).preview).toEqual({ before: { points: 1000 }, after: { points: 2000.01 } });
  });

  it("a moderator may not delete a closed giveaway, policy or not (403), but may ask to delete an open one", async () => {
    const ended = await insertGiveaway({ endDate: minutesFromNow(-5), title: "Past prize" });
    const refused = await ctx.call("DELETE", `/api/giveaways/${ended}`, undefined, { cookie: team.cookies.moderator });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: "A moderator cannot delete a closed giveaway" });
    // An admin asking is covered (giveaway.delete); a moderator cannot approve it either.
    const asked = await ctx.call("DELETE", `/api/giveaways/${ended}`, undefined, { cookie: team.cookies.admin });
    expect(asked.status).toBe(202);
    const byModerator = await approveAs(ctx, team.moderator, team.cookies.moderator, asked.body);
    expect(byModerator.body).toEqual({ message: "A moderator cannot delete a closed giveaway" });
    const byOwner = await approveAs(ctx, ctx.admin, (await owner()).cookie, asked.body);
    expect(byOwner.status).toBe(200);
    expect(await ctx.sql`select id from giveaways where id = ${ended}`).toHaveLength(0);
  });

  it("the owner's team change is co-signed by an admin; the policy, once in force, cannot be loosened alone", async () => {
    const newcomer = newWallet();
    const asked = await ctx.call("POST", "/api/admin/team", { address: newcomer.address, role: "viewer" }, await owner());
    expect(asked.status).toBe(202);
    expect((await ctx.call("GET", `/api/auth/challenge?address=${newcomer.address}`)).status).toBe(403);
    const approved = await approveAs(ctx, team.admin, team.cookies.admin, asked.body);
    expect(approved.status).toBe(200);
    expect((await ctx.call("GET", `/api/auth/challenge?address=${newcomer.address}`)).status).toBe(200);
    const [row] = await ctx.sql`select actor_address, details from audit_log where action = 'team.add' and target = ${newcomer.address}`;
    expect(row.details.approval).toEqual({ id: asked.body.approvalId, proposedBy: ctx.admin.address, approvedBy: team.admin.address });

    const off = await setPolicy({ pointsAbove: null, actions: [] }, team.cookies.owner);
    expect(off.status).toBe(202);
    expect(off.body.summary).toBe("Turn second signatures off");
    expect((await ctx.call("GET", "/api/admin/approvals/policy", undefined, await owner())).body.actions).toHaveLength(3);
    const applied = await approveAs(ctx, team.admin, team.cookies.admin, off.body);
    expect(applied.body.result).toEqual({ pointsAbove: null, actions: [] });
    expect((await ctx.call("GET", "/api/admin/approvals/policy", undefined, await owner())).body).toEqual({
      pointsAbove: null,
      actions: [],
    });
  });

  it("refuses a policy that names an unknown action or a bad threshold (400)", async () => {
    expect((await setPolicy({ pointsAbove: -1, actions: [] }, team.cookies.owner)).status).toBe(400);
    const unknown = await setPolicy({ pointsAbove: null, actions: ["launch-rockets"] }, team.cookies.owner);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain("actions must name");
    const byAdmin = await setPolicy({ pointsAbove: null, actions: ["boosts"] }, team.cookies.admin);
    expect(byAdmin.body).toEqual({ message: "An admin cannot change the approval policy" });
  });
});

describe("the admin page's forms", () => {
  /** A form of /admin posted as the page posts it (same-site, the member's cookie). */
  const postForm = (cookie: string, fields: Record<string, string>) =>
    fetch(`${ctx.url}/admin`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ctx.url, cookie },
      body: new URLSearchParams(fields),
    });

  it("refuse a role as the API does, and keep a covered change for approval as the API does", async () => {
    await addTeam();
    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 2000);
    const ledgerRows = async () => (await ctx.sql`select count(*)::int as n from points_ledger where address = ${holder.address}`)[0].n;
    const before = await ledgerRows();
    const refused = await postForm(team.cookies.moderator, { intent: "add-points", address: holder.address, amount: "5" });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("A moderator cannot add points");
    expect(await ledgerRows()).toBe(before);

    await setPolicy({ pointsAbove: 1000, actions: [] }, team.cookies.owner);
    const pendingBefore = await ctx.sql`select count(*)::int as n from admin_approvals where kind = 'clear-points' and status = 'pending'`;
    const kept = await postForm(team.cookies.admin, { intent: "clear-points", address: holder.address });
    expect(kept.status).toBe(200);
    expect(await kept.text()).toContain("Approval requested");
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(pointsToUnits(2000));
    const pendingAfter = await ctx.sql`select count(*)::int as n from admin_approvals where kind = 'clear-points' and status = 'pending'`;
    expect(pendingAfter[0].n).toBe(pendingBefore[0].n + 1);
  });
});

describe("expiry", () => {
  it("a pending approval older than 24 hours reads expired and can no longer be approved or rejected", async () => {
    await addTeam();
    const holder = newWallet();
    const [row] = await ctx.sql<{ id: number }[]>`
      insert into admin_approvals (kind, operation, input, summary, preview, proposed_by, created_at, expires_at)
      values ('clear-points', 'clearPoints', ${ctx.sql.json({ address: holder.address })}, ${`Clear the points of ${holder.address}`},
              ${ctx.sql.json({ before: { points: 10 }, after: { points: 0 } })}, ${ctx.admin.address},
              now() - interval '25 hours', now() - interval '1 hour')
      returning id`;
    const entry = await pendingEntry(row.id);
    expect(entry.status).toBe("expired");
    const expiredOnly = await ctx.call("GET", "/api/admin/approvals?status=expired", undefined, await owner());
    expect(expiredOnly.body.entries.map((e: { id: number }) => e.id)).toContain(row.id);
    const late = await approveAs(ctx, team.admin, team.cookies.admin, {
      approvalId: row.id,
      summary: `Clear the points of ${holder.address}`,
    });
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(new RegExp(`^Approval #${row.id} expired at .* unapproved: ask for it again$`));
    expect((await ctx.call("POST", `/api/admin/approvals/${row.id}/reject`, undefined, await owner())).status).toBe(409);
  });

  it("the database keeps a decision once, and what was proposed never changes", async () => {
    const [row] = await ctx.sql<{ id: number }[]>`select id from admin_approvals where status = 'approved' limit 1`;
    await expect(ctx.sql`update admin_approvals set status = 'rejected' where id = ${row.id}`).rejects.toThrow(/already approved/);
    const [open] = await ctx.sql<{ id: number }[]>`select id from admin_approvals where status = 'pending' limit 1`;
    await expect(ctx.sql`update admin_approvals set summary = 'Something else' where id = ${open.id}`).rejects.toThrow(/never changes/);
    await expect(
      ctx.sql`update admin_approvals set status = 'approved', decided_by = proposed_by, decided_at = now(), approval_message = 'x', approval_signature = 'y' where id = ${open.id}`,
    ).rejects.toThrow(/check/);
    await expect(ctx.sql`delete from admin_approvals where id = ${open.id}`).rejects.toThrow(/permission denied/);
  });
});
