/**
 * Winners claim their prize over HTTP (issue 27, item 9): only a winner of a drawn giveaway, once, with a
 * message rebuilt from the giveaway's title and the body's fields, fresh and never replayed; the admin reads
 * every winner with their claim or none; the contact is in no public answer and no audit row. Also the draw's
 * progress a closed giveaway publishes (item 8).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimMessage, entryMessage } from "../../app/domain/messages.ts";
import { runDrawPass } from "../../indexer/draws.server.ts";
import { createOrdClient } from "../../indexer/ord-client.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { givePoints, minutesFromNow, newWallet, nonAdminSession, useApi, type Wallet } from "./support.ts";

const ctx = useApi();
let chain: SimulatedChain;

const TITLE = "Golden Spook (#1) for the brave. Contact: me";
const CONTACT = "winner-contact@spooks.example";
let giveawayId = 0;
let undrawnId = 0;
let winners: Wallet[] = [];
let loser: Wallet;

beforeAll(async () => {
  chain = await startSimulatedChain({ owners: new Map() });
  ctx.server.context.config.ordUrl = chain.url;
  const cookie = await ctx.adminCookie();
  const create = async (title: string) =>
    (
      await ctx.call(
        "POST",
        "/api/giveaways",
        {
          title,
          description: "Two winners",
          imageUrl: "/uploads/g.png",
          pointsCost: 1,
          endDate: minutesFromNow(60).toISOString(),
          winners: 2,
        },
        { cookie },
      )
    ).body.id as number;
  giveawayId = await create(TITLE);
  undrawnId = await create("Not yet");
  const wallets = [newWallet(), newWallet(), newWallet()];
  for (const wallet of wallets) {
    await givePoints(ctx.sql, wallet.address, 10);
    for (const id of [giveawayId, undrawnId]) {
      const message = entryMessage(id, 1, new Date());
      const entered = await ctx.call("POST", "/api/giveaways/enter", {
        giveawayId: id,
        address: wallet.address,
        tickets: 1,
        message,
        signature: wallet.sign(message),
      });
      expect(entered.status).toBe(200);
    }
  }
  const count = chain.blockCount();
  expect((await ctx.call("POST", `/api/giveaways/${giveawayId}/select-winner`, {}, { cookie })).status).toBe(200);
  // The indexer's last sync read `count` blocks: the draw block (count + 6) needs 13 more, about 13 minutes.
  const setBlockCount = (blockCount: number) => ctx.sql`
    insert into chain_cursor (highest_block_count, updated_at, advanced_at) values (${blockCount}, now(), now())
    on conflict (id) do update set highest_block_count = excluded.highest_block_count`;
  await setBlockCount(count);
  const closed = (await ctx.call("GET", `/api/giveaways/${giveawayId}`)).body;
  expect(closed.drawProgress).toEqual({ blockCount: count, blocksToGo: 13, minutesToGo: 13 });
  await setBlockCount(count + 10);
  const listed = (await ctx.call("GET", "/api/giveaways")).body.find((g: { id: number }) => g.id === giveawayId);
  expect(listed.drawProgress).toEqual({ blockCount: count + 10, blocksToGo: 3, minutesToGo: 3 });

  chain.mine(13);
  const client = createOrdClient({ baseUrl: chain.url, retries: 0 });
  try {
    await runDrawPass({ sql: ctx.sql, chain: client });
  } finally {
    client.close();
  }
  const drawn = (await ctx.call("GET", `/api/giveaways/${giveawayId}`)).body;
  expect(drawn.drawProgress).toBeNull();
  expect(drawn.winnerAddresses).toHaveLength(2);
  winners = drawn.winnerAddresses.map((address: string) => wallets.find((wallet) => wallet.address === address)!);
  loser = wallets.find((wallet) => !drawn.winnerAddresses.includes(wallet.address))!;
}, 120_000);

afterAll(() => chain.close());

function claimBody(wallet: Wallet, options: { id?: number; contact?: string; title?: string; at?: Date; signer?: Wallet } = {}) {
  const id = options.id ?? giveawayId;
  const contact = options.contact ?? CONTACT;
  const message = claimMessage(options.title ?? TITLE, id, wallet.address, contact, options.at ?? new Date());
  return { address: wallet.address, contact, message, signature: (options.signer ?? wallet).sign(message) };
}

const claim = (body: unknown, id = giveawayId) => ctx.call("POST", `/api/giveaways/${id}/claim`, body);

describe("claiming a prize", () => {
  it("is refused before the draw, to a non-winner, and for a message that is not this claim", async () => {
    const early = await claim(claimBody(winners[0], { id: undrawnId, title: "Not yet" }), undrawnId);
    expect(early).toMatchObject({ status: 409, body: { message: expect.stringMatching(/not been drawn yet/) } });

    expect(await claim(claimBody(loser))).toMatchObject({
      status: 403,
      body: { message: "Only a winner of this giveaway can claim its prize" },
    });

    const refused = [
      // Another contact in the body than in the signed text.
      { ...claimBody(winners[0]), contact: "someone-else@example.com" },
      // Another title (the giveaway's exact title is signed).
      claimBody(winners[0], { title: "Golden Spook" }),
      // Signed by another wallet.
      claimBody(winners[0], { signer: loser }),
      // Older than 10 minutes.
      claimBody(winners[0], { at: new Date(Date.now() - 11 * 60_000) }),
      // Another giveaway's id in the text.
      claimBody(winners[0], { id: undrawnId }),
    ];
    for (const body of refused) expect((await claim(body)).status, JSON.stringify(body)).toBe(401);
    expect((await claim({ ...claimBody(winners[0]), contact: "   " })).status).toBe(400);
    expect((await claim({ ...claimBody(winners[0]), contact: "two\nlines" })).status).toBe(400);
    expect((await claim({ ...claimBody(winners[0]), contact: "x".repeat(201) })).status).toBe(400);
    expect((await claim(claimBody(winners[0]), 999_999)).status).toBe(404);
    const [{ count }] = await ctx.sql<{ count: number }[]>`select count(*)::int as count from giveaway_claims`;
    expect(count).toBe(0);
  });

  it("a winner claims once: a replay is refused as staking's are, a second claim is a conflict; audited without the contact", async () => {
    const body = claimBody(winners[0]);
    const claimed = await claim(body);
    expect(claimed.status).toBe(200);
    expect(claimed.body).toEqual({
      success: true,
      claim: { giveawayId, address: winners[0].address, claimedAt: expect.stringMatching(/^\d{4}-/) },
      logIndex: expect.any(Number),
    });
    expect(await claim(body)).toMatchObject({ status: 401, body: { message: "This signature has already been used" } });
    const again = await claim(claimBody(winners[0], { contact: "another@example.com" }));
    expect(again).toMatchObject({ status: 409, body: { message: expect.stringMatching(/^This prize was already claimed on /) } });

    const [row] = await ctx.sql<{ actor: string; actorAddress: string; target: string; details: string }[]>`
      select actor, actor_address, target, details::text from audit_log where action = 'giveaway.claim'`;
    expect(row).toMatchObject({ actor: "web", actorAddress: winners[0].address, target: `giveaway:${giveawayId}` });
    expect(JSON.stringify(row)).not.toContain(CONTACT);

    // The winner's entries say when they claimed; the other winner's do not.
    const mine = (await ctx.call("GET", `/api/giveaways/entries/user/${winners[0].address}`)).body;
    expect(mine.find((entry: { giveawayId: number }) => entry.giveawayId === giveawayId).claimedAt).toBe(claimed.body.claim.claimedAt);
    const theirs = (await ctx.call("GET", `/api/giveaways/entries/user/${winners[1].address}`)).body;
    expect(theirs.find((entry: { giveawayId: number }) => entry.giveawayId === giveawayId).claimedAt).toBeNull();
  });

  it("the admin sees each winner's claim and who has not claimed; nobody else does", async () => {
    const path = `/api/giveaways/${giveawayId}/claims`;
    const answer = await ctx.call("GET", path, undefined, { cookie: await ctx.adminCookie() });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ giveawayId, title: TITLE, drawn: true, claimed: 1, unclaimed: 1 });
    const byAddress = new Map(answer.body.winners.map((winner: { address: string }) => [winner.address, winner]));
    expect(byAddress.get(winners[0].address)).toMatchObject({
      contact: CONTACT,
      claimedAt: expect.any(String),
      signature: expect.any(String),
    });
    expect(byAddress.get(winners[1].address)).toMatchObject({ contact: null, claimedAt: null, message: null });
    expect(answer.body.winners.map((winner: { place: number }) => winner.place)).toEqual([1, 2]);

    expect((await ctx.call("GET", path)).status).toBe(401);
    expect((await ctx.call("GET", path, undefined, { cookie: await nonAdminSession(ctx.sql) })).status).toBe(403);
    const undrawn = await ctx.call("GET", `/api/giveaways/${undrawnId}/claims`, undefined, { cookie: await ctx.adminCookie() });
    expect(undrawn.body).toMatchObject({ drawn: false, claimed: 0, unclaimed: 0, winners: [] });
  });

  it("the contact is in no public answer", async () => {
    const publicPaths = [
      "/api/giveaways",
      `/api/giveaways/${giveawayId}`,
      `/api/giveaways/${giveawayId}/entries`,
      `/api/giveaways/${giveawayId}/draw`,
      `/api/giveaways/entries/user/${winners[0].address}`,
      `/api/points/${winners[0].address}/history`,
      `/api/rewards/${winners[0].address}`,
    ];
    for (const path of publicPaths) {
      const answer = await ctx.call("GET", path);
      expect(answer.status, path).toBe(200);
      expect(JSON.stringify(answer.body), path).not.toContain(CONTACT);
    }
  });
});
