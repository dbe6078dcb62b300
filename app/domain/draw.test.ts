import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  canonicalEntries,
  commitmentOf,
  compareAddresses,
  blockExplorerUrl,
  drawBlockHeightFor,
  drawWinnersV2,
  isDrawable,
  verifyDraw,
  type DrawEntryRow,
  type PublishedDraw,
} from "./draw.ts";
import { drawWinner } from "./giveaways.ts";

const sha256Hex = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** Draw version 2 as DECISIONS.md words it, written again with node:crypto so the module is checked against it. */
function independentV2(seed: string, blockHash: string, entries: readonly DrawEntryRow[], winners: number): string[] {
  const remaining = [...entries];
  const chosen: string[] = [];
  for (let k = 0; k < winners && remaining.length > 0; k++) {
    const total = remaining.reduce((sum, e) => sum + e.tickets, 0);
    const t = BigInt(`0x${sha256Hex(`spooks-draw-v2:${seed}:${blockHash}:${k}`)}`) % BigInt(total);
    let before = 0n;
    const index = remaining.findIndex((e) => t < (before += BigInt(e.tickets)));
    chosen.push(remaining.splice(index, 1)[0].address);
  }
  return chosen;
}

const SEED = sha256Hex("draw-test-seed");
const BLOCK_HASH = sha256Hex("draw-test-block");
const ENTRIES: DrawEntryRow[] = [
  { address: "D6BqyBYQkGYMBkTDrNwqy8rTsUb7vSV7Pg", tickets: 4 },
  { address: "D9zVd5NCcWPdjKcgyTDNUjtasJpGYQq2cH", tickets: 1 },
  { address: "DA8w3n1nYhZkUFAGJtcx6BikqBYr4rEJvb", tickets: 7 },
  { address: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", tickets: 2 },
  { address: "DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM", tickets: 9 },
];

function drawnV2(winners = 3, entries = ENTRIES): PublishedDraw {
  return {
    version: 2,
    commitment: commitmentOf(SEED),
    seed: SEED,
    blockHeight: 5_000_123,
    closedAt: "2031-01-01T01:00:00.000Z",
    blockHash: BLOCK_HASH,
    winners,
    entries,
    winnerAddresses: drawWinnersV2(SEED, BLOCK_HASH, entries, winners).map((pick) => pick.address),
  };
}

const failedStep = (draw: PublishedDraw) => {
  const verdict = verifyDraw(draw);
  expect(verdict.outcome).toBe("failed");
  return verdict.steps.at(-1)!;
};

describe("draw version 2", () => {
  it("picks winners as DECISIONS.md words it, for many seeds, hashes and winner counts", () => {
    for (let i = 0; i < 100; i++) {
      const seed = sha256Hex(`seed-${i}`);
      const hash = sha256Hex(`hash-${i}`);
      const winners = 1 + (i % 7);
      const picks = drawWinnersV2(seed, hash, ENTRIES, winners).map((pick) => pick.address);
      expect(picks).toEqual(independentV2(seed, hash, ENTRIES, winners));
      expect(new Set(picks).size).toBe(Math.min(winners, ENTRIES.length));
    }
  });

  it("several winners are distinct; fewer entrants than winners: all of them win, in draw order; no entries: no winner", () => {
    const all = drawWinnersV2(SEED, BLOCK_HASH, ENTRIES, 10);
    expect(all.map((pick) => pick.address).sort()).toEqual(ENTRIES.map((entry) => entry.address).sort());
    expect(all.map((pick) => pick.k)).toEqual([0, 1, 2, 3, 4]);
    // Each pick draws from the tickets still in play.
    expect(all[0].totalTickets).toBe(23);
    expect(all[1].totalTickets).toBe(23 - ENTRIES.find((e) => e.address === all[0].address)!.tickets);
    expect(drawWinnersV2(SEED, BLOCK_HASH, [], 3)).toEqual([]);
    expect(verifyDraw(drawnV2(10)).outcome).toBe("verified");
    expect(verifyDraw(drawnV2(3, [])).outcome).toBe("verified");
  });

  it("wins in proportion to tickets", () => {
    const entries = [
      { address: "a", tickets: 1 },
      { address: "b", tickets: 3 },
      { address: "c", tickets: 6 },
    ];
    const wins = new Map<string, number>();
    const runs = 4000;
    for (let i = 0; i < runs; i++) {
      const [first] = drawWinnersV2(SEED, sha256Hex(`block-${i}`), entries, 1);
      wins.set(first.address, (wins.get(first.address) ?? 0) + 1);
    }
    expect(Math.abs((wins.get("a") ?? 0) / runs - 0.1)).toBeLessThan(0.03);
    expect(Math.abs((wins.get("b") ?? 0) / runs - 0.3)).toBeLessThan(0.03);
    expect(Math.abs((wins.get("c") ?? 0) / runs - 0.6)).toBeLessThan(0.03);
  });

  it("canonical entries: one row per address with its tickets summed, in byte order of the address", () => {
    const rows = [
      { address: "Dz", tickets: 1 },
      { address: "DA", tickets: 2 },
      { address: "Da", tickets: 3 },
      { address: "Dz", tickets: 4 },
      { address: "D9", tickets: 5 },
    ];
    expect(canonicalEntries(rows)).toEqual([
      { address: "D9", tickets: 5 },
      { address: "DA", tickets: 2 },
      { address: "Da", tickets: 3 },
      { address: "Dz", tickets: 5 },
    ]);
    expect(compareAddresses("DA", "Da")).toBeLessThan(0); // upper case before lower case, as bytes
    expect(compareAddresses("D", "DA")).toBeLessThan(0);
    // As UTF-8 bytes, also where UTF-16 code units would disagree (U+FF5E, 3 bytes, before U+1F47B, 4 bytes).
    const bytes = (text: string) => Buffer.from(text, "utf8");
    for (const [a, b] of [
      ["D\uff5e", "D\u{1f47b}"],
      ["Da", "D\u00e9"],
      ["D\u{1f47b}x", "D\u{1f47b}y"],
    ]) {
      expect(Math.sign(compareAddresses(a, b))).toBe(Buffer.compare(bytes(a), bytes(b)));
      expect(Math.sign(compareAddresses(b, a))).toBe(Buffer.compare(bytes(b), bytes(a)));
    }
  });

  it("the draw block is six beyond the ord server's next block, and drawable once six blocks sit on top of it", () => {
    expect(drawBlockHeightFor(100)).toBe(106);
    expect(isDrawable(106, 112)).toBe(false);
    expect(isDrawable(106, 113)).toBe(true);
  });
});

describe("verifying a draw", () => {
  it("a true v2 draw with several winners verifies, step by step", () => {
    const verdict = verifyDraw(drawnV2());
    expect(verdict.outcome).toBe("verified");
    expect(verdict.steps.map((step) => step.title)).toEqual([
      "The seed matches the commitment",
      "Entries are one per address, in ascending address order",
      "The draw block",
      "Winner 1",
      "Winner 2",
      "Winner 3",
      "The number of winners",
    ]);
    expect(verdict.steps.every((step) => step.ok)).toBe(true);
  });

  it("a changed seed fails at the commitment", () => {
    const step = failedStep({ ...drawnV2(), seed: sha256Hex("another seed") });
    expect(step.step).toBe("commitment");
    expect(step.detail).toContain(commitmentOf(SEED));
  });

  it("a changed ticket count fails at the first winner it moves", () => {
    const draw = drawnV2();
    const entries = draw.entries.map((entry, i) => (i === 1 ? { ...entry, tickets: entry.tickets + 5 } : entry));
    expect(independentV2(SEED, BLOCK_HASH, entries, 3)).not.toEqual(draw.winnerAddresses);
    const step = failedStep({ ...draw, entries });
    expect(step.step).toBe("winner");
    expect(step.detail).toMatch(/mod 28 = ticket/);
  });

  it("a changed block hash fails at the first winner it moves", () => {
    const draw = drawnV2();
    const blockHash = sha256Hex("an orphaned block");
    expect(independentV2(SEED, blockHash, ENTRIES, 3)).not.toEqual(draw.winnerAddresses);
    expect(failedStep({ ...draw, blockHash }).step).toBe("winner");
    expect(failedStep({ ...draw, blockHash: BLOCK_HASH.toUpperCase() }).step).toBe("block");
  });

  it("a changed entry order, a repeated address or a bad ticket count fails at the entries", () => {
    const draw = drawnV2();
    const swapped = [draw.entries[1], draw.entries[0], ...draw.entries.slice(2)];
    const step = failedStep({ ...draw, entries: swapped });
    expect(step.step).toBe("entries");
    expect(step.detail).toBe(`Entry 2 (${ENTRIES[0].address}) does not come after entry 1 (${ENTRIES[1].address}).`);
    expect(failedStep({ ...draw, entries: [...draw.entries, draw.entries[4]] }).step).toBe("entries");
    expect(failedStep({ ...draw, entries: [{ ...draw.entries[0], tickets: 0 }, ...draw.entries.slice(1)] }).step).toBe("entries");
  });

  it("changed or missing winners fail", () => {
    const draw = drawnV2();
    const step = failedStep({ ...draw, winnerAddresses: [draw.winnerAddresses[1], draw.winnerAddresses[0], draw.winnerAddresses[2]] });
    expect(step.title).toBe("Winner 1");
    expect(failedStep({ ...draw, winnerAddresses: draw.winnerAddresses.slice(0, 2) }).title).toBe("Winner 3");
    expect(failedStep({ ...draw, winnerAddresses: [...draw.winnerAddresses, ENTRIES[0].address] }).step).toBe("winner-count");
  });

  it("before the draw: pending, and winners published early fail", () => {
    const open: PublishedDraw = { ...drawnV2(), seed: null, blockHeight: null, closedAt: null, blockHash: null, winnerAddresses: [] };
    expect(verifyDraw(open).outcome).toBe("pending");
    // Issue 33, item 10: what cannot be checked yet is pending, not "agrees".
    expect(verifyDraw(open).steps.map((step) => [step.step, step.pending ?? false])).toEqual([
      ["commitment", true],
      ["entries", false],
      ["block", true],
    ]);
    const closed = { ...open, blockHeight: 5_000_123, closedAt: "2031-01-01T01:00:00.000Z" };
    expect(verifyDraw(closed).outcome).toBe("pending");
    expect(verifyDraw(closed).steps.at(-1)).toMatchObject({
      detail:
        "Block 5000123: its hash is read once 6 blocks sit on top of it. Check that block 5000123 was mined after entries closed at " +
        "2031-01-01T01:00:00.000Z: nobody could know its hash then.",
      link: "https://blockchair.com/dogecoin/block/5000123",
    });
    expect(failedStep({ ...closed, winnerAddresses: [ENTRIES[0].address] }).step).toBe("winner-count");
  });

  it("the draw block step names when entries closed and where to check the block was mined after; without closedAt it fails", () => {
    const block = verifyDraw(drawnV2()).steps.find((step) => step.step === "block")!;
    expect(block.detail).toContain("Check that block 5000123 was mined after entries closed at 2031-01-01T01:00:00.000Z");
    expect(block.link).toBe(blockExplorerUrl(5_000_123));
    expect(failedStep({ ...drawnV2(), closedAt: null })).toMatchObject({ step: "block", detail: expect.stringContaining("closedAt") });
    expect(failedStep({ ...drawnV2(), closedAt: "soon" }).step).toBe("block");
  });

  it("a draw closed before issue 23 at B + 1 keeps verifying: the rule recomputes from the published block, whatever its offset", () => {
    const draw = drawnV2();
    expect(verifyDraw({ ...draw, blockHeight: draw.blockHeight! - 5 }).outcome).toBe("verified");
  });

  it("a version-1 draw keeps verifying with its own rule (entry rows in id order, one winner)", () => {
    const rows = [
      { id: 1, address: "DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM", tickets: 3 },
      { id: 2, address: "D6BqyBYQkGYMBkTDrNwqy8rTsUb7vSV7Pg", tickets: 2 },
      { id: 3, address: "DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM", tickets: 5 },
    ];
    for (let i = 0; i < 20; i++) {
      const seed = sha256Hex(`v1-${i}`);
      const draw: PublishedDraw = {
        version: 1,
        commitment: commitmentOf(seed),
        seed,
        blockHeight: null,
        closedAt: null,
        blockHash: null,
        winners: 1,
        entries: rows.map(({ address, tickets }) => ({ address, tickets })),
        winnerAddresses: [drawWinner(seed, rows).address],
      };
      expect(verifyDraw(draw).outcome).toBe("verified");
      expect(verifyDraw({ ...draw, seed: sha256Hex("x") }).outcome).toBe("failed");
    }
  });
});

describe("the worked example of docs/fairness.md", () => {
  it("has the numbers the document shows", () => {
    const seed = sha256Hex("docs/fairness.md example seed");
    const blockHash = sha256Hex("docs/fairness.md example block");
    expect(seed).toBe("2375cd3ea8250bce077f53745e9c335cd20209b4b13f6619cf811582646eb3a4");
    expect(blockHash).toBe("d4df720b741007ffe90c6c1924257b4c58bc9c21c8680adcacf8222c24c969f9");
    expect(commitmentOf(seed)).toBe("db868ce516102c90e8e1b154e82b1a649c9c38fc963f8823e1e8a40a45ac1fb1");
    const entries = [
      { address: "D6BqyBYQkGYMBkTDrNwqy8rTsUb7vSV7Pg", tickets: 5 },
      { address: "DA8w3n1nYhZkUFAGJtcx6BikqBYr4rEJvb", tickets: 2 },
      { address: "DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM", tickets: 3 },
    ];
    expect(sha256Hex(`spooks-draw-v2:${seed}:${blockHash}:0`)).toBe("cfdefcddd02271ccdd9d192bf8aac735d4d0b8f6d11eee7d384e85b5a8551649");
    expect(sha256Hex(`spooks-draw-v2:${seed}:${blockHash}:1`)).toBe("2265934cbc4cdaedc1c01932838c92806f01f8ded9fef613ca2a5eecbe55f7a8");
    expect(drawWinnersV2(seed, blockHash, entries, 2)).toEqual([
      { k: 0, ticket: 5, totalTickets: 10, address: "DA8w3n1nYhZkUFAGJtcx6BikqBYr4rEJvb" },
      { k: 1, ticket: 0, totalTickets: 8, address: "D6BqyBYQkGYMBkTDrNwqy8rTsUb7vSV7Pg" },
    ]);
    const published: PublishedDraw = {
      version: 2,
      commitment: commitmentOf(seed),
      seed,
      blockHeight: 5_412_345,
      closedAt: "2026-10-31T18:00:00.000Z",
      blockHash,
      winners: 2,
      entries,
      winnerAddresses: ["DA8w3n1nYhZkUFAGJtcx6BikqBYr4rEJvb", "D6BqyBYQkGYMBkTDrNwqy8rTsUb7vSV7Pg"],
    };
    expect(verifyDraw(published).outcome).toBe("verified");
    expect(blockExplorerUrl(published.blockHeight!)).toBe("https://blockchair.com/dogecoin/block/5412345");
  });
});
