/**
 * Checking a published draw (app/domain/draw.ts, what the "Verify this draw" view and `spooks-admin
 * giveaways verify` run) with 10,000 entries, 1 and 10 winners, in Node, beside JSON.parse of the same
 * answer (the least any reader of it does). The in-browser time is printed by tests/e2e/draw-verify.test.ts.
 */
import { createHash } from "node:crypto";
import { commitmentOf, drawWinnersV2, verifyDraw, type PublishedDraw } from "../app/domain/draw.ts";

const ENTRIES = 10_000;
const RUNS = 20;

function publishedDraw(winners: number): PublishedDraw {
  const seed = createHash("sha256").update("bench-seed").digest("hex");
  const blockHash = createHash("sha256").update("bench-block").digest("hex");
  const entries = Array.from({ length: ENTRIES }, (_, i) => ({ address: `D${String(i).padStart(33, "0")}`, tickets: 1 + (i % 50) }));
  const winnerAddresses = drawWinnersV2(seed, blockHash, entries, winners).map((pick) => pick.address);
  return {
    version: 2,
    commitment: commitmentOf(seed),
    seed,
    blockHeight: 5_000_100,
    closedAt: "2031-01-01T00:00:00.000Z",
    blockHash,
    winners,
    entries,
    winnerAddresses,
  };
}

function median(work: () => void): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    work();
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

export async function run(): Promise<void> {
  for (const winners of [1, 10]) {
    const draw = publishedDraw(winners);
    const text = JSON.stringify(draw);
    if (verifyDraw(draw).outcome !== "verified") throw new Error("the bench's draw does not verify");
    const verify = median(() => void verifyDraw(draw));
    const parse = median(() => void JSON.parse(text));
    console.log(
      `verify a draw, ${ENTRIES.toLocaleString("en-US")} entries, ${winners} winner(s): median ${verify.toFixed(1)} ms ` +
        `(JSON.parse of its ${(text.length / 1024).toFixed(0)} KB answer: ${parse.toFixed(1)} ms)`,
    );
  }
  await Promise.resolve();
}
