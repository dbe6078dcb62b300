import { describe, expect, test } from "vitest";
import { doughnutDataset, resultRows, SLICE_BORDER_WIDTH, sliceColor } from "./results.ts";

const options = (...counts: number[]) =>
  counts.map((voteCount, index) => ({ id: index + 1, optionText: `Option ${index + 1}`, voteCount }));

describe("doughnut dataset", () => {
  test("slices are separated by a border when two or more hold votes", () => {
    const dataset = doughnutDataset(options(3, 1, 0));
    expect(dataset.data).toEqual([3, 1, 0]);
    expect(dataset.backgroundColor).toEqual([sliceColor(0), sliceColor(1), sliceColor(2)]);
    expect(dataset.borderWidth).toBe(SLICE_BORDER_WIDTH);
  });

  test("a 100% slice has no border, so no seam (zero-vote options included)", () => {
    expect(doughnutDataset(options(5)).borderWidth).toBe(0);
    expect(doughnutDataset(options(0, 7, 0)).borderWidth).toBe(0);
  });
});

describe("result rows", () => {
  test("sorted by votes, rounded percent, the reader's vote marked", () => {
    const rows = resultRows(options(1, 2), 3, 1);
    expect(rows.map((row) => [row.id, row.percent, row.isUserVote])).toEqual([
      [2, 67, false],
      [1, 33, true],
    ]);
  });
});
