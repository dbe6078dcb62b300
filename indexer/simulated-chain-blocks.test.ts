/**
 * The simulated chain's `/blocks/{from}/{to}` as REAL-WORLD.md describes wonky-ord's: a JSON array sent as
 * text/plain over heights [from, to), `hash`, `height`, `txids` as one comma-joined string and per-txid maps
 * of comma-joined strings; 404 above the indexed height; hashes that change when a reorg replaces a block;
 * and, in demo mode, a chain that keeps mining.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrdClient } from "./ord-client.server.ts";
import { startSimulatedChain, type SimulatedChain } from "./simulated-chain.server.ts";
import { testAddress } from "./test-support.ts";

const ID = `${"ab".repeat(32)}i0`;
const OWNER = testAddress("blocks-owner");
const BUYER = testAddress("blocks-buyer");
let chain: SimulatedChain;

beforeAll(async () => {
  chain = await startSimulatedChain({ owners: new Map([[ID, OWNER]]) });
});
afterAll(() => chain.close());

const get = async (path: string) => {
  const response = await fetch(`${chain.url}${path}`);
  return { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
};

const FIELDS = [
  "hash",
  "height",
  "txids",
  "inputs_per_tx",
  "input_values_per_tx",
  "input_addresses_per_tx",
  "outputs_per_tx",
  "output_values_per_tx",
  "output_addresses_per_tx",
  "output_scripts_per_tx",
  "inscriptions_per_tx",
];

type Block = Record<string, unknown> & { hash: string; height: number; txids: string };

describe("GET /blocks/{from}/{to}", () => {
  it("answers the blocks of [from, to) as a JSON array sent as text/plain, each with its hash and transactions", async () => {
    chain.transfer(ID, BUYER);
    const height = chain.height();
    const answer = await get(`/blocks/${height - 1}/${height + 1}?no_inscriptions=true`);
    expect(answer.status).toBe(200);
    expect(answer.type).toBe("text/plain; charset=utf-8");
    const blocks = JSON.parse(answer.body) as Block[];
    expect(blocks.map((block) => block.height)).toEqual([height - 1, height]);
    for (const block of blocks) {
      expect(Object.keys(block)).toEqual(FIELDS);
      expect(block.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(block.hash).toBe(chain.blockHash(block.height));
      expect(typeof block.txids).toBe("string");
    }
    expect(blocks[0].hash).not.toBe(blocks[1].hash);
    // The transfer's block: a coinbase, then the move spending the item's previous output and paying the buyer.
    const [coinbase, move] = blocks[1].txids.split(",");
    expect((blocks[1].inputs_per_tx as Record<string, string>)[coinbase]).toBe(`${"0".repeat(64)}:4294967295`);
    expect(move).toBe(chain.satpointOf(ID)!.split(":")[0]);
    expect((blocks[1].inputs_per_tx as Record<string, string>)[move]).toBe(`${ID.slice(0, 64)}:0`);
    expect((blocks[1].input_addresses_per_tx as Record<string, string>)[move]).toBe(OWNER);
    expect((blocks[1].output_addresses_per_tx as Record<string, string>)[move].split(",")).toContain(BUYER);
    expect((blocks[1].outputs_per_tx as Record<string, string>)[move].split(",")[0]).toBe(`${move}:0`);
    expect(blocks[1].inscriptions_per_tx).toEqual({});
    // An empty block holds its coinbase only.
    expect(blocks[0].txids.split(",")).toHaveLength(1);
  });

  it("answers an empty range with [], a height above the indexed one with 404, a non-number with 400", async () => {
    const count = chain.blockCount();
    expect(await get(`/blocks/${count - 1}/${count - 1}`)).toMatchObject({ status: 200, body: "[]" });
    expect(await get(`/blocks/${count}/${count + 1}`)).toEqual({
      status: 404,
      type: "text/plain; charset=utf-8",
      body: `block ${count} not found`,
    });
    expect(await get(`/blocks/${count - 2}/${count + 3}`)).toMatchObject({ status: 404, body: `block ${count} not found` });
    expect(await get("/blocks/tip/5")).toMatchObject({ status: 400, body: 'Invalid URL: Cannot parse `"tip"` to a `u32`' });
    expect(await get("/blocks/1")).toMatchObject({ status: 404, body: "" });
  });

  it("a reorg gives the blocks above its fork new hashes and keeps those below", async () => {
    chain.mine(3);
    const tip = chain.height();
    const before = [tip - 3, tip - 2, tip - 1, tip].map((h) => chain.blockHash(h));
    chain.reorg({ depth: 2, undo: [], longerBy: 1 });
    const after = [tip - 3, tip - 2, tip - 1, tip].map((h) => chain.blockHash(h));
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2));
    expect(after[2]).not.toBe(before[2]);
    expect(after[3]).not.toBe(before[3]);
    const [block] = JSON.parse((await get(`/blocks/${tip}/${tip + 1}`)).body) as Block[];
    expect(block.hash).toBe(after[3]);
  });

  it("the ord client reads a block's hash, and refuses an answer about another block", async () => {
    const client = createOrdClient({ baseUrl: chain.url, retries: 0 });
    try {
      const height = chain.height() - 1;
      expect(await client.blockHash(height)).toBe(chain.blockHash(height));
      await expect(client.blockHash(chain.height() + 5)).rejects.toMatchObject({ reason: "not_found" });
      chain.failNext("garbage", { route: "blocks" });
      await expect(client.blockHash(height)).rejects.toMatchObject({ reason: "unparseable" });
    } finally {
      client.close();
    }
  });

  it("with mineEveryMs the chain keeps mining (demo mode)", async () => {
    const mining = await startSimulatedChain({ owners: new Map(), mineEveryMs: 20 });
    try {
      const start = mining.blockCount();
      await expect.poll(() => mining.blockCount(), { timeout: 5000 }).toBeGreaterThanOrEqual(start + 3);
    } finally {
      await mining.close();
    }
  });
});

describe("an index that lags its node (REAL-WORLD.md: ord indexes what its node already has)", () => {
  it("with a lag, /block-count and /blocks stop that many blocks below the node's tip; a stalled index freezes while /status says OK", async () => {
    const tip = chain.mine(2);
    chain.setIndexLag(3);
    try {
      expect(await get("/block-count")).toMatchObject({ status: 200, body: String(tip - 3 + 1) });
      expect((await get(`/blocks/${tip - 3}/${tip - 2}`)).status).toBe(200);
      expect(await get(`/blocks/${tip - 2}/${tip - 1}`)).toMatchObject({ status: 404, body: `block ${tip - 2} not found` });
      const control = await fetch(`${chain.url}/control/index-lag`, { method: "POST", body: JSON.stringify({ blocks: 1 }) });
      expect(await control.json()).toEqual({ blockCount: tip, height: tip });

      chain.stallIndexing();
      chain.mine(20);
      expect(await get("/block-count")).toMatchObject({ body: String(tip) });
      expect(await get("/status")).toMatchObject({ status: 200, body: "OK" });
      chain.resumeIndexing();
      expect(await get("/block-count")).toMatchObject({ body: String(chain.height()) });
    } finally {
      chain.setIndexLag(0);
      chain.resumeIndexing();
    }
    expect(chain.blockCount()).toBe(chain.height() + 1);
  });
});
