/**
 * `spooks-admin log verify --url URL [--key VKEY] [--state FILE]` (issue 34, item 4): checks a deployment's
 * public log without its database: the checkpoint's signature (and the witnesses' quorum), its consistency
 * with the checkpoint kept in the state file, every entry read through the tiles and the root recomputed;
 * then every wallet's balance, every draw and every proposal's tally recomputed from the entries alone and
 * compared with the site's public API. Each difference is named; any makes the command fail.
 */
import fs from "node:fs";
import { isDogecoinAddress } from "../app/domain/address.ts";
import { unitsToPoints } from "../app/domain/rewards.ts";
import type { Checkpoint } from "../app/domain/tlog/checkpoint.ts";
import {
  openCheckpoint,
  proveConsistent,
  proveHandOver,
  readAllEntries,
  readEntryTile,
  type Witnessing,
} from "../app/domain/tlog/client.ts";
import { equalBytes } from "../app/domain/tlog/merkle.ts";
import { formatVerifierKey, parseVerifierKey, type Verifier } from "../app/domain/tlog/note.ts";
import { emptyReplay, replayEntry, tallyOf, type Replay } from "../app/domain/tlog/replay.ts";
import { TILE_WIDTH, type TileFetcher } from "../app/domain/tlog/tiles.ts";

export type VerifyOptions = { url: string; key?: string; state?: string; concurrency?: number };

export type VerifyReport = {
  origin: string;
  size: number;
  verifierKey: string;
  wallets: number;
  giveaways: number;
  proposals: number;
  differences: string[];
};

type Fetch = (path: string) => Promise<Response>;

function client(base: string): { get: Fetch; tiles: TileFetcher; tilesAt: (prefix: string) => TileFetcher } {
  // Every read is a GET: one the connection dropped (a keep-alive socket the site closed as it was reused) is
  // made again, and a 429 waits as long as Retry-After says.
  const get: Fetch = async (path) => {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(30_000) });
      } catch (error) {
        if (attempt >= 3 || (error as Error).name === "TimeoutError") throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
        continue;
      }
      if (response.status !== 429 || attempt >= 5) return response;
      await new Promise((resolve) => setTimeout(resolve, 1000 * Number(response.headers.get("retry-after") ?? 1)));
    }
  };
  // The log's tiles under /log/, or an ended log's under the prefix its successor names (/log/previous/<n>/).
  const tilesAt =
    (prefix: string): TileFetcher =>
    async (path) => {
      const response = await get(`${prefix}${path}`);
      if (response.status === 404) return null;
      if (!response.ok) throw new Error(`${prefix}${path}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    };
  return { get, tiles: tilesAt("/log/"), tilesAt };
}

async function getJson<T>(get: Fetch, path: string): Promise<{ status: number; body: T | null }> {
  const response = await get(path);
  return { status: response.status, body: response.ok ? ((await response.json()) as T) : null };
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function eachLimited<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

type State = { verifierKey: string; note: string };

function readState(file: string | undefined): State | null {
  if (!file || !fs.existsSync(file)) return null;
  return JSON.parse(fs.readFileSync(file, "utf8")) as State;
}

function writeState(file: string, state: State): void {
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
}

/** Reads entries [from, to) of the tree of `size` into the replay (the tail after an earlier read). */
async function replayRange(tiles: TileFetcher, replay: Replay, size: number, from: number): Promise<void> {
  for (let tile = Math.floor(from / TILE_WIDTH); tile * TILE_WIDTH < size; tile++) {
    const entries = await readEntryTile(tiles, size, tile);
    entries.forEach((entry, i) => {
      const index = tile * TILE_WIDTH + i;
      if (index >= from) replayEntry(replay, index, new TextDecoder().decode(entry));
    });
  }
}

type Comparison = { kind: "wallet" | "giveaway" | "proposal"; id: string; difference: string };

type BalancesPage = { balances: { address: string; units: number }[]; next: string | null };

/** Every balance the site keeps, in units, through GET /api/balances (null: the site has no such route). */
async function siteBalances(get: Fetch): Promise<Map<string, number> | null> {
  const found = new Map<string, number>();
  let after: string | null = null;
  for (;;) {
    const page: { status: number; body: BalancesPage | null } = await getJson<BalancesPage>(
      get,
      `/api/balances?limit=1000${after === null ? "" : `&after=${encodeURIComponent(after)}`}`,
    );
    if (page.status === 404) return null;
    if (!page.body) throw new Error(`/api/balances: HTTP ${page.status}`);
    for (const { address, units } of page.body.balances) found.set(address, units);
    if (page.body.next === null) return found;
    after = page.body.next;
  }
}

/** Each wallet's balance as the site says, beside the log's: a page of /api/balances at a time, else /api/rewards/{address}. */
async function compareBalances(get: Fetch, replay: Replay, concurrency: number): Promise<Comparison[]> {
  const found: Comparison[] = [];
  const differ = (address: string, site: string) =>
    found.push({
      kind: "wallet",
      id: address,
      difference: `the site says ${site}, the log ${unitsToPoints(replay.balances.get(address) ?? 0)}`,
    });
  const site = await siteBalances(get);
  if (site) {
    for (const [address, units] of replay.balances) {
      if ((site.get(address) ?? 0) !== units) differ(address, `${unitsToPoints(site.get(address) ?? 0)} points`);
    }
    for (const [address, units] of site) {
      if (units !== 0 && !replay.balances.has(address)) {
        found.push({
          kind: "wallet",
          id: address,
          difference: `the site says ${unitsToPoints(units)} points, the log has no entry about it`,
        });
      }
    }
    return found;
  }
  const wallets = [...replay.balances.keys()].filter(isDogecoinAddress);
  await eachLimited(wallets, concurrency, async (address) => {
    const { status, body } = await getJson<{ unclaimedRewards: number }>(get, `/api/rewards/${address}`);
    if (!body) return void found.push({ kind: "wallet", id: address, difference: `the site answers HTTP ${status}` });
    if (Math.abs(body.unclaimedRewards - unitsToPoints(replay.balances.get(address)!)) > 0.006)
      differ(address, `${body.unclaimedRewards} points`);
  });
  return found;
}

async function compareWithApi(get: Fetch, replay: Replay, concurrency: number): Promise<Comparison[]> {
  const found = await compareBalances(get, replay, concurrency);
  const drawn = [...replay.draws.values()].filter((draw) => draw.drawn && !replay.deletedGiveaways.has(draw.giveaway));
  await eachLimited(drawn, concurrency, async (draw) => {
    const { status, body } = await getJson<{ seed: string | null; blockHash: string | null; winnerAddresses: string[] }>(
      get,
      `/api/giveaways/${draw.giveaway}/draw`,
    );
    const id = String(draw.giveaway);
    if (!body) return void found.push({ kind: "giveaway", id, difference: `the site answers HTTP ${status}` });
    const logged = draw.drawn!;
    if (body.seed !== logged.seed)
      found.push({ kind: "giveaway", id, difference: `the site's seed is ${body.seed}, the log's ${logged.seed}` });
    if ((body.blockHash ?? null) !== logged.blockHash) {
      found.push({ kind: "giveaway", id, difference: `the site's block hash is ${body.blockHash}, the log's ${logged.blockHash}` });
    }
    if (body.winnerAddresses.join(",") !== logged.winners.join(",")) {
      found.push({
        kind: "giveaway",
        id,
        difference: `the site's winners are ${body.winnerAddresses.join(", ") || "none"}, the log's ${logged.winners.join(", ") || "none"}`,
      });
    }
  });
  const proposals = [...replay.votes.keys()].filter((id) => !replay.deletedProposals.has(id));
  await eachLimited(proposals, concurrency, async (proposal) => {
    const { status, body } = await getJson<{ options: { id: number; voteCount: number }[] }>(get, `/api/proposals/${proposal}`);
    const id = String(proposal);
    if (!body) return void found.push({ kind: "proposal", id, difference: `the site answers HTTP ${status}` });
    const tally = tallyOf(replay, proposal);
    for (const option of body.options) {
      const logged = tally.get(option.id) ?? 0;
      if (option.voteCount !== logged) {
        found.push({ kind: "proposal", id, difference: `option ${option.id}: the site counts ${option.voteCount}, the log ${logged}` });
      }
    }
  });
  return found;
}

export async function verifyLog(options: VerifyOptions, progress: (line: string) => void = () => {}): Promise<VerifyReport> {
  const base = options.url.replace(/\/+$/, "");
  const concurrency = options.concurrency ?? 8;
  const { get, tiles, tilesAt } = client(base);
  const state = readState(options.state);
  let verifierKey = options.key;
  if (!verifierKey) {
    const response = await get("/log/key");
    if (!response.ok && !state) throw new Error(`${base}/log/key: HTTP ${response.status}`);
    const named = response.ok ? (await response.text()).trim() : null;
    if (state && (named === null || named === state.verifierKey)) verifierKey = state.verifierKey;
    else if (state) {
      verifierKey = named!;
      progress(
        `the site names another key than the state file's: trusted only through a hand-over from the kept checkpoint: ${verifierKey}`,
      );
    } else {
      verifierKey = named!;
      progress(`trusting the key the site names (pass --key to pin it): ${verifierKey}`);
    }
  }
  const log: Verifier = parseVerifierKey(verifierKey);
  const info = await getJson<{ witnesses: string[]; quorum: number }>(get, "/api/log");
  const witnessing: Witnessing = { witnesses: (info.body?.witnesses ?? []).map(parseVerifierKey), quorum: info.body?.quorum ?? 0 };
  const differences: string[] = [];
  const fetchCheckpoint = async () => {
    const response = await get("/log/checkpoint");
    if (!response.ok) throw new Error(`${base}/log/checkpoint: HTTP ${response.status}`);
    const note = await response.text();
    return { note, checkpoint: openCheckpoint(note, log, witnessing) };
  };
  let { note, checkpoint } = await fetchCheckpoint();
  progress(`checkpoint: ${checkpoint.size} entries, signed by ${log.name}`);
  if (state) {
    if (state.verifierKey !== formatVerifierKey(log)) {
      try {
        const rotation = await proveHandOver(
          tiles,
          ({ previous }) => tilesAt(previous.tiles),
          { note: state.note, key: parseVerifierKey(state.verifierKey) },
          checkpoint,
          formatVerifierKey(log),
        );
        progress(
          `the log's key changed from ${state.verifierKey}: hand-over proven (the old log's last checkpoint, ${rotation.previous.size} entries, contains the one kept)`,
        );
      } catch (error) {
        differences.push(
          `log: the state file keeps a checkpoint of another key (${state.verifierKey}), and no hand-over to this one is proven: ${(error as Error).message}`,
        );
      }
    } else {
      try {
        await proveConsistent(tiles, openCheckpoint(state.note, log), checkpoint);
        progress("consistent with the checkpoint kept in the state file");
      } catch (error) {
        differences.push(`log: the checkpoint is not consistent with the one kept in the state file: ${(error as Error).message}`);
      }
    }
  }
  const replay = emptyReplay();
  const decoder = new TextDecoder();
  const root = await readAllEntries(
    tiles,
    checkpoint.size,
    (first, entries) => entries.forEach((entry, i) => replayEntry(replay, first + i, decoder.decode(entry))),
    concurrency,
  );
  if (!equalBytes(root, checkpoint.root)) differences.push("log: the entries do not hash to the checkpoint's root");
  progress(`read ${replay.entries} entries; root recomputed`);
  differences.push(...replay.problems);
  let compared = await compareWithApi(get, replay, concurrency);
  // Rows written while we read: once more after catching up with the newest checkpoint, only where they differed.
  if (compared.length > 0) {
    const newer = await fetchCheckpoint();
    if (newer.checkpoint.size > checkpoint.size) {
      await proveConsistent(tiles, checkpoint, newer.checkpoint);
      await replayRange(tiles, replay, newer.checkpoint.size, checkpoint.size);
      ({ note, checkpoint } = newer);
      compared = await compareWithApi(get, replay, concurrency);
    }
  }
  differences.push(...compared.map((c) => `${c.kind} ${c.id}: ${c.difference}`));
  const logIntact = !differences.some((line) => line.startsWith("log:"));
  if (options.state && logIntact) writeState(options.state, { verifierKey: formatVerifierKey(log), note });
  return {
    origin: checkpoint.origin,
    size: checkpoint.size,
    verifierKey: formatVerifierKey(log),
    wallets: replay.balances.size,
    giveaways: [...replay.draws.values()].filter((draw) => draw.drawn).length,
    proposals: replay.votes.size,
    differences,
  };
}

export type { Checkpoint };
