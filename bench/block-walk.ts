/**
 * Figures for docs/indexer.md's design "following 100,000 items by walking blocks": a simulation, not the
 * indexer. It builds wonky-ord `/blocks/{from}/{to}?no_inscriptions=true` answers (per block: hash, height,
 * txids, inputs_per_tx, outputs with addresses) for synthetic Dogecoin blocks, keeps an outpoint → item
 * map for 100,000 items, and walks the blocks: every spent outpoint is looked up, a hit moves the item to
 * its transaction's first output. Printed beside the baseline: one steady pass of validate batches over
 * the same 100,000 items (request URIs + answers), which is what the indexer does today each minute.
 * Standalone: `node --import tsx bench/block-walk.ts`.
 */
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";

const ITEMS = 100_000;
const BLOCKS_PER_DAY = 1_440; // Dogecoin: one block a minute
const PROFILES = [
  { label: "quiet (30 tx/block)", txs: 30 },
  { label: "busy (300 tx/block)", txs: 300 },
  { label: "inscription spike (3,000 tx/block)", txs: 3_000 },
] as const;
const BLOCKS_PER_PROFILE = 200;
const ITEM_SPEND_SHARE = 0.01; // of inputs, spends of an item's output (100 transfers in 10,000 inputs)

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const address = () => `D${randomBytes(24).toString("base64url").slice(0, 33)}`;

type Block = {
  hash: string;
  height: number;
  txids: string[];
  inputs_per_tx: Record<string, string[]>;
  outputs: { outpoint: string; address: string | null }[];
};

function makeBlock(height: number, txs: number, itemOutpoints: string[]): Block {
  const txids = Array.from({ length: txs }, () => hex(32));
  const inputs: Record<string, string[]> = {};
  const outputs: Block["outputs"] = [];
  for (const txid of txids) {
    inputs[txid] = [0, 1].map(() =>
      Math.random() < ITEM_SPEND_SHARE
        ? itemOutpoints[Math.floor(Math.random() * itemOutpoints.length)]
        : `${hex(32)}:${Math.floor(Math.random() * 3)}`,
    );
    outputs.push({ outpoint: `${txid}:0`, address: address() }, { outpoint: `${txid}:1`, address: address() });
  }
  return { hash: hex(32), height, txids, inputs_per_tx: inputs, outputs };
}

/** Applies one block: spent item outpoints move to the spending transaction's first output. */
function walk(block: Block, where: Map<string, number>): number {
  let moves = 0;
  for (const txid of block.txids) {
    for (const spent of block.inputs_per_tx[txid]) {
      const item = where.get(spent);
      if (item === undefined) continue;
      where.delete(spent);
      where.set(`${txid}:0`, item);
      moves += 1;
    }
  }
  return moves;
}

function validateBaselineBytes(): number {
  // One steady pass: 200 requests of 500 pairs; each pair is "<64 hex>i0" + "D…34" + separators in the URI,
  // and `"<id>":true,` in the answer.
  const pairUri = 66 + 34 + 2;
  const pairAnswer = 66 + 2 + 6;
  return ITEMS * (pairUri + pairAnswer) + 200 * 200; // plus request/response headers
}

export async function run(): Promise<void> {
  const itemOutpoints = Array.from({ length: ITEMS }, () => `${hex(32)}:0`);
  const heapBefore = process.memoryUsage().heapUsed;
  const where = new Map(itemOutpoints.map((outpoint, item) => [outpoint, item]));
  const mapBytes = process.memoryUsage().heapUsed - heapBefore;
  const baseline = validateBaselineBytes();

  console.log(`walking blocks for ${ITEMS.toLocaleString("en-US")} items (simulation; figures for docs/indexer.md):`);
  console.log(`  outpoint → item map: ${(mapBytes / 1024 / 1024).toFixed(1)} MB of heap`);
  console.log(
    `  baseline: one steady validate pass over ${ITEMS.toLocaleString("en-US")} items moves ${(baseline / 1024 / 1024).toFixed(1)} MB (every minute: ${((baseline * BLOCKS_PER_DAY) / 1024 ** 3).toFixed(1)} GB/day)`,
  );
  for (const profile of PROFILES) {
    const blocks = Array.from({ length: BLOCKS_PER_PROFILE }, (_, i) => makeBlock(5_000_000 + i, profile.txs, itemOutpoints));
    const bodies = blocks.map((block) => JSON.stringify(block));
    const bytes = bodies.reduce((sum, body) => sum + body.length, 0) / BLOCKS_PER_PROFILE;
    const started = performance.now();
    let moves = 0;
    for (const body of bodies) moves += walk(JSON.parse(body) as Block, where);
    const perBlockMs = (performance.now() - started) / BLOCKS_PER_PROFILE;
    console.log(
      `  ${profile.label.padEnd(36)} ${(bytes / 1024).toFixed(1).padStart(8)} KB/block, ${perBlockMs.toFixed(2).padStart(6)} ms/block to parse and walk` +
        `, ${((bytes * BLOCKS_PER_DAY) / 1024 ** 2).toFixed(0).padStart(5)} MB/day = ${((100 * bytes) / baseline).toFixed(1)}% of one validate pass per block; ${moves} item moves in ${BLOCKS_PER_PROFILE} blocks`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run().catch((error: Error) => {
    console.error(`bench/block-walk: ${error.message}`);
    process.exit(1);
  });
}
