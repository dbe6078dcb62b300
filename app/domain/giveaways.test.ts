import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_POINTS_COST,
  drawCommitmentOf,
  drawWinner,
  entryStatus,
  IMAGE_MEDIA_TYPES,
  isGiveawayEnded,
  isGiveawayOpen,
  MAX_IMAGE_BYTES,
  newDrawSeed,
  winningTicket,
  type DrawEntry,
} from "./giveaways.ts";

/** The documented draw, written again here with node:crypto so the module is checked against its spec. */
function independentTicket(seedHex: string, total: number): number {
  const digest = createHash("sha256").update(`spooks-draw:${seedHex}:${total}`, "utf8").digest("hex");
  return Number(BigInt(`0x${digest}`) % BigInt(total));
}

function independentWinner(seedHex: string, entries: readonly DrawEntry[]): number {
  const ordered = [...entries].sort((a, b) => a.id - b.id);
  const total = ordered.reduce((sum, e) => sum + e.tickets, 0);
  let ticket = independentTicket(seedHex, total);
  for (const entry of ordered) {
    if (ticket < entry.tickets) return entry.id;
    ticket -= entry.tickets;
  }
  throw new Error("ticket out of range");
}

const seedFor = (i: number) => createHash("sha256").update(`test-seed-${i}`).digest("hex");

describe("commit-reveal seeds", () => {
  it("a new seed is 32 random bytes and its commitment is SHA-256 of those bytes", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const { seed, commitment } = newDrawSeed();
      expect(seed).toMatch(/^[0-9a-f]{64}$/);
      expect(commitment).toBe(createHash("sha256").update(Buffer.from(seed, "hex")).digest("hex"));
      expect(seen.has(seed)).toBe(false);
      seen.add(seed);
    }
  });

  it("drawCommitmentOf hashes the seed's bytes, not its hex text", () => {
    const seed = seedFor(1);
    expect(drawCommitmentOf(seed)).toBe(createHash("sha256").update(Buffer.from(seed, "hex")).digest("hex"));
    expect(drawCommitmentOf(seed)).not.toBe(createHash("sha256").update(seed).digest("hex"));
    // A known vector: SHA-256 of 32 zero bytes.
    expect(drawCommitmentOf("00".repeat(32))).toBe("66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
  });
});

describe("the draw", () => {
  it("winningTicket matches the documented formula for many seeds and totals", () => {
    for (let i = 0; i < 200; i++) {
      const total = 1 + ((i * 7919) % 5000);
      const ticket = winningTicket(seedFor(i), total);
      expect(ticket).toBe(independentTicket(seedFor(i), total));
      expect(ticket).toBeGreaterThanOrEqual(0);
      expect(ticket).toBeLessThan(total);
    }
    expect(winningTicket(seedFor(0), 1)).toBe(0);
  });

  it("refuses to draw from no tickets", () => {
    expect(() => winningTicket(seedFor(0), 0)).toThrow(RangeError);
    expect(() => drawWinner(seedFor(0), [])).toThrow(RangeError);
  });

  it("picks the entry whose ticket range (ascending entry id) holds the winning ticket, whatever the input order", () => {
    const entries: DrawEntry[] = [
      { id: 30, address: "c", tickets: 5 },
      { id: 10, address: "a", tickets: 2 },
      { id: 20, address: "b", tickets: 1 },
      { id: 40, address: "d", tickets: 7 },
    ];
    const reversed = [...entries].reverse();
    for (let i = 0; i < 200; i++) {
      const winner = drawWinner(seedFor(i), entries);
      expect(winner.id).toBe(independentWinner(seedFor(i), entries));
      expect(drawWinner(seedFor(i), reversed).id).toBe(winner.id);
      expect(entries).toContain(winner);
    }
  });

  it("a single entry always wins", () => {
    const only = { id: 5, address: "x", tickets: 3 };
    for (let i = 0; i < 20; i++) expect(drawWinner(seedFor(i), [only])).toBe(only);
  });

  it("wins in proportion to tickets over many seeds", () => {
    const entries: DrawEntry[] = [
      { id: 1, address: "one", tickets: 1 },
      { id: 2, address: "three", tickets: 3 },
      { id: 3, address: "six", tickets: 6 },
    ];
    const runs = 4000;
    const wins = new Map<number, number>();
    for (let i = 0; i < runs; i++) {
      const { id } = drawWinner(seedFor(i), entries);
      wins.set(id, (wins.get(id) ?? 0) + 1);
    }
    // Expected shares 0.1, 0.3, 0.6; allowed error ±0.03 (over 4 standard deviations at n = 4000).
    expect(Math.abs((wins.get(1) ?? 0) / runs - 0.1)).toBeLessThan(0.03);
    expect(Math.abs((wins.get(2) ?? 0) / runs - 0.3)).toBeLessThan(0.03);
    expect(Math.abs((wins.get(3) ?? 0) / runs - 0.6)).toBeLessThan(0.03);
  });
});

describe("open and entry status", () => {
  const at = new Date("2030-05-05T00:00:00.000Z");
  const later = new Date(at.getTime() + 1);
  const earlier = new Date(at.getTime() - 1);

  it("open means active with an end date in the future", () => {
    expect(isGiveawayOpen({ active: true, endDate: later }, at)).toBe(true);
    expect(isGiveawayOpen({ active: true, endDate: at }, at)).toBe(false);
    expect(isGiveawayOpen({ active: true, endDate: earlier }, at)).toBe(false);
    expect(isGiveawayOpen({ active: false, endDate: later }, at)).toBe(false);
  });

  it("a giveaway with a drawn winner is closed and ended, even while active before its end date", () => {
    const drawn = { active: true, endDate: later, winnerAddress: "DWinner" };
    expect(isGiveawayOpen(drawn, at)).toBe(false);
    expect(isGiveawayEnded(drawn, at)).toBe(true);
    expect(isGiveawayEnded({ endDate: later, winnerAddress: null }, at)).toBe(false);
    expect(isGiveawayEnded({ endDate: at }, at)).toBe(true);
    // Issue 33, item 7: one word per state, the admin's and the CLI's.
    expect(entryStatus({ isWinner: false }, drawn, at)).toBe("Drawn");
    expect(entryStatus({ isWinner: true }, drawn, at)).toBe("Won!");
  });

  it.each([
    ["winner, whatever the giveaway", true, false, earlier, "Won!"],
    ["winner of an open giveaway", true, true, later, "Won!"],
    ["open", false, true, later, "Active"],
    ["ended while active", false, true, earlier, "Ended"],
    ["ending exactly now", false, true, at, "Ended"],
    ["ended and inactive", false, false, earlier, "Inactive"],
    ["inactive before its end (the spec's 'Pending': issue 33 says the admin's word)", false, false, later, "Inactive"],
  ])("%s → %s", (_, isWinner, active, endDate, status) => {
    expect(entryStatus({ isWinner }, { active, endDate }, at)).toBe(status);
  });
});

describe("constants", () => {
  it("default cost 100, images up to 5 MB of png/jpeg/gif/webp", () => {
    expect(DEFAULT_POINTS_COST).toBe(100);
    expect(MAX_IMAGE_BYTES).toBe(5 * 1024 * 1024);
    expect([...IMAGE_MEDIA_TYPES].sort()).toEqual(["image/gif", "image/jpeg", "image/png", "image/webp"]);
  });
});
