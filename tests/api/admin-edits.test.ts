/**
 * Issue 27, items 10, 12 and 14 on the API and the queries behind the admin page: a giveaway nobody entered
 * is edited whole (PUT, audited before → after; 409 once entered), a picture URL outside IMAGE_HOSTS is
 * refused with 400 naming the setting wherever it is given, a proposal starts now (audited; 409 once
 * started), the audit filter's actions are the log's own, and voting power says when it was counted.
 */
import { describe, expect, it, vi } from "vitest";
import { entryMessage } from "../../app/domain/messages.ts";
import { auditActions } from "../../db/queries/audit.server.ts";
import { startProposalNow } from "../../db/queries/proposals.server.ts";
import { giveItems, givePoints, minutesFromNow, newWallet, spooks, useApi } from "./support.ts";

// A shared 2-core machine may take more than the default minute to start the database and the server.
vi.setConfig({ hookTimeout: 300_000, testTimeout: 120_000 });
const ctx = useApi();

const giveawayInput = (overrides: Record<string, unknown> = {}) => ({
  title: "Golden Spook",
  description: "A shiny one",
  imageUrl: "/uploads/golden.png",
  pointsCost: 100,
  endDate: minutesFromNow(60 * 24).toISOString(),
  ...overrides,
});

async function createGiveaway(overrides: Record<string, unknown> = {}): Promise<{ id: number }> {
  const answer = await ctx.call("POST", "/api/giveaways", giveawayInput(overrides), { cookie: await ctx.adminCookie() });
  expect(answer.status).toBe(201);
  return answer.body as { id: number };
}

const lastAudit = async (action: string) => {
  const [row] = await ctx.sql<{ before: unknown; after: unknown; details: unknown }[]>`
    select before, after, details from audit_log where action = ${action} order by id desc limit 1`;
  return row;
};

describe("PUT /api/giveaways/{id}: every field while nobody has entered", () => {
  it("edits every field (200), audits before → after; refuses without a session (401)", async () => {
    const { id } = await createGiveaway();
    const edited = giveawayInput({
      title: "Silver Spook",
      description: "Less shiny",
      imageUrl: "https://images.example/silver.png",
      pointsCost: 250,
      endDate: minutesFromNow(60 * 48).toISOString(),
    });
    expect((await ctx.call("PUT", `/api/giveaways/${id}`, edited)).status).toBe(401);
    const answer = await ctx.call("PUT", `/api/giveaways/${id}`, edited, { cookie: await ctx.adminCookie() });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      id,
      title: "Silver Spook",
      description: "Less shiny",
      imageUrl: "https://images.example/silver.png",
      pointsCost: 250,
      endDate: edited.endDate,
      winners: 1,
    });
    const audit = await lastAudit("giveaway.update");
    expect(audit.before).toMatchObject({ title: "Golden Spook", pointsCost: 100, imageUrl: "/uploads/golden.png" });
    expect(audit.after).toMatchObject({ title: "Silver Spook", pointsCost: 250, imageUrl: "https://images.example/silver.png" });
    expect(audit.details).toEqual({ changed: ["title", "description", "imageUrl", "pointsCost", "endDate"] });
    // The number of winners went out with the draw commitment: it never changes.
    const winners = await ctx.call("PUT", `/api/giveaways/${id}`, { ...edited, winners: 3 }, { cookie: await ctx.adminCookie() });
    expect(winners.status).toBe(409);

    const invalid = await ctx.call("PUT", `/api/giveaways/${id}`, giveawayInput({ pointsCost: 0 }), { cookie: await ctx.adminCookie() });
    expect(invalid.status).toBe(400);
    expect((await ctx.call("PUT", "/api/giveaways/999999", edited, { cookie: await ctx.adminCookie() })).status).toBe(404);
  });

  it("once someone entered: 409 with the reason, nothing changed; the image alone still changes", async () => {
    const { id } = await createGiveaway({ pointsCost: 10 });
    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 100);
    const message = entryMessage(id, 1, new Date());
    const entry = await ctx.call("POST", "/api/giveaways/enter", {
      giveawayId: id,
      address: holder.address,
      tickets: 1,
      message,
      signature: holder.sign(message),
    });
    expect(entry.status).toBe(200);
    const refused = await ctx.call("PUT", `/api/giveaways/${id}`, giveawayInput({ pointsCost: 1 }), { cookie: await ctx.adminCookie() });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: "This giveaway has 1 entry: only its image can change now" });
    expect((await ctx.call("GET", `/api/giveaways/${id}`)).body).toMatchObject({ pointsCost: 10, title: "Golden Spook" });
    const image = await ctx.call(
      "PATCH",
      `/api/giveaways/${id}/image`,
      { imageUrl: "/uploads/new.png" },
      { cookie: await ctx.adminCookie() },
    );
    expect(image.status).toBe(200);
  });
});

describe("a picture URL outside IMAGE_HOSTS", () => {
  it("is refused with 400 naming IMAGE_HOSTS on create, image change and edit; nothing is stored", async () => {
    const cookie = await ctx.adminCookie();
    const [{ count: before }] = await ctx.sql<{ count: number }[]>`select count(*)::int from giveaways`;
    const elsewhere = "https://elsewhere.example/a.png";
    const created = await ctx.call("POST", "/api/giveaways", giveawayInput({ imageUrl: elsewhere }), { cookie });
    expect(created.status).toBe(400);
    expect((created.body as { message: string }).message).toBe(
      "The page cannot show pictures from https://elsewhere.example: it is not in IMAGE_HOSTS. " +
        "Upload the image, or add https://elsewhere.example to IMAGE_HOSTS and restart the server",
    );
    const [{ count: after }] = await ctx.sql<{ count: number }[]>`select count(*)::int from giveaways`;
    expect(after).toBe(before);

    const { id } = await createGiveaway({ imageUrl: "https://example.com/ok.png" });
    const image = await ctx.call("PATCH", `/api/giveaways/${id}/image`, { imageUrl: elsewhere }, { cookie });
    expect(image.status).toBe(400);
    expect((image.body as { message: string }).message).toContain("IMAGE_HOSTS");
    const edit = await ctx.call("PUT", `/api/giveaways/${id}`, giveawayInput({ imageUrl: elsewhere }), { cookie });
    expect(edit.status).toBe(400);
    expect((edit.body as { message: string }).message).toContain("IMAGE_HOSTS");
    expect((await ctx.call("GET", `/api/giveaways/${id}`)).body).toMatchObject({ imageUrl: "https://example.com/ok.png" });
  });
});

describe("proposals: start now, and when voting power is counted", () => {
  it("starts an upcoming proposal now (audited before → after), refuses one already started (409)", async () => {
    const cookie = await ctx.adminCookie();
    const created = await ctx.call(
      "POST",
      "/api/proposals",
      {
        title: "Start me",
        description: "Soon",
        startDate: minutesFromNow(60).toISOString(),
        endDate: minutesFromNow(120).toISOString(),
        voteType: "yes_no",
      },
      { cookie },
    );
    expect(created.status).toBe(201);
    const { id, startDate } = created.body as { id: number; startDate: string };
    const started = await startProposalNow(ctx.sql, id, { kind: "web", address: ctx.admin.address });
    expect(started.status).toBe("active");
    expect(started.startDate.getTime()).toBeLessThanOrEqual(Date.now());
    const audit = await lastAudit("proposal.start");
    expect(audit.before).toEqual({ startDate: startDate });
    expect(audit.after).toEqual({ startDate: started.startDate.toISOString() });
    await expect(startProposalNow(ctx.sql, id, { kind: "cli" })).rejects.toMatchObject({ status: 409 });
  });

  it("voting power answers snapshotAt: the proposal's start, now while upcoming, null for today's stake", async () => {
    const wallet = newWallet();
    const items = await giveItems(ctx.sql, wallet.address, spooks(700, 701));
    const start = minutesFromNow(-30);
    for (const item of items) {
      await ctx.sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${wallet.address}, ${minutesFromNow(-60)})`;
    }
    const [{ id: active }] = await ctx.sql<{ id: number }[]>`
      insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at)
      values ('Snap', 'Shot', ${start}, ${minutesFromNow(60)}, 'yes_no', 'test', now()) returning id`;
    const [{ id: upcoming }] = await ctx.sql<{ id: number }[]>`
      insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at)
      values ('Later', 'On', ${minutesFromNow(60)}, ${minutesFromNow(120)}, 'yes_no', 'test', now()) returning id`;
    const power = async (query = "") => (await ctx.call("GET", `/api/proposals/voting-power/${wallet.address}${query}`)).body;
    expect(await power()).toEqual({ votingPower: 2, snapshotAt: null });
    expect(await power(`?proposalId=${active}`)).toEqual({ votingPower: 2, snapshotAt: start.toISOString() });
    const before = Date.now();
    const later = (await power(`?proposalId=${upcoming}`)) as { snapshotAt: string };
    expect(Date.parse(later.snapshotAt)).toBeGreaterThanOrEqual(before - 1000);
  });
});

describe("the audit filter's actions", () => {
  it("are every distinct action the log holds, sorted, one the release does not name included", async () => {
    await ctx.ownerSql`insert into audit_log (actor, action, target, details, created_at) values ('system', 'zz.future', null, '{}', now())`;
    const actions = await auditActions(ctx.sql);
    expect(actions).toEqual([...new Set(actions)].sort());
    const [{ distinct }] = await ctx.sql<
      { distinct: string[] }[]
    >`select array_agg(distinct action order by action) as distinct from audit_log`;
    expect(actions).toEqual(distinct);
    expect(actions).toContain("zz.future");
    expect(actions).toContain("giveaway.update");
  });
});
