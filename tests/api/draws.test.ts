/**
 * Draw version 2 over HTTP: winners set at creation, "Select Winner" closing entries at the ord server's
 * next block, GET /api/giveaways/{id}/draw before and after the indexer draws, tampered answers failing the
 * check, version-1 draws still verifying, and an ord server that does not answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drawWinnersV2, verifyDraw, type PublishedDraw } from "../../app/domain/draw.ts";
import { newDrawSeed } from "../../app/domain/giveaways.ts";
import { entryMessage } from "../../app/domain/messages.ts";
import { runDrawPass } from "../../indexer/draws.server.ts";
import { createOrdClient } from "../../indexer/ord-client.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { givePoints, minutesFromNow, newWallet, useApi, type Wallet } from "./support.ts";

const ctx = useApi();
let chain: SimulatedChain;

beforeAll(async () => {
  chain = await startSimulatedChain({ owners: new Map() });
  ctx.server.context.config.ordUrl = chain.url;
});
afterAll(() => chain.close());

async function drawPass() {
  const client = createOrdClient({ baseUrl: chain.url, retries: 0 });
  try {
    return await runDrawPass({ sql: ctx.sql, chain: client });
  } finally {
    client.close();
  }
}

async function create(winners?: number) {
  const body = {
    title: "Triple Spook",
    description: "Three winners",
    imageUrl: "/uploads/three.png",
    pointsCost: 1,
    endDate: minutesFromNow(60).toISOString(),
    ...(winners === undefined ? {} : { winners }),
  };
  return ctx.call("POST", "/api/giveaways", body, { cookie: await ctx.adminCookie() });
}

async function enter(wallet: Wallet, giveawayId: number, tickets: number) {
  const message = entryMessage(giveawayId, tickets, new Date());
  return ctx.call("POST", "/api/giveaways/enter", {
    giveawayId,
    address: wallet.address,
    tickets,
    message,
    signature: wallet.sign(message),
  });
}

const getDraw = async (id: number) => (await ctx.call("GET", `/api/giveaways/${id}/draw`)).body as PublishedDraw & { status: string };

/** A version-2 giveaway with 3 winners among 5 wallets, drawn by the indexer's pass. */
let drawn: PublishedDraw;

describe("draw version 2 over the API", () => {
  it("sets the number of winners at creation (default 1, 1 to 100)", async () => {
    expect((await create()).body).toMatchObject({ drawVersion: 2, winners: 1 });
    for (const bad of [0, 101, 1.5]) {
      const answer = await create(bad);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toMatch(/^Winners must be/);
    }
  });

  it("select winner closes entries at block count + 6 ('Drawing at block'), published with closedAt; the indexer draws after 6 on top", async () => {
    const { id, drawCommitment } = (await create(3)).body as { id: number; drawCommitment: string };
    const wallets = Array.from({ length: 5 }, () => newWallet());
    for (const [index, wallet] of wallets.entries()) {
      await givePoints(ctx.sql, wallet.address, 100);
      expect((await enter(wallet, id, index + 1)).status).toBe(200);
    }
    expect((await enter(wallets[0], id, 2)).status).toBe(200); // a second entry of the same wallet: one row, 3 tickets

    const open = await getDraw(id);
    expect(open).toMatchObject({ version: 2, status: "open", commitment: drawCommitment, seed: null, blockHeight: null, winners: 3 });
    expect(open.entries).toHaveLength(5);
    expect(open.entries.map((entry) => entry.address)).toEqual(wallets.map((wallet) => wallet.address).sort());

    const cookie = await ctx.adminCookie();
    const count = chain.blockCount();
    const selected = await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie });
    expect(selected.status).toBe(200);
    expect(selected.body).toEqual({
      version: 2,
      status: "drawing",
      blockHeight: count + 6,
      closedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      blockHash: null,
      seed: null,
      winnerAddresses: [],
    });
    // Closed: no entry; selecting again answers the same block.
    await givePoints(ctx.sql, wallets[1].address, 10);
    expect((await enter(wallets[1], id, 1)).status).toBe(409);
    chain.mine(2);
    expect((await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie })).body).toMatchObject({ blockHeight: count + 6 });
    expect((await ctx.call("GET", `/api/giveaways/${id}`)).body).toMatchObject({
      drawBlockHeight: count + 6,
      drawSeed: null,
      winnerAddresses: [],
    });
    expect((await getDraw(id)).status).toBe("drawing");

    chain.mine(count + 13 - chain.blockCount());
    expect((await drawPass()).drawn).toContain(id);
    drawn = await getDraw(id);
    expect(drawn).toMatchObject({
      status: "drawn",
      blockHeight: count + 6,
      closedAt: selected.body.closedAt,
      blockHash: chain.blockHash(count + 6),
    });
    expect(drawn.entries).toEqual(open.entries);
    expect(drawn.winnerAddresses).toHaveLength(3);
    expect(verifyDraw(drawn).outcome).toBe("verified");
    const giveaway = (await ctx.call("GET", `/api/giveaways/${id}`)).body;
    expect(giveaway).toMatchObject({
      winnerAddresses: drawn.winnerAddresses,
      winnerAddress: drawn.winnerAddresses[0],
      drawSeed: drawn.seed,
    });
    // Each winner's entries say so.
    const winnerEntries = (await ctx.call("GET", `/api/giveaways/entries/user/${drawn.winnerAddresses[2]}`)).body;
    expect(winnerEntries.every((entry: { isWinner: boolean }) => entry.isWinner)).toBe(true);
    expect((await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie })).status).toBe(409);
  });

  it("an answer tampered in its ticket counts, seed, block hash or entry order fails the check", () => {
    const stepOf = (change: Partial<PublishedDraw>) => verifyDraw({ ...drawn, ...change }).steps.at(-1)!;
    /** A change to the numbers fails exactly when it moves a winner, at that winner; some of these do. */
    const expectCaught = (changes: Partial<PublishedDraw>[]) => {
      let caught = 0;
      for (const change of changes) {
        const tampered = { ...drawn, ...change };
        const moved = drawWinnersV2(tampered.seed!, tampered.blockHash!, tampered.entries, tampered.winners).some(
          (pick) => pick.address !== drawn.winnerAddresses[pick.k],
        );
        const verdict = verifyDraw(tampered);
        expect(verdict.outcome).toBe(moved ? "failed" : "verified");
        if (moved) {
          expect(verdict.steps.at(-1)!.step).toBe("winner");
          caught += 1;
        }
      }
      expect(caught).toBeGreaterThan(0);
    };
    expectCaught(
      drawn.entries.flatMap((_, index) =>
        [1, 7, 40].map((more) => ({ entries: drawn.entries.map((e, i) => (i === index ? { ...e, tickets: e.tickets + more } : e)) })),
      ),
    );
    expectCaught([1, 2, 3, 4, 5].map((below) => ({ blockHash: chain.blockHash(drawn.blockHeight! - below) })));
    expect(stepOf({ seed: newDrawSeed().seed }).step).toBe("commitment");
    expect(stepOf({ entries: [...drawn.entries].reverse() }).step).toBe("entries");
  });

  it("the ord server not answering: 503, and entries stay open", async () => {
    const { id } = (await create()).body as { id: number };
    ctx.server.context.config.ordUrl = "http://127.0.0.1:9";
    try {
      const answer = await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie: await ctx.adminCookie() });
      expect(answer.status).toBe(503);
      expect(answer.body.message).toBe("The ord server did not answer: entries stay open, try again");
    } finally {
      ctx.server.context.config.ordUrl = chain.url;
    }
    const wallet = newWallet();
    await givePoints(ctx.sql, wallet.address, 10);
    expect((await enter(wallet, id, 1)).status).toBe(200);
    expect((await getDraw(id)).status).toBe("open");
  });

  it("a stalled or rewinding ord server: Select Winner answers 409 saying why, and entries stay open", async () => {
    const { id } = (await create()).body as { id: number };
    const cookie = await ctx.adminCookie();
    const select = () => ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie });
    // The indexer's pass saw this block count, and no higher one, 11 minutes ago.
    const count = chain.blockCount();
    await ctx.sql`delete from chain_cursor`;
    await ctx.sql`insert into chain_cursor (highest_block_count, updated_at, advanced_at)
                  values (${count}, now(), now() - interval '11 minutes')`;
    try {
      const stalled = await select();
      expect(stalled.status).toBe(409);
      expect(stalled.body.message).toMatch(
        new RegExp(`^Entries stay open: the ord server is stalled \\(no new block for 11 minutes, block count ${count}\\)\\. `),
      );
      chain.beginRollback(2);
      const rewinding = await select();
      expect(rewinding.status).toBe(409);
      expect(rewinding.body.message).toContain(`the ord server is rewinding (block count ${count - 2}, below the highest seen, ${count})`);
      expect((await getDraw(id)).status).toBe("open");
    } finally {
      chain.endRollback();
    }
    // A new block: healthy again, and the close goes ahead at its count + 6.
    chain.mine(1);
    expect((await select()).body).toMatchObject({ status: "drawing", blockHeight: count + 1 + 6 });
    await ctx.sql`delete from chain_cursor`;
  });

  it("a version-1 giveaway keeps drawing and verifying with version 1; unknown ids are 404", async () => {
    const { seed, commitment } = newDrawSeed();
    const [{ id }] = await ctx.sql<{ id: number }[]>`
      insert into giveaways (title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, created_at)
      values ('Old', 'Version 1', '/x.png', 1, ${minutesFromNow(60)}, ${commitment}, ${seed}, now()) returning id`;
    for (const tickets of [2, 5, 1]) {
      const wallet = newWallet();
      await givePoints(ctx.sql, wallet.address, 10);
      expect((await enter(wallet, id, tickets)).status).toBe(200);
    }
    const selected = await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie: await ctx.adminCookie() });
    expect(selected.body).toMatchObject({ version: 1, drawSeed: seed });
    const draw = await getDraw(id);
    expect(draw).toMatchObject({ version: 1, status: "drawn", seed, blockHeight: null, blockHash: null, winners: 1 });
    expect(draw.entries.map((entry) => entry.tickets)).toEqual([2, 5, 1]);
    expect(draw.winnerAddresses).toEqual([selected.body.winner.address]);
    expect(verifyDraw(draw).outcome).toBe("verified");
    expect((await ctx.call("GET", "/api/giveaways/999999/draw")).status).toBe(404);
  });
});
