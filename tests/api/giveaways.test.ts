/** Giveaways: admin management, signed entries under concurrency, the commit-reveal draw, refunds, uploads. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newDrawSeed } from "../../app/domain/giveaways.ts";
import { entryMessage } from "../../app/domain/messages.ts";
import { balanceUnits, givePoints, minutesFromNow, newWallet, nonAdminSession, useApi, type Wallet } from "./support.ts";

const ctx = useApi();

const giveawayInput = (overrides: Record<string, unknown> = {}) => ({
  title: "Golden Spook",
  description: "A shiny one",
  imageUrl: "/uploads/golden.png",
  pointsCost: 100,
  endDate: minutesFromNow(60 * 24).toISOString(),
  adminAddress: ctx.admin.address,
  ...overrides,
});

async function createGiveaway(overrides: Record<string, unknown> = {}) {
  const answer = await ctx.call("POST", "/api/giveaways", giveawayInput(overrides), { cookie: await ctx.adminCookie() });
  expect(answer.status).toBe(201);
  return answer.body as { id: number; drawCommitment: string };
}

/** Inserts a giveaway directly (e.g. one that has already ended, which the API cannot create). */
async function insertGiveaway(fields: { endDate: Date; active?: boolean; pointsCost?: number }): Promise<number> {
  const { seed, commitment } = newDrawSeed();
  const [row] = await ctx.sql<{ id: number }[]>`
    insert into giveaways (title, description, image_url, points_cost, end_date, active, draw_commitment, draw_seed, created_at)
    values ('Old', 'Old one', '/x.png', ${fields.pointsCost ?? 10}, ${fields.endDate}, ${fields.active ?? true}, ${commitment}, ${seed}, now())
    returning id`;
  return row.id;
}

function entryBody(wallet: Wallet, giveawayId: number, tickets: number, at = new Date()) {
  const message = entryMessage(giveawayId, tickets, at);
  return { giveawayId, address: wallet.address, tickets, message, signature: wallet.sign(message) };
}

describe("admin giveaway management", () => {
  it("refuses admin calls without a session, with only adminAddress in the body, and from a non-admin session", async () => {
    const body = giveawayInput();
    expect((await ctx.call("POST", "/api/giveaways", body)).status).toBe(401);
    expect((await ctx.call("POST", "/api/giveaways", body, { cookie: "spooks_session=forged" })).status).toBe(401);
    const holderCookie = await nonAdminSession(ctx.sql);
    expect((await ctx.call("POST", "/api/giveaways", body, { cookie: holderCookie })).status).toBe(403);
    const id = await insertGiveaway({ endDate: minutesFromNow(60) });
    const admin = { adminAddress: ctx.admin.address };
    expect((await ctx.call("PATCH", `/api/giveaways/${id}`, { ...admin, active: false })).status).toBe(401);
    expect((await ctx.call("PATCH", `/api/giveaways/${id}/image`, { ...admin, imageUrl: "/a.png" })).status).toBe(401);
    expect((await ctx.call("POST", `/api/giveaways/${id}/select-winner`, admin)).status).toBe(401);
    expect((await ctx.call("DELETE", `/api/giveaways/${id}`, admin)).status).toBe(401);
    expect((await ctx.call("DELETE", `/api/giveaways/${id}`, admin, { cookie: holderCookie })).status).toBe(403);
    expect((await ctx.call("GET", `/api/giveaways/${id}`)).status).toBe(200);
  });

  it("creates (201, list shape with a commitment and no seed), updates and lists", async () => {
    const created = await ctx.call("POST", "/api/giveaways", giveawayInput(), { cookie: await ctx.adminCookie() });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      title: "Golden Spook",
      description: "A shiny one",
      imageUrl: "/uploads/golden.png",
      pointsCost: 100,
      endDate: expect.stringMatching(/Z$/),
      active: true,
      winnerAddress: null,
      entriesCount: 0,
      holdersCount: 0,
      ticketsCount: 0,
      drawCommitment: expect.stringMatching(/^[0-9a-f]{64}$/),
      drawSeed: null,
      drawVersion: 2,
      winners: 1,
      drawBlockHeight: null,
      drawBlockHash: null,
      winnerAddresses: [],
      drawProgress: null,
    });
    const { id } = created.body;
    const cookie = await ctx.adminCookie();
    const ended = await ctx.call("PATCH", `/api/giveaways/${id}`, { id, active: false }, { cookie });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ id, active: false });
    const image = await ctx.call("PATCH", `/api/giveaways/${id}/image`, { id, imageUrl: "https://example.com/a.png" }, { cookie });
    expect(image.body).toMatchObject({ id, imageUrl: "https://example.com/a.png" });
    const list = await ctx.call("GET", "/api/giveaways");
    expect(list.body.find((g: { id: number }) => g.id === id)).toMatchObject({ active: false, imageUrl: "https://example.com/a.png" });
    const [audit] =
      await ctx.sql`select actor, actor_address from audit_log where action = 'giveaway.create' and target = ${`giveaway:${id}`}`;
    expect(audit).toEqual({ actor: "web", actorAddress: ctx.admin.address });
  });

  it("validates input with 400 and unknown ids with 404", async () => {
    const cookie = await ctx.adminCookie();
    const bad = [
      { title: "" },
      { title: "x".repeat(201) },
      { description: "x".repeat(5001) },
      { pointsCost: 0 },
      { pointsCost: -5 },
      { pointsCost: 1e20 },
      { pointsCost: "lots" },
      { endDate: minutesFromNow(-1).toISOString() },
      { endDate: "not a date" },
      { imageUrl: "javascript:alert(1)" },
    ];
    for (const overrides of bad) {
      const answer = await ctx.call("POST", "/api/giveaways", giveawayInput(overrides), { cookie });
      expect(answer.status, JSON.stringify(overrides)).toBe(400);
      expect(answer.body.message).toEqual(expect.any(String));
    }
    expect((await ctx.call("POST", "/api/giveaways", [1, 2], { cookie })).status).toBe(400);
    expect((await ctx.call("PATCH", "/api/giveaways/999999", { active: true }, { cookie })).status).toBe(404);
    expect((await ctx.call("PATCH", "/api/giveaways/abc", { active: true }, { cookie })).status).toBe(404);
    expect((await ctx.call("PATCH", "/api/giveaways/99999999999999999999", { active: true }, { cookie })).status).toBe(404);
    const id = await insertGiveaway({ endDate: minutesFromNow(60) });
    expect((await ctx.call("PATCH", `/api/giveaways/${id}`, { active: "yes" }, { cookie })).status).toBe(400);
    expect((await ctx.call("PATCH", `/api/giveaways/${id}/image`, { imageUrl: "" }, { cookie })).status).toBe(400);
    expect((await ctx.call("GET", "/api/giveaways/999999/entries")).status).toBe(404);
    expect((await ctx.call("GET", "/api/giveaways/999999")).status).toBe(404);
    expect((await ctx.call("DELETE", "/api/giveaways/999999", {}, { cookie })).status).toBe(404);
    expect((await ctx.call("POST", "/api/giveaways/999999/select-winner", {}, { cookie })).status).toBe(404);
  });
});

describe("POST /api/giveaways/enter", () => {
  it("spends cost × tickets, answers the entry and rewards, and lists the wallet's entries", async () => {
    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 1000);
    const { id } = await createGiveaway({ pointsCost: 150 });
    const answer = await ctx.call("POST", "/api/giveaways/enter", entryBody(holder, id, 3));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      entry: {
        id: expect.any(Number),
        giveawayId: id,
        address: holder.address,
        tickets: 3,
        enteredAt: expect.any(String),
        isWinner: false,
      },
      rewards: expect.objectContaining({ unclaimedRewards: 550 }),
      logIndex: expect.any(Number),
    });
    const mine = await ctx.call("GET", `/api/giveaways/entries/user/${holder.address}`);
    expect(mine.body).toEqual([
      expect.objectContaining({
        giveawayId: id,
        tickets: 3,
        giveawayTitle: "Golden Spook",
        pointsCost: 150,
        active: true,
        endDate: expect.any(String),
        isWinner: false,
      }),
    ]);
    const list = await ctx.call("GET", "/api/giveaways");
    expect(list.body.find((g: { id: number }) => g.id === id)).toMatchObject({ entriesCount: 1, ticketsCount: 3 });
  });

  it("refuses closed giveaways and unaffordable entries with 409, changing nothing", async () => {
    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 100);
    const ended = await insertGiveaway({ endDate: minutesFromNow(-1) });
    const inactive = await insertGiveaway({ endDate: minutesFromNow(60), active: false });
    const open = await insertGiveaway({ endDate: minutesFromNow(60), pointsCost: 60 });
    expect((await ctx.call("POST", "/api/giveaways/enter", entryBody(holder, ended, 1))).status).toBe(409);
    expect((await ctx.call("POST", "/api/giveaways/enter", entryBody(holder, inactive, 1))).status).toBe(409);
    const tooMany = await ctx.call("POST", "/api/giveaways/enter", entryBody(holder, open, 2));
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.message).toBe("Not enough points: you need 120 points for 2 tickets, but you only have 100.");
    expect((await ctx.call("POST", "/api/giveaways/enter", entryBody(holder, 999999, 1))).status).toBe(404);
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(100 * 2400);
  });

  it("refuses bad signatures (401) and bad numbers (400)", async () => {
    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 100);
    const id = await insertGiveaway({ endDate: minutesFromNow(60), pointsCost: 10 });
    const good = entryBody(holder, id, 1);
    const other = newWallet();
    const cases: [unknown, number][] = [
      [{ ...good, tickets: 2 }, 401],
      [{ ...entryBody(holder, id + 1, 1), giveawayId: id }, 401],
      [{ ...entryBody(other, id, 1), address: holder.address }, 401],
      [entryBody(holder, id, 1, minutesFromNow(-11)), 401],
      [{ ...good, message: good.message.replace("Entering", "Entring") }, 401],
      [{ ...good, tickets: 0 }, 400],
      [{ ...good, tickets: -1 }, 400],
      [{ ...good, tickets: 1.5 }, 400],
      [{ ...good, tickets: "1" }, 400],
      [{ ...good, tickets: 1e12 }, 400],
      [{ ...good, giveawayId: 2 ** 40 }, 400],
      [{ ...good, giveawayId: null }, 400],
    ];
    for (const [body, status] of cases) {
      expect((await ctx.call("POST", "/api/giveaways/enter", body)).status, JSON.stringify(body)).toBe(status);
    }
    expect((await ctx.call("POST", "/api/giveaways/enter", good)).status).toBe(200);
    expect((await ctx.call("POST", "/api/giveaways/enter", good)).status).toBe(401);
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(90 * 2400);
  });

  it("50 concurrent entries that together exceed the balance: exactly the affordable ones succeed", async () => {
    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 1000);
    const id = await insertGiveaway({ endDate: minutesFromNow(60), pointsCost: 100 });
    const base = Date.now();
    const bodies = Array.from({ length: 50 }, (_, i) => entryBody(holder, id, 1, new Date(base - i)));
    const answers = await Promise.all(bodies.map((body) => ctx.call("POST", "/api/giveaways/enter", body)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 409)).toHaveLength(40);
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(0);
    const [ledger] =
      await ctx.sql`select sum(amount)::int8 as total, min(amount)::int8 as lowest from points_ledger where address = ${holder.address}`;
    expect(ledger.total).toBe(0);
    const entries = await ctx.call("GET", `/api/giveaways/${id}/entries`);
    expect(entries.body).toHaveLength(10);
  });
});

function independentWinner(seed: string, entries: { id: number; address: string; tickets: number }[]) {
  const ordered = [...entries].sort((a, b) => a.id - b.id);
  const total = ordered.reduce((sum, entry) => sum + entry.tickets, 0);
  const digest = createHash("sha256").update(`spooks-draw:${seed}:${total}`).digest("hex");
  let ticket = Number(BigInt(`0x${digest}`) % BigInt(total));
  for (const entry of ordered) {
    if (ticket < entry.tickets) return entry;
    ticket -= entry.tickets;
  }
  throw new Error("no winner");
}

/** A version-1 giveaway (created before draw version 2; the API creates version 2 only): see tests/api/draws.test.ts for those. */
async function insertVersion1Giveaway(pointsCost = 1) {
  const id = await insertGiveaway({ endDate: minutesFromNow(60 * 24), pointsCost });
  return { id, drawCommitment: (await ctx.call("GET", `/api/giveaways/${id}`)).body.drawCommitment as string };
}

describe("select winner, version 1 (commit-reveal), and delete", () => {
  it("draws a winner anyone can recompute from the revealed seed and the entries", async () => {
    const wallets = [newWallet(), newWallet(), newWallet()];
    const { id, drawCommitment } = await insertVersion1Giveaway();
    for (const [index, wallet] of wallets.entries()) {
      await givePoints(ctx.sql, wallet.address, 100);
      expect((await ctx.call("POST", "/api/giveaways/enter", entryBody(wallet, id, (index + 1) * 5))).status).toBe(200);
    }
    const cookie = await ctx.adminCookie();
    const draw = await ctx.call("POST", `/api/giveaways/${id}/select-winner`, { adminAddress: ctx.admin.address }, { cookie });
    expect(draw.status).toBe(200);
    const { drawSeed, winner } = draw.body;
    expect(createHash("sha256").update(Buffer.from(drawSeed, "hex")).digest("hex")).toBe(drawCommitment);

    const entries = (await ctx.call("GET", `/api/giveaways/${id}/entries`)).body;
    const expected = independentWinner(drawSeed, entries);
    expect(winner).toEqual({ address: expected.address, tickets: expected.tickets });
    expect(entries.filter((entry: { isWinner: boolean }) => entry.isWinner)).toEqual([expect.objectContaining({ id: expected.id })]);
    const listed = (await ctx.call("GET", "/api/giveaways")).body.find((g: { id: number }) => g.id === id);
    expect(listed).toMatchObject({ winnerAddress: expected.address, drawSeed, drawCommitment });

    expect((await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie })).status).toBe(409);
    await givePoints(ctx.sql, wallets[0].address, 10);
    expect((await ctx.call("POST", "/api/giveaways/enter", entryBody(wallets[0], id, 1))).status).toBe(409);
    const before = await balanceUnits(ctx.sql, expected.address);
    expect((await ctx.call("DELETE", `/api/giveaways/${id}`, {}, { cookie })).body).toEqual({ success: true, refunded: 0 });
    expect(await balanceUnits(ctx.sql, expected.address)).toBe(before);
  });

  it("refuses a draw when inactive or without entries (409)", async () => {
    const cookie = await ctx.adminCookie();
    const empty = await insertVersion1Giveaway();
    expect((await ctx.call("POST", `/api/giveaways/${empty.id}/select-winner`, {}, { cookie })).status).toBe(409);
    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 100);
    const { id } = await insertVersion1Giveaway();
    expect((await ctx.call("POST", "/api/giveaways/enter", entryBody(holder, id, 1))).status).toBe(200);
    await ctx.call("PATCH", `/api/giveaways/${id}`, { active: false }, { cookie });
    expect((await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie })).status).toBe(409);
  });

  it("deleting an undrawn giveaway refunds every entry through the ledger", async () => {
    const a = newWallet();
    const b = newWallet();
    await givePoints(ctx.sql, a.address, 500);
    await givePoints(ctx.sql, b.address, 500);
    const { id } = await createGiveaway({ pointsCost: 100 });
    await ctx.call("POST", "/api/giveaways/enter", entryBody(a, id, 2));
    await ctx.call("POST", "/api/giveaways/enter", entryBody(a, id, 1, minutesFromNow(-1)));
    await ctx.call("POST", "/api/giveaways/enter", entryBody(b, id, 5));
    expect(await balanceUnits(ctx.sql, b.address)).toBe(0);
    const answer = await ctx.call(
      "DELETE",
      `/api/giveaways/${id}`,
      { adminAddress: ctx.admin.address },
      { cookie: await ctx.adminCookie() },
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, refunded: 3 });
    expect(await balanceUnits(ctx.sql, a.address)).toBe(500 * 2400);
    expect(await balanceUnits(ctx.sql, b.address)).toBe(500 * 2400);
    const refunds =
      await ctx.sql`select count(*)::int as n from points_ledger where kind = 'giveaway_refund' and reference like ${`giveaway:${id}:%`}`;
    expect(refunds[0].n).toBe(3);
    expect((await ctx.call("GET", `/api/giveaways/${id}`)).status).toBe(404);
    expect((await ctx.call("GET", `/api/giveaways/entries/user/${a.address}`)).body).toEqual([]);
  });
});

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
const GIF = Buffer.concat([Buffer.from("GIF89a"), Buffer.from([1, 0, 1, 0, 0x80, 0, 0]), Buffer.alloc(32)]);

function imageForm(bytes: Uint8Array, fileName: string, field = "image"): FormData {
  const form = new FormData();
  form.append(field, new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), fileName);
  return form;
}

describe("POST /api/upload-image", () => {
  it("saves a PNG under a generated name and serves it as image/png", async () => {
    const answer = await ctx.call("POST", "/api/upload-image", undefined, {
      raw: imageForm(PNG, "mine.png"),
      cookie: await ctx.adminCookie(),
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      filePath: expect.stringMatching(/^\/uploads\/[0-9a-f-]{36}\.png$/),
      message: expect.any(String),
    });
    const served = await fetch(`${ctx.url}${answer.body.filePath}`);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it("treats a GIF named .png as a GIF (accepted, served as image/gif)", async () => {
    const answer = await ctx.call("POST", "/api/upload-image", undefined, {
      raw: imageForm(GIF, "disguised.png"),
      cookie: await ctx.adminCookie(),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.filePath).toMatch(/\.gif$/);
    const served = await fetch(`${ctx.url}${answer.body.filePath}`);
    expect(served.headers.get("content-type")).toBe("image/gif");
  });

  it("refuses non-images (415), oversized files (413), missing fields (400) and callers who are not the admin", async () => {
    const cookie = await ctx.adminCookie();
    const upload = (form: FormData, options: { cookie?: string } = { cookie }) =>
      ctx.call("POST", "/api/upload-image", undefined, { raw: form, ...options });
    const html = Buffer.from("<html><script>alert(1)</script></html>");
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    expect((await upload(imageForm(html, "evil.png"))).status).toBe(415);
    expect((await upload(imageForm(svg, "evil.svg"))).status).toBe(415);
    const huge = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
    expect((await upload(imageForm(huge, "huge.png"))).status).toBe(413);
    expect((await upload(imageForm(PNG, "a.png", "file"))).status).toBe(400);
    expect((await ctx.call("POST", "/api/upload-image", { image: "x" }, { cookie })).status).toBe(415);
    expect((await upload(imageForm(PNG, "a.png"), {})).status).toBe(401);
    expect((await upload(imageForm(PNG, "a.png"), { cookie: await nonAdminSession(ctx.sql) })).status).toBe(403);
  });
});
