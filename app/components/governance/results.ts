/** Rows of a proposal's results: votes descending, rounded percent, the reader's own vote marked. */
export type ResultOption = { id: number; optionText: string; voteCount: number };

export type ResultRow = ResultOption & { percent: number; color: string; isUserVote: boolean };

/** Slice colours, by the option's position in the proposal (stable whatever the order of the legend). */
export const SLICE_COLORS = ["#8b5cf6", "#f59e0b", "#10b981", "#ec4899", "#38bdf8", "#f97316", "#a3e635", "#e879f9"];

/** Percent labels are drawn only on slices above this share. */
export const LABEL_MIN_PERCENT = 5;

export function sliceColor(index: number): string {
  return SLICE_COLORS[index % SLICE_COLORS.length];
}

export function percentOf(count: number, total: number): number {
  return total > 0 ? (count / total) * 100 : 0;
}

export function resultRows(options: readonly ResultOption[], totalVotes: number, userOptionId?: number | null): ResultRow[] {
  return options
    .map((option, index) => ({
      ...option,
      percent: Math.round(percentOf(option.voteCount, totalVotes)),
      color: sliceColor(index),
      isUserVote: option.id === userOptionId,
      index,
    }))
    .sort((a, b) => b.voteCount - a.voteCount || a.index - b.index)
    .map(({ index: _index, ...row }) => row);
}

/** The border drawn between slices; none when one slice holds every vote (it would show as a seam). */
export const SLICE_BORDER_WIDTH = 2;

/** The doughnut's dataset for options with votes: one slice per option, in the proposal's order. */
export function doughnutDataset(options: readonly ResultOption[]) {
  const data = options.map((option) => option.voteCount);
  const slices = data.filter((value) => value > 0).length;
  return {
    data,
    backgroundColor: options.map((_, index) => sliceColor(index)),
    borderColor: "#18181b",
    borderWidth: slices > 1 ? SLICE_BORDER_WIDTH : 0,
  };
}
