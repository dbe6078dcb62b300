/**
 * A proposal's results: a chart.js doughnut on a 300×300 canvas with percent labels on slices above 5%,
 * 'Total' and the vote count in the centre, and a legend sorted by votes with the reader's vote marked.
 */
import { ArcElement, Chart, DoughnutController, Tooltip, type Plugin } from "chart.js";
import { useEffect, useRef } from "react";
import { formatNumber } from "../../domain/format.ts";
import { doughnutDataset, LABEL_MIN_PERCENT, percentOf, resultRows, type ResultOption } from "./results.ts";

Chart.register(DoughnutController, ArcElement, Tooltip);

const CANVAS_SIZE = 300;
const EMPTY_COLOR = "#27272a";

/** Draws each slice's rounded percent on slices over 5% of the total. */
const percentLabels: Plugin<"doughnut"> = {
  id: "spooksPercentLabels",
  afterDatasetsDraw(chart) {
    const values = chart.data.datasets[0]?.data ?? [];
    const total = values.reduce((sum, value) => sum + value, 0);
    if (total <= 0 || chart.data.labels?.length === 0) return;
    const { ctx } = chart;
    ctx.save();
    ctx.font = "600 13px ui-sans-serif, system-ui, sans-serif";
    ctx.fillStyle = "#ffffff";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    chart.getDatasetMeta(0).data.forEach((arc, index) => {
      const percent = percentOf(values[index], total);
      if (percent <= LABEL_MIN_PERCENT) return;
      const { x, y } = (arc as ArcElement).tooltipPosition(true);
      ctx.fillText(`${Math.round(percent)}%`, x, y);
    });
    ctx.restore();
  },
};

type Props = { options: readonly ResultOption[]; totalVotes: number; userOptionId?: number | null };

export function ResultsChart({ options, totalVotes, userOptionId }: Props) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const rows = resultRows(options, totalVotes, userOptionId);
  const key = JSON.stringify(options.map((option) => [option.id, option.optionText, option.voteCount]));

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const hasVotes = totalVotes > 0;
    const chart = new Chart(canvas, {
      type: "doughnut",
      data: hasVotes
        ? {
            labels: options.map((option) => option.optionText),
            datasets: [doughnutDataset(options)],
          }
        : { labels: [], datasets: [{ data: [1], backgroundColor: [EMPTY_COLOR], borderWidth: 0 }] },
      options: {
        responsive: false,
        maintainAspectRatio: false,
        cutout: "58%",
        animation: { duration: 300 },
        plugins: { legend: { display: false }, tooltip: { enabled: hasVotes } },
      },
      plugins: [percentLabels],
    });
    return () => chart.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` captures the options' content; the array itself is new on every render
  }, [key, totalVotes]);

  const summary = rows.map((row) => `${row.optionText}: ${row.percent}%`).join(", ");

  return (
    <section aria-label="Results" className="flex flex-col items-center gap-4" data-testid="proposal-results">
      <div className="relative" style={{ width: CANVAS_SIZE, height: CANVAS_SIZE }}>
        <canvas
          ref={canvasRef}
          width={CANVAS_SIZE}
          height={CANVAS_SIZE}
          role="img"
          aria-label={`Results chart. ${summary || "No votes yet"}`}
          data-slice-border={totalVotes > 0 ? doughnutDataset(options).borderWidth : 0}
        />
        <div className="pointer-events-none absolute inset-0 flex flex-col items-center justify-center">
          <span className="text-xs tracking-wide text-zinc-400" data-testid="results-total-label">
            Total
          </span>
          <span className="text-3xl font-bold text-zinc-50" data-testid="results-total">
            {formatNumber(totalVotes)}
          </span>
        </div>
      </div>
      <ul className="w-full space-y-2" aria-label="Results by option">
        {rows.map((row) => (
          <li
            key={row.id}
            className={`flex items-center gap-3 rounded-lg border px-3 py-2 text-sm ${
              row.isUserVote ? "border-violet-500/60 bg-violet-500/10" : "border-zinc-800 bg-zinc-900/60"
            }`}
          >
            <span aria-hidden className="size-3 shrink-0 rounded-full" style={{ backgroundColor: row.color }} />
            <span className="min-w-0 flex-1 truncate font-medium text-zinc-100">
              {row.optionText}
              {row.isUserVote && <span className="ml-2 text-violet-300">(Your vote)</span>}
            </span>
            <span className="tabular-nums text-zinc-300">{row.percent}%</span>
            <span className="w-20 text-right tabular-nums text-zinc-400">
              {formatNumber(row.voteCount)} {row.voteCount === 1 ? "vote" : "votes"}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
