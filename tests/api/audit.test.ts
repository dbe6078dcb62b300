/** The audit trail: every admin action through the API writes one row with before → after; GET /api/admin/audit reads it. */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryMessage } from "../../app/domain/messages.ts";
import { runDrawPass } from "../../indexer/draws.server.ts";
import { createOrdClient } from "../../indexer/ord-client.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { givePoints, minutesFromNow, newWallet, nonAdminSession, signIn, useApi, type LooseJson } from "./support.ts";

const ctx = useApi();
// Selecting a winner closes entries at the ord server's next block; the indexer's draw pass draws later.
let chain: SimulatedChain;
beforeAll(async () => {
  chain = await startSimulatedChain({ owners: new Map() });
  ctx.server.context.config.ordUrl = chain.url;
});
afterAll(() => chain.close());

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

/** The audit rows written since `afterId`, oldest first, as the API answers them. */
async function rowsSince(afterId: number): Promise<LooseJson[]> {
  const page = await ctx.call("GET", "/api/admin/audit?limit=200", undefined, { cookie: await ctx.adminCookie() });
  expect(page.status).toBe(200);
  return page.body.entries.filter((entry: { id: number }) => entry.id > afterId).reverse();
}

async function lastId(): Promise<number> {
  const [row] = await ctx.sql<{ id: number }[]>`select coalesce(max(id), 0)::int8 as id from audit_log`;
  return row.id;
}

/** Runs `change` and answers the one audit row it wrote (it must write exactly one). */
async function onlyRowOf(change: () => Promise<{ status: number }>, status = 200): Promise<LooseJson> {
  const before = await lastId();
  expect((await change()).status).toBe(status);
  const rows = await rowsSince(before);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ actor: "web", actorAddress: ctx.admin.address });
  return rows[0];
}

describe("every admin action writes one audit row with before → after", () => {
  it("points: add, clear, reset negative balances, recalculate", async () => {
    const cookie = await ctx.adminCookie();
    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 10);

    const added = await onlyRowOf(() =>
      ctx.call("POST", "/api/add-permanent-points", { address: holder.address, amount: 5, description: "Bonus" }, { cookie }),
    );
    expect(added).toMatchObject({
      action: "points.add",
      target: holder.address,
      details: { points: 5, description: "Bonus" },
      before: { points: 10 },
      after: { points: 15 },
    });

    const cleared = await onlyRowOf(() => ctx.call("POST", "/api/admin/clear-points", { address: holder.address }, { cookie }));
    expect(cleared).toMatchObject({ action: "points.clear", target: holder.address, before: { points: 15 }, after: { points: 0 } });

    const negative = newWallet();
    await ctx.sql`
      insert into points_ledger (address, kind, amount, description, actor, created_at)
      values (${negative.address}, 'admin_clear', -4800, 'test', 'cli', now())`;
    const reset = await onlyRowOf(() => ctx.call("POST", "/api/admin/reset-negative-balances", undefined, { cookie }));
    expect(reset).toMatchObject({ action: "points.reset-negative", details: { adjustmentsApplied: 1 } });
    expect(reset.before.balances).toEqual({ [negative.address]: -2 });
    expect(reset.after.balances).toEqual({ [negative.address]: 0 });

    // A cached balance that drifted from its ledger is put back, and the row says from what to what.
    await ctx.sql`update balances set units = units + 2400 where address = ${negative.address}`;
    const recalculated = await onlyRowOf(() => ctx.call("POST", "/api/admin/recalculate-points", undefined, { cookie }));
    expect(recalculated).toMatchObject({
      action: "points.recalculate",
      details: { corrected: 1 },
      before: { balances: { [negative.address]: 1 } },
      after: { balances: { [negative.address]: 0 } },
    });
  });

  it("giveaways: upload, create, end, activate, image, draw, delete", async () => {
    const cookie = await ctx.adminCookie();
    const form = new FormData();
    form.append("image", new Blob([PNG], { type: "image/png" }), "prize.png");
    const uploaded = await onlyRowOf(() => ctx.call("POST", "/api/upload-image", undefined, { raw: form, cookie }));
    expect(uploaded).toMatchObject({
      action: "upload.image",
      target: expect.stringMatching(/^\/uploads\/[0-9a-f-]{36}\.png$/),
      details: { mediaType: "image/png", bytes: PNG.length, sha256: createHash("sha256").update(PNG).digest("hex") },
      before: null,
      after: { filePath: uploaded.target },
    });

    const body = {
      title: "Audited",
      description: "Prize",
      imageUrl: uploaded.target,
      pointsCost: 10,
      endDate: minutesFromNow(60).toISOString(),
    };
    let id = 0;
    const created = await onlyRowOf(async () => {
      const answer = await ctx.call("POST", "/api/giveaways", body, { cookie });
      id = answer.body.id;
      return answer;
    }, 201);
    expect(created).toMatchObject({
      action: "giveaway.create",
      target: `giveaway:${id}`,
      before: null,
      after: { id, title: "Audited", active: true },
    });
    expect(created.after.drawSeed).toBeNull(); // the seed stays secret until the draw, in the trail too

    const ended = await onlyRowOf(() => ctx.call("PATCH", `/api/giveaways/${id}`, { active: false }, { cookie }));
    expect(ended).toMatchObject({ action: "giveaway.end", before: { active: true }, after: { active: false } });
    const activated = await onlyRowOf(() => ctx.call("PATCH", `/api/giveaways/${id}`, { active: true }, { cookie }));
    expect(activated).toMatchObject({ action: "giveaway.activate", before: { active: false }, after: { active: true } });
    const image = await onlyRowOf(() =>
      ctx.call("PATCH", `/api/giveaways/${id}/image`, { imageUrl: "https://example.com/b.png" }, { cookie }),
    );
    expect(image).toMatchObject({
      action: "giveaway.image",
      before: { imageUrl: uploaded.target },
      after: { imageUrl: "https://example.com/b.png" },
    });

    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 100);
    const message = entryMessage(id, 2, new Date());
    const entry = { giveawayId: id, address: holder.address, tickets: 2, message, signature: holder.sign(message) };
    expect((await ctx.call("POST", "/api/giveaways/enter", entry)).status).toBe(200);
    const closed = await onlyRowOf(() => ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie }));
    const blockHeight = chain.blockCount() + 6;
    expect(closed).toMatchObject({
      action: "giveaway.close",
      target: `giveaway:${id}`,
      before: { drawBlockHeight: null },
      after: { drawBlockHeight: blockHeight },
    });
    // Six blocks on top of the draw's block: the indexer's draw pass draws, as the system.
    chain.mine(blockHeight + 7 - chain.blockCount());
    const beforeDraw = await lastId();
    const client = createOrdClient({ baseUrl: chain.url, retries: 0 });
    await runDrawPass({ sql: ctx.sql, chain: client }).finally(() => client.close());
    const [drawn] = await rowsSince(beforeDraw);
    expect(drawn).toMatchObject({
      actor: "system",
      action: "giveaway.draw",
      target: `giveaway:${id}`,
      before: { drawBlockHash: null, winnerAddress: null },
      after: { drawBlockHash: chain.blockHash(blockHeight), winnerAddresses: [holder.address] },
    });

    const deleted = await onlyRowOf(() => ctx.call("DELETE", `/api/giveaways/${id}`, {}, { cookie }));
    expect(deleted).toMatchObject({
      action: "giveaway.delete",
      before: { id, title: "Audited", winnerAddress: holder.address },
      after: null,
    });
  });

  it("proposals: create and delete", async () => {
    const cookie = await ctx.adminCookie();
    const body = {
      title: "Audited proposal",
      description: "Described",
      startDate: minutesFromNow(60).toISOString(),
      endDate: minutesFromNow(120).toISOString(),
      voteType: "yes_no",
      options: [],
    };
    let id = 0;
    const created = await onlyRowOf(async () => {
      const answer = await ctx.call("POST", "/api/proposals", body, { cookie });
      id = answer.body.id;
      return answer;
    }, 201);
    expect(created).toMatchObject({
      action: "proposal.create",
      target: `proposal:${id}`,
      before: null,
      after: { id, title: "Audited proposal" },
    });
    const deleted = await onlyRowOf(() => ctx.call("DELETE", `/api/proposals/${id}`, undefined, { cookie }));
    expect(deleted).toMatchObject({
      action: "proposal.delete",
      before: { id, title: "Audited proposal", totalVotes: 0, options: [{ optionText: "Yes" }, { optionText: "No" }] },
      after: null,
    });
  });

  it("a refused change writes nothing", async () => {
    const cookie = await ctx.adminCookie();
    const before = await lastId();
    expect((await ctx.call("POST", "/api/add-permanent-points", { address: newWallet().address, amount: -1 }, { cookie })).status).toBe(
      400,
    );
    expect((await ctx.call("DELETE", "/api/proposals/999999", undefined, { cookie })).status).toBe(404);
    expect(await lastId()).toBe(before);
  });
});

describe("admin sign-in and sign-out", () => {
  it("each write one audit row (who, which session, from where); a refused sign-in and a sign-out without a session write none", async () => {
    await ctx.adminCookie(); // the session rowsSince reads the trail with, opened before
    const before = await lastId();
    const cookie = await signIn(ctx, ctx.admin);
    expect((await ctx.call("DELETE", "/api/auth/session", undefined, { cookie })).status).toBe(200);
    expect((await ctx.call("DELETE", "/api/auth/session", undefined, { cookie })).status).toBe(200); // already revoked
    expect((await ctx.call("DELETE", "/api/auth/session")).status).toBe(200); // no session
    const challenge = await ctx.call("GET", `/api/auth/challenge?address=${ctx.admin.address}`);
    const forged = { address: ctx.admin.address, message: challenge.body.message, signature: newWallet().sign(challenge.body.message) };
    expect((await ctx.call("POST", "/api/auth/session", forged)).status).toBe(401);

    const rows = (await rowsSince(before)).filter((row) => row.action.startsWith("auth."));
    expect(rows).toMatchObject([
      { action: "auth.sign-in", actor: "web", actorAddress: ctx.admin.address, target: ctx.admin.address },
      { action: "auth.sign-out", actor: "web", actorAddress: ctx.admin.address, target: ctx.admin.address },
    ]);
    expect(rows).toHaveLength(2);
    expect(rows[0].details).toEqual({
      session: expect.stringMatching(/^[0-9a-f]{12}$/),
      expiresAt: expect.any(String),
      ip: expect.any(String),
    });
    expect(rows[1].details).toEqual({ session: rows[0].details.session, ip: expect.any(String) });
    // The reference is a prefix of the stored hash, never the cookie's token.
    expect(cookie).not.toContain(rows[0].details.session);
  });
});

describe("GET /api/admin/audit", () => {
  it("needs the admin's session: 401 without one, 403 with another's", async () => {
    expect(await ctx.call("GET", "/api/admin/audit")).toMatchObject({ status: 401, body: { message: expect.any(String) } });
    expect(await ctx.call("GET", "/api/admin/audit", undefined, { cookie: "spooks_session=forged" })).toMatchObject({ status: 401 });
    const other = await nonAdminSession(ctx.sql);
    expect(await ctx.call("GET", "/api/admin/audit", undefined, { cookie: other })).toMatchObject({ status: 403 });
  });

  it("filters by action (or family), actor and date, and pages newest first", async () => {
    const cookie = await ctx.adminCookie();
    const target = newWallet().address;
    const start = await lastId();
    for (const amount of [1, 2, 3]) await ctx.call("POST", "/api/add-permanent-points", { address: target, amount }, { cookie });
    await ctx.call("POST", "/api/admin/clear-points", { address: target }, { cookie });
    await ctx.sql`
      insert into audit_log (actor, action, target, details, created_at)
      values ('cli', 'points.add', ${target}, '{}', '2020-01-01T00:00:00Z'), ('system', 'stake.transferred', ${target}, '{}', now())`;
    const get = async (query: string) => {
      const answer = await ctx.call("GET", `/api/admin/audit?${query}`, undefined, { cookie });
      expect(answer.status).toBe(200);
      return answer.body as {
        entries: { id: number; action: string; actor: string; target: string; details: LooseJson }[];
        nextCursor: number | null;
      };
    };
    const mine = (page: Awaited<ReturnType<typeof get>>) => page.entries.filter((entry) => entry.target === target && entry.id > start);

    expect(mine(await get("action=points.add")).map((entry) => [entry.actor, entry.details.points])).toEqual([
      ["cli", undefined],
      ["web", 3],
      ["web", 2],
      ["web", 1],
    ]);
    expect(mine(await get("action=points")).map((entry) => entry.action)).toEqual([
      "points.add",
      "points.clear",
      "points.add",
      "points.add",
      "points.add",
    ]);
    expect(mine(await get("actor=system")).map((entry) => entry.action)).toEqual(["stake.transferred"]);
    expect(mine(await get(`actor=${ctx.admin.address}&action=points.clear`))).toHaveLength(1);
    expect(mine(await get("action=points.add&until=2021-01-01T00:00:00Z")).map((entry) => entry.actor)).toEqual(["cli"]);
    expect(mine(await get("action=points.add&since=2021-01-01T00:00:00Z"))).toHaveLength(3);

    const first = await get("limit=2");
    expect(first.entries).toHaveLength(2);
    expect(first.nextCursor).toBe(first.entries[1].id);
    const second = await get(`limit=2&cursor=${first.nextCursor}`);
    expect(second.entries[0].id).toBeLessThan(first.entries[1].id);
    const all = await get("limit=200");
    expect([...first.entries, ...second.entries].map((entry) => entry.id)).toEqual(all.entries.slice(0, 4).map((entry) => entry.id));
    const last = await get(`limit=200&cursor=${all.entries[all.entries.length - 1].id}`);
    expect(last).toEqual({ entries: [], nextCursor: null });
  });

  it("refuses bad filters with 400", async () => {
    const cookie = await ctx.adminCookie();
    for (const [query, message] of [
      ["limit=0", "limit must be a whole number from 1 to 200"],
      ["limit=500", "limit must be a whole number from 1 to 200"],
      ["cursor=abc", "cursor must be the nextCursor of a previous page"],
      ["since=yesterday", "since must be an ISO 8601 date and time"],
    ]) {
      expect(await ctx.call("GET", `/api/admin/audit?${query}`, undefined, { cookie })).toMatchObject({ status: 400, body: { message } });
    }
  });
});
