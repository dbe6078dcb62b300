/**
 * KeptPerKey (db/queries/hot-reads.server.ts): a value answers only its own mark and hour, within a capacity, and
 * is frozen through and through, so no request changes what the next one is answered.
 */
import { describe, expect, it } from "vitest";
import type { Sql } from "../client.server.ts";
import { KeptPerKey } from "./hot-reads.server.ts";

const pool = () => ({}) as Sql;

describe("values kept per key", () => {
  it("answers a value only for the mark and the hour it was kept for, and per database pool", () => {
    const kept = new KeptPerKey<string[]>(100, (items) => items.length);
    const [sql, other] = [pool(), pool()];
    kept.set(sql, "DWallet", "3:1", 1000, ["Spooks #1"]);
    expect(kept.get(sql, "DWallet", "3:1", 1000)).toEqual(["Spooks #1"]);
    expect(kept.get(sql, "DWallet", "4:1", 1000)).toBeUndefined();
    expect(kept.get(sql, "DWallet", "3:2", 1000)).toBeUndefined();
    expect(kept.get(sql, "DWallet", "3:1", 2000)).toBeUndefined();
    expect(kept.get(sql, "DOther", "3:1", 1000)).toBeUndefined();
    expect(kept.get(other, "DWallet", "3:1", 1000)).toBeUndefined();
    // A newer computation replaces the value: the old mark no longer answers.
    kept.set(sql, "DWallet", "4:1", 1000, ["Spooks #1", "Spooks #2"]);
    expect(kept.get(sql, "DWallet", "3:1", 1000)).toBeUndefined();
    expect(kept.get(sql, "DWallet", "4:1", 1000)).toEqual(["Spooks #1", "Spooks #2"]);
  });

  it("drops the least recently read first when the weights pass the capacity, and never keeps one heavier than it", () => {
    const kept = new KeptPerKey<number>(10, (weight) => weight);
    const sql = pool();
    kept.set(sql, "a", "m", 0, 4);
    kept.set(sql, "b", "m", 0, 4);
    expect(kept.get(sql, "a", "m", 0)).toBe(4); // a is now the most recently read
    kept.set(sql, "c", "m", 0, 4); // 12 > 10: b goes
    expect(kept.get(sql, "b", "m", 0)).toBeUndefined();
    expect(kept.get(sql, "a", "m", 0)).toBe(4);
    expect(kept.get(sql, "c", "m", 0)).toBe(4);
    // Replacing a value counts its new weight, not both.
    kept.set(sql, "c", "n", 0, 6);
    expect(kept.get(sql, "a", "m", 0)).toBe(4);
    expect(kept.get(sql, "c", "n", 0)).toBe(6);
    kept.set(sql, "huge", "m", 0, 11);
    expect(kept.get(sql, "huge", "m", 0)).toBeUndefined();
    expect(kept.get(sql, "a", "m", 0)).toBe(4);
  });

  it("keeps values frozen through and through: a change throws instead of reaching the next request", () => {
    type Item = { name: string; boost: { percents: number[] } | null };
    const kept = new KeptPerKey<Item[]>(100, (items) => items.length);
    const sql = pool();
    const items: Item[] = [{ name: "Spooks #1", boost: { percents: [150] } }];
    kept.set(sql, "DWallet", "1:1", 0, items);
    const answered = kept.get(sql, "DWallet", "1:1", 0)!;
    expect(() => answered.push({ name: "Spooks #2", boost: null })).toThrow(TypeError);
    expect(() => (answered[0].name = "changed")).toThrow(TypeError);
    expect(() => answered[0].boost!.percents.push(1)).toThrow(TypeError);
    expect(kept.get(sql, "DWallet", "1:1", 0)).toEqual([{ name: "Spooks #1", boost: { percents: [150] } }]);
  });
});
