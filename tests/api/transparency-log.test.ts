/**
 * The public log end to end (issue 34, items 2, 4, 5 and 6): the files under /log/ as tlog-tiles serves them,
 * proofs with a message for bad input, `log verify` finding the site equal to its log, then catching each
 * rewrite the database's owner makes (a ledger amount, a deleted vote, a draw's seed) and naming the wallet,
 * proposal or giveaway; and a witness refusing a new log under the same key from another history (409/422).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { now } from "../../app/domain/clock.ts";
import { drawWinner, newDrawSeed } from "../../app/domain/giveaways.ts";
import { entryMessage, voteMessage } from "../../app/domain/messages.ts";
import { formatCheckpoint } from "../../app/domain/tlog/checkpoint.ts";
import { hashLeaf } from "../../app/domain/tlog/merkle.ts";
import { ALG_COSIGNATURE_V1, formatVerifierKey, signerFromSeed, signNote, utf8, verifierOf } from "../../app/domain/tlog/note.ts";
import { formatAddCheckpoint } from "../../app/domain/tlog/witness.ts";
import { claimLogKey } from "../../app/utils/log-service.server.ts";
import { verifyLog } from "../../cli/log-verify.ts";
import { startWitness } from "../../cli/log-witness.ts";
import { integrate, latestCheckpoint } from "../../db/queries/log.server.ts";
import { runDrawPass } from "../../indexer/draws.server.ts";
import { createOrdClient } from "../../indexer/ord-client.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { startTestServer } from "../support/app-server.ts";
import { givePoints, minutesFromNow, newWallet, useApi, type Wallet } from "./support.ts";

const ctx = useApi();
let chain: SimulatedChain;
const signer = signerFromSeed("spooks.test/log", new Uint8Array(32).fill(9));
const verifierKey = formatVerifierKey(verifierOf(signer));
const checkpointNow = () => integrate(ctx.sql, signer, now());
let holder: Wallet;
let giveawayId: number;
let proposalId: number;
let voteId: number;

beforeAll(async () => {
  chain = await startSimulatedChain({ owners: new Map() });
  ctx.server.context.config.ordUrl = chain.url;
  expect((await claimLogKey(ctx.sql, signer)).ok).toBe(true);
});
afterAll(() => chain.close());

async function drawnGiveaway(): Promise<number> {
  const cookie = await ctx.adminCookie();
  const created = await ctx.call(
    "POST",
    "/api/giveaways",
    {
      title: "Logged",
      description: "A draw in the log",
      imageUrl: "/uploads/x.png",
      pointsCost: 1,
      endDate: minutesFromNow(60).toISOString(),
      winners: 2,
    },
    { cookie },
  );
  const id = created.body.id as number;
  const wallets = [holder, newWallet(), newWallet()];
  for (const [index, wallet] of wallets.entries()) {
    await givePoints(ctx.sql, wallet.address, 50);
    const message = entryMessage(id, index + 1, new Date());
    const entered = await ctx.call("POST", "/api/giveaways/enter", {
      giveawayId: id,
      address: wallet.address,
      tickets: index + 1,
      message,
      signature: wallet.sign(message),
    });
    expect(entered.status).toBe(200);
  }
  const count = chain.blockCount();
  expect((await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie })).status).toBe(200);
  chain.mine(count + 13 - chain.blockCount());
  const client = createOrdClient({ baseUrl: chain.url, retries: 0 });
  try {
    expect((await runDrawPass({ sql: ctx.sql, chain: client })).drawn).toContain(id);
  } finally {
    client.close();
  }
  return id;
}

/**
 * A version-1 giveaway (created before draw version 2) with three entries, drawn by select-winner; or, `rigged`,
 * given a winner its seed does not draw (the operator writing the draw row itself): answers its id.
 */
async function version1Giveaway(rigged: boolean): Promise<number> {
  const { seed, commitment } = newDrawSeed();
  const [{ id }] = await ctx.sql<{ id: number }[]>`
    insert into giveaways (title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, created_at)
    values ('Version 1', 'Drawn over entry rows', '/x.png', 1, ${minutesFromNow(60)}, ${commitment}, ${seed}, now()) returning id`;
  const rows: { id: number; address: string; tickets: number }[] = [];
  for (const tickets of [2, 5, 1]) {
    const wallet = newWallet();
    await givePoints(ctx.sql, wallet.address, 10);
    const message = entryMessage(id, tickets, new Date());
    const entered = await ctx.call("POST", "/api/giveaways/enter", {
      giveawayId: id,
      address: wallet.address,
      tickets,
      message,
      signature: wallet.sign(message),
    });
    expect(entered.status).toBe(200);
    rows.push({ id: entered.body.entry.id as number, address: wallet.address, tickets });
  }
  if (!rigged) {
    expect((await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie: await ctx.adminCookie() })).status).toBe(200);
    return id;
  }
  const loser = rows.find((row) => row.address !== drawWinner(seed, rows).address)!;
  await ctx.sql`update giveaway_entries set is_winner = true where id = ${loser.id}`;
  await ctx.sql`update giveaways set winner_address = ${loser.address}, drawn_at = now() where id = ${id}`;
  return id;
}

async function votedProposal(): Promise<{ proposal: number; vote: number }> {
  const start = new Date(Date.now() - 60_000);
  const [{ id }] = await ctx.sql<{ id: number }[]>`
    insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at)
    values ('Logged vote', 'Which?', ${start}, ${minutesFromNow(60)}, 'yes_no', 'test', ${start}) returning id`;
  const options = await ctx.sql<{ id: number }[]>`
    insert into proposal_options (proposal_id, position, option_text) values (${id}, 0, 'Yes'), (${id}, 1, 'No') returning id`;
  let last = 0;
  for (const [i, wallet] of [holder, newWallet()].entries()) {
    const message = voteMessage(id, "Logged vote", options[i].id, new Date());
    const [vote] = await ctx.sql<{ id: number }[]>`
      insert into votes (proposal_id, option_id, address, weight, signature, message, voted_at, staked_at_start)
      values (${id}, ${options[i].id}, ${wallet.address}, 2, ${wallet.sign(message)}, ${message}, ${new Date()}, ${["a", "b"]}::text[])
      returning id`;
    last = vote.id;
  }
  return { proposal: id, vote: last };
}

describe("the log's files and proofs", () => {
  it("serves the checkpoint, the key and tiles with tlog-tiles' types and caching; proofs refuse bad input with a message", async () => {
    holder = newWallet();
    await givePoints(ctx.sql, holder.address, 10);
    await checkpointNow();
    const checkpoint = await fetch(`${ctx.url}/log/checkpoint`);
    expect(checkpoint.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(checkpoint.headers.get("cache-control")).toBe("public, max-age=2");
    const note = await checkpoint.text();
    expect(note.startsWith("spooks.test/log\n")).toBe(true);
    expect((await (await fetch(`${ctx.url}/log/key`)).text()).trim()).toBe(verifierKey);
    const size = Number(note.split("\n")[1]);
    const tile = await fetch(`${ctx.url}/log/tile/0/000.p/${size}`);
    expect(tile.headers.get("content-type")).toBe("application/octet-stream");
    expect((await tile.arrayBuffer()).byteLength).toBe(32 * size);
    expect((await fetch(`${ctx.url}/log/tile/0/000.p/${size + 1}`)).status).toBe(404);
    expect((await fetch(`${ctx.url}/log/tile/0/0000`)).status).toBe(404);
    const proof = await ctx.call("GET", `/api/log/proof/0?size=${size}`);
    expect(proof.status).toBe(200);
    expect(proof.body).toMatchObject({ index: 0, size });
    for (const bad of [
      `/api/log/proof/${size}?size=${size}`,
      `/api/log/proof/0?size=${size + 99}`,
      "/api/log/proof/x",
      "/api/log/consistency?from=3&to=1",
      "/api/log/consistency?from=1",
    ]) {
      const answer = await ctx.call("GET", bad);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.message, bad).toEqual(expect.any(String));
    }
    expect((await ctx.call("GET", `/api/log/consistency?from=1&to=${size}`)).status).toBe(200);
  });
});

describe("the site's balances, for comparing with the log", () => {
  it("GET /api/balances pages every balance in units, in address order; a bad limit is 400 with a message", async () => {
    const wallets = [newWallet(), newWallet(), newWallet()];
    for (const [i, wallet] of wallets.entries()) await givePoints(ctx.sql, wallet.address, i + 1);
    const all: { address: string; units: number }[] = [];
    let after: string | null = null;
    for (let pages = 0; ; pages++) {
      const page = await ctx.call("GET", `/api/balances?limit=2${after === null ? "" : `&after=${after}`}`);
      expect(page.status).toBe(200);
      expect(page.body.balances.length).toBeLessThanOrEqual(2);
      all.push(...(page.body.balances as { address: string; units: number }[]));
      after = page.body.next as string | null;
      if (after === null) break;
      expect(after).toBe(all.at(-1)!.address);
    }
    const kept = await ctx.sql<
      { address: string; units: number }[]
    >`select address, units::int8 as units from wallet_balances order by address`;
    expect(all).toEqual(kept.map((row) => ({ address: row.address, units: Number(row.units) })));
    for (const [i, wallet] of wallets.entries()) expect(all).toContainEqual({ address: wallet.address, units: (i + 1) * 2400 });
    for (const bad of ["0", "1001", "x", "-1"]) {
      const answer = await ctx.call("GET", `/api/balances?limit=${bad}`);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.message, bad).toMatch(/limit must be a whole number from 1 to 1000/);
    }
  });
});

describe("the log's files have a limit of their own", () => {
  it("RATE_LIMIT_LOG_PER_MIN counts /log/ apart from other reads, and log verify waits on a 429's Retry-After", async () => {
    const server = await startTestServer({
      sql: ctx.sql,
      adminAddress: ctx.admin.address,
      env: { RATE_LIMIT_LOG_PER_MIN: "4", RATE_LIMIT_READS_PER_MIN: "100" },
      rateLimitWindowMs: 1000,
    });
    try {
      await checkpointNow();
      // At the start of a window, so the four fit in it.
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
      for (let i = 0; i < 4; i++) {
        const served = await fetch(`${server.url}/log/checkpoint`);
        expect(served.status).toBe(200);
        // Files browsers and CDNs cache carry no count of one client's requests (the other reads do).
        expect([served.headers.get("ratelimit"), served.headers.get("ratelimit-policy")]).toEqual([null, null]);
      }
      const refused = await fetch(`${server.url}/log/tile/0/000.p/1`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(((await refused.json()) as { message: string }).message).toMatch(
        /^Too many public-log requests from your address: at most 4 per 1 s/,
      );
      const otherRead = await fetch(`${server.url}/api/log`);
      expect(otherRead.status).toBe(200);
      expect(otherRead.headers.get("ratelimit")).toMatch(/^"[^"]+"; r=\d+; t=\d+$/);
      const report = await verifyLog({ url: server.url, key: verifierKey, concurrency: 2 });
      expect(report.differences).toEqual([]);
      expect(report.size).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});

describe("log verify", () => {
  const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "spooks-log-")), "state.json");

  it("finds a site equal to its log: balances, a draw and a tally recomputed from the entries alone", async () => {
    giveawayId = await drawnGiveaway();
    await version1Giveaway(false);
    ({ proposal: proposalId, vote: voteId } = await votedProposal());
    await checkpointNow();
    const report = await verifyLog({ url: ctx.url, key: verifierKey, state: stateFile });
    expect(report.differences).toEqual([]);
    expect(report.giveaways).toBeGreaterThanOrEqual(2);
    expect(report.proposals).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(stateFile)).toBe(true);
  });

  it("names the wallet whose ledger amount the database's owner changed", async () => {
    await ctx.ownerSql.begin(async (tx) => {
      await tx`alter table points_ledger disable trigger points_ledger_no_update`;
      await tx`update points_ledger set amount = amount + 240000 where address = ${holder.address} and kind = 'admin_add'`;
      await tx`update balances set units = units + 240000 where address = ${holder.address}`;
      await tx`alter table points_ledger enable trigger points_ledger_no_update`;
    });
    const report = await verifyLog({ url: ctx.url, key: verifierKey, state: stateFile });
    expect(report.differences).toContainEqual(
      expect.stringMatching(new RegExp(`^wallet ${holder.address}: the site says \\d+ points, the log`)),
    );
  });

  it("names the proposal whose vote the owner deleted, and the giveaway whose seed the owner changed", async () => {
    await ctx.ownerSql`delete from votes where id = ${voteId}`;
    await ctx.ownerSql.begin(async (tx) => {
      await tx`alter table giveaways disable trigger giveaways_draw_inputs_final`;
      await tx`update giveaways set draw_seed = ${"ab".repeat(32)} where id = ${giveawayId}`;
      await tx`alter table giveaways enable trigger giveaways_draw_inputs_final`;
    });
    const report = await verifyLog({ url: ctx.url, key: verifierKey, state: stateFile });
    expect(report.differences).toContainEqual(
      expect.stringMatching(new RegExp(`^proposal ${proposalId}: option \\d+: the site counts 0, the log 2`)),
    );
    expect(report.differences).toContainEqual(
      expect.stringMatching(new RegExp(`^giveaway ${giveawayId}: the site's seed is ${"ab".repeat(32)}`)),
    );
  });

  it("catches a new log under the same key from a different history: not consistent with the kept checkpoint", async () => {
    // The operator starts over: every log table emptied as the owner, a different history signed with the same key.
    await ctx.ownerSql.begin(async (tx) => {
      await tx`alter table log_batches disable trigger user`;
      await tx`alter table log_head disable trigger user`;
      await tx`delete from log_batches`;
      await tx`update log_head set size = 0`;
      await tx`delete from log_tiles`;
      await tx`delete from log_checkpoints`;
      await tx`update log_state set size = 0, frontier = ''::bytea`;
      await tx`alter table log_batches enable trigger user`;
      await tx`alter table log_head enable trigger user`;
    });
    for (let i = 0; i < 40; i++) await givePoints(ctx.sql, newWallet().address, 1);
    await checkpointNow();
    const report = await verifyLog({ url: ctx.url, key: verifierKey, state: stateFile });
    expect(report.differences).toContainEqual(
      expect.stringMatching(/^log: the checkpoint is not consistent with the one kept in the state file/),
    );
  });
});

describe("log verify and version-1 draws", () => {
  it("recomputes a version-1 winner from the seed and the entry rows: a winner the seed does not draw is named", async () => {
    const id = await version1Giveaway(true);
    await checkpointNow();
    const report = await verifyLog({ url: ctx.url, key: verifierKey });
    expect(report.differences).toContainEqual(
      expect.stringMatching(new RegExp(`^entry \\d+: giveaway ${id}: its winners are not those its seed, block and entries draw$`)),
    );
  });
});

describe("a witness", () => {
  it("cosigns consistent checkpoints and refuses a fork with 409 or 422", async () => {
    const witnessKey = signerFromSeed("witness.test", new Uint8Array(32).fill(4), ALG_COSIGNATURE_V1);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-witness-"));
    const witness = await startWitness({ port: 0, key: witnessKey, logs: [verifierKey], stateFile: path.join(dir, "state.json") });
    try {
      const post = (body: string) => fetch(`${witness.url}/add-checkpoint`, { method: "POST", body });
      const first = (await latestCheckpoint(ctx.sql))!;
      const accepted = await post(formatAddCheckpoint({ oldSize: 0, proof: [], note: first.note }));
      expect(accepted.status).toBe(200);
      expect(await accepted.text()).toMatch(/^— witness\.test \S+\n$/);
      // The same size with another root, signed by the same key: a fork.
      const forged = signNote(
        formatCheckpoint({ origin: signer.name, size: first.size, root: hashLeaf(utf8("another history")), extensions: [] }),
        signer,
      );
      expect((await post(formatAddCheckpoint({ oldSize: first.size, proof: [], note: forged }))).status).toBe(422);
      // A sender who does not know the witness's size is told it.
      const stale = await post(formatAddCheckpoint({ oldSize: 1, proof: [], note: forged }));
      expect(stale.status).toBe(409);
      expect(stale.headers.get("content-type")).toBe("text/x.tlog.size");
      expect((await stale.text()).trim()).toBe(String(first.size));
      // A checkpoint of another key is refused (403); an unknown origin too (404).
      const stranger = signerFromSeed("spooks.test/log", new Uint8Array(32).fill(5));
      expect(
        (await post(formatAddCheckpoint({ oldSize: first.size, proof: [], note: signNote(forged.split("\n\n")[0] + "\n", stranger) })))
          .status,
      ).toBe(403);
      const other = signerFromSeed("other.test/log", new Uint8Array(32).fill(6));
      expect(
        (
          await post(
            formatAddCheckpoint({
              oldSize: 0,
              proof: [],
              note: signNote("other.test/log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n", other),
            }),
          )
        ).status,
      ).toBe(404);
    } finally {
      await witness.close();
    }
  });
});
