/**
 * The balance over time as a chart.js line. chart.js is imported when the chart first draws, so only this
 * page loads it (and the page shows its figures before the library arrives).
 */
import { useEffect, useRef, useState } from "react";
import { formatHistoryPoints } from "./days.ts";

type Point = { x: number; y: number };

const dayLabel = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function drawChart(canvas: HTMLCanvasElement, points: Point[]) {
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
          ticks: { color: "#a1a1aa", maxTicksLimit: 6, callback: (value) => dayLabel(Number(value)) },
          grid: { color: "#27272a" },
        },
        y: { ticks: { color: "#a1a1aa", callback: (value) => formatHistoryPoints(Number(value)) }, grid: { color: "#27272a" } },
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

export function BalanceChart({ points }: { points: Point[] }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [drawn, setDrawn] = useState(false);
  const key = JSON.stringify(points);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    let chart: { destroy(): void } | null = null;
    let cancelled = false;
    void drawChart(canvas, points).then((made) => {
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
    <div className="relative h-56 w-full sm:h-64" data-testid="balance-chart" data-drawn={drawn}>
      <canvas ref={canvasRef} role="img" aria-label={`Balance over time. ${summary}`} />
    </div>
  );
}
