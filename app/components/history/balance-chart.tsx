/**
 * The balance over time as a chart.js line. chart.js is imported when the chart first draws, so only this
 * page loads it (and the page shows its figures before the library arrives).
 */
import { useEffect, useMemo, useRef, useState } from "react";
import { formatHistoryPoints, timeAxis, type TimeAxis } from "./days.ts";

type Point = { x: number; y: number };

const dayLabel = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Time on the x axis: a linear scale over epoch milliseconds whose range and ticks are `timeAxis`'s (whole
 * UTC hours or days, labelled with date-fns), as chart.js's time scale would need a date adapter.
 */
async function drawChart(canvas: HTMLCanvasElement, points: Point[], axis: TimeAxis) {
  const labels = new Map(axis.ticks.map((tick) => [tick.value, tick.label]));
  const { Chart, LineController, LineElement, PointElement, LinearScale, Filler, Tooltip } = await import("chart.js");
  Chart.register(LineController, LineElement, PointElement, LinearScale, Filler, Tooltip);
  return new Chart(canvas, {
    type: "line",
    data: {
      datasets: [
        {
          label: "Balance",
          data: points,
          borderColor: "#a78bfa",
          backgroundColor: "rgba(139, 92, 246, 0.15)",
          fill: true,
          stepped: "before",
          pointRadius: points.length > 60 ? 0 : 2,
          borderWidth: 2,
        },
      ],
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      parsing: false,
      scales: {
        x: {
          type: "linear",
          min: axis.min,
          max: axis.max,
          afterBuildTicks: (scale) => {
            scale.ticks = axis.ticks.map((tick) => ({ value: tick.value }));
          },
          ticks: { color: "#a1a1aa", autoSkip: false, maxRotation: 0, callback: (value) => labels.get(Number(value)) ?? "" },
          grid: { color: "#27272a" },
        },
        y: {
          grace: "5%",
          ticks: { color: "#a1a1aa", maxTicksLimit: 6, callback: (value) => formatHistoryPoints(Number(value)) },
          grid: { color: "#27272a" },
        },
      },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            title: (items) => new Date(items[0].parsed.x ?? 0).toISOString().slice(0, 16).replace("T", " ") + " UTC",
            label: (item) => `Balance ${formatHistoryPoints(item.parsed.y ?? 0)}`,
          },
        },
      },
    },
  });
}

/** The balance over time; the page shows an empty state instead when there are no points. */
export function BalanceChart({ points }: { points: Point[] }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [drawn, setDrawn] = useState(false);
  const key = JSON.stringify(points);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` captures the points' content
  const axis = useMemo(() => timeAxis(points.map((point) => point.x)), [key]);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !axis) return;
    let chart: { destroy(): void } | null = null;
    let cancelled = false;
    setDrawn(false);
    void drawChart(canvas, points, axis).then((made) => {
      if (cancelled) made.destroy();
      else {
        chart = made;
        setDrawn(true);
      }
    });
    return () => {
      cancelled = true;
      chart?.destroy();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` captures the points' content; the array itself is new on every render
  }, [key]);

  const first = points[0];
  const last = points.at(-1);
  const summary =
    first && last
      ? `Balance from ${formatHistoryPoints(first.y)} on ${dayLabel(first.x)} to ${formatHistoryPoints(last.y)} on ${dayLabel(last.x)}`
      : "No entries yet";
  return (
    <div
      className="relative h-56 w-full sm:h-64"
      data-testid="balance-chart"
      data-drawn={drawn}
      data-x-min={axis?.min}
      data-x-max={axis?.max}
      data-x-ticks={JSON.stringify(axis?.ticks.map((tick) => tick.label) ?? [])}
    >
      <canvas ref={canvasRef} role="img" aria-label={`Balance over time. ${summary}`} />
    </div>
  );
}
