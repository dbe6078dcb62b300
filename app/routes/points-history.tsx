/**
 * /rewards/history: the connected wallet's points history (issue 18), grouped by UTC day, with the balance
 * over time, a filter by kind and the CSV and JSON downloads.
 */
import { useInfiniteQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Link } from "react-router";
import type { PointsHistory, PointsHistoryEntry } from "../api/points.ts";
import { BalanceChart } from "../components/history/balance-chart.tsx";
import { balanceLine, formatDelta, formatHistoryPoints, groupByDay, type HistoryDay } from "../components/history/days.ts";
import { ConnectWalletPrompt } from "../components/layout/connect-wallet-prompt.tsx";
import { Button, buttonClasses } from "../components/ui/button.tsx";
import { Card } from "../components/ui/card.tsx";
import { LoadFailed } from "../components/ui/load-failed.tsx";
import { Skeleton } from "../components/ui/skeleton.tsx";
import { ScrollTable, TableHead } from "../components/ui/table.tsx";
import { LEDGER_KIND_LABELS, LEDGER_KINDS, type LedgerKind } from "../domain/points-history.ts";
import { apiGet } from "../lib/api.ts";
import type { InclusionResult } from "../lib/log-inclusion.ts";
import { useWallet } from "../wallet/wallet-context.tsx";
import type { Route } from "./+types/points-history";

export const meta: Route.MetaFunction = () => [
  { title: "Points History | Spooks" },
  { name: "description", content: "Every change of your Spook Points, explained." },
];

const PAGE_SIZE = 200;

const historyPath = (address: string, query: Record<string, string>) =>
  `/api/points/${address}/history?${new URLSearchParams(query).toString()}`;

export default function PointsHistoryPage() {
  const wallet = useWallet();
  return (
    // min-w-0: a wide table scrolls in its card, never the page (issue 27, rule 5).
    <div className="grid min-w-0 gap-8 *:min-w-0">
      <div>
        <h1 className="text-3xl font-bold tracking-tight text-white">Points History</h1>
        <p className="mt-1 text-zinc-400">
          Every change of your Spook Points, newest first, and why. Days and times are UTC.{" "}
          <Link to="/rewards" className="text-violet-300 underline-offset-4 hover:underline">
            Back to Rewards
          </Link>
        </p>
      </div>
      {wallet.connected && wallet.address ? <ConnectedHistory address={wallet.address} /> : <ConnectPrompt />}
    </div>
  );
}

function ConnectPrompt() {
  return (
    <div className="mx-auto grid w-full max-w-2xl gap-6">
      <ConnectWalletPrompt description="Connect your MyDoge wallet to see your points history." />
    </div>
  );
}

function ConnectedHistory({ address }: { address: string }) {
  const [kind, setKind] = useState<LedgerKind | "">("");
  const history = useInfiniteQuery({
    queryKey: ["api", "points", address, "history", { kind }],
    initialPageParam: "",
    queryFn: ({ pageParam, signal }) =>
      apiGet<PointsHistory>(
        historyPath(address, { limit: String(PAGE_SIZE), ...(kind ? { kind } : {}), ...(pageParam ? { cursor: pageParam } : {}) }),
        signal,
      ),
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
  const entries = useMemo(() => history.data?.pages.flatMap((page) => page.entries) ?? [], [history.data]);
  const days = useMemo(() => groupByDay(entries), [entries]);
  const line = useMemo(() => balanceLine(entries), [entries]);
  // The downloads are of what the page shows: the kind chosen, every entry of it.
  const filter: Record<string, string> = kind ? { kind } : {};

  return (
    <>
      <Card className="grid gap-4 p-5">
        <div className="flex flex-wrap items-end justify-between gap-4">
          <div className="grid gap-1">
            <label htmlFor="history-kind" className="text-sm text-zinc-300">
              Kind
            </label>
            <select
              id="history-kind"
              value={kind}
              onChange={(event) => setKind(event.target.value as LedgerKind | "")}
              className="h-10 rounded-lg border border-zinc-700 bg-zinc-900 px-3 text-sm text-zinc-100 focus-visible:outline-2 focus-visible:outline-violet-400"
            >
              <option value="">All kinds</option>
              {LEDGER_KINDS.map((option) => (
                <option key={option} value={option}>
                  {LEDGER_KIND_LABELS[option]}
                </option>
              ))}
            </select>
          </div>
          <div className="flex flex-wrap gap-2">
            <a className={buttonClasses("outline")} href={historyPath(address, { ...filter, format: "csv" })} download>
              Download CSV
            </a>
            <a className={buttonClasses("outline")} href={historyPath(address, { ...filter, format: "json" })} download>
              Download JSON
            </a>
          </div>
        </div>
        <section aria-labelledby="balance-over-time" className="grid gap-2">
          <h2 id="balance-over-time" className="text-lg font-semibold text-white">
            Balance over time
          </h2>
          {history.isPending ? (
            <Skeleton className="h-56 w-full sm:h-64" />
          ) : history.isError && !history.data ? (
            <p className="text-sm text-zinc-400">No chart: the history could not be loaded.</p>
          ) : line.length === 0 ? (
            <p
              className="grid h-32 place-items-center rounded-lg border border-dashed border-zinc-800 text-sm text-zinc-400"
              data-testid="chart-empty"
            >
              {kind ? `No ${LEDGER_KIND_LABELS[kind]} entries to chart.` : "No entries to chart yet."}
            </p>
          ) : (
            <BalanceChart points={line} />
          )}
        </section>
      </Card>

      <section aria-labelledby="history-entries" className="grid gap-4">
        <h2 id="history-entries" className="text-xl font-semibold text-white">
          Entries
        </h2>
        {history.isPending ? (
          <Skeleton className="h-40 w-full" />
        ) : history.isError && !history.data ? (
          <LoadFailed what="your points history" error={history.error} onRetry={history.refetch} retrying={history.isFetching} />
        ) : days.length === 0 ? (
          <Card className="p-8 text-center text-zinc-300">No entries{kind ? ` of this kind` : ""} yet.</Card>
        ) : (
          days.map((day) => <DayGroup key={day.day} day={day} />)
        )}
        {history.isFetchNextPageError && (
          <LoadFailed what="older entries" error={history.error} onRetry={history.fetchNextPage} retrying={history.isFetchingNextPage} />
        )}
        {history.hasNextPage && !history.isFetchNextPageError && (
          <div className="flex justify-center">
            <Button variant="secondary" disabled={history.isFetchingNextPage} onClick={() => void history.fetchNextPage()}>
              {history.isFetchingNextPage ? "Loading…" : "Load older entries"}
            </Button>
          </div>
        )}
      </section>
    </>
  );
}

const DAY_FORMAT = new Intl.DateTimeFormat("en-US", { weekday: "short", year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });

function DayGroup({ day }: { day: HistoryDay }) {
  const headingId = `day-${day.day}`;
  return (
    <section aria-labelledby={headingId} data-testid="history-day" data-day={day.day}>
      <Card className="overflow-hidden">
        <div className="flex flex-wrap items-baseline justify-between gap-2 border-b border-zinc-800 px-4 py-3">
          <h3 id={headingId} className="font-semibold text-white">
            {DAY_FORMAT.format(new Date(`${day.day}T00:00:00Z`))}
          </h3>
          <p className="text-sm text-zinc-300" data-testid="day-summary">
            {formatDelta(day.net)} · balance {formatHistoryPoints(day.closingBalance)}
          </p>
        </div>
        <ScrollTable
          head={
            <TableHead
              className="text-xs text-zinc-400"
              cellClassName="px-2 py-2 font-medium sm:px-4"
              columns={[
                "Time",
                "Kind",
                { header: "Details", className: "hidden px-4 sm:table-cell" },
                { header: "Points", className: "text-right" },
                { header: "Balance", className: "text-right" },
              ]}
            />
          }
        >
          {day.entries.map((entry) => (
            <tr key={entry.id} className="border-t border-zinc-800/70" data-testid="history-entry" data-kind={entry.kind}>
              <td className="px-2 py-2 align-top whitespace-nowrap text-zinc-300 tabular-nums sm:px-4">{entry.at.slice(11, 16)}</td>
              <td className="px-2 py-2 align-top text-zinc-200 sm:px-4 sm:whitespace-nowrap">
                {LEDGER_KIND_LABELS[entry.kind]}
                {/* On a phone the details go under the kind: five columns do not fit 360 px. */}
                <span className="mt-0.5 block text-xs text-zinc-400 sm:hidden">
                  {entry.details.summary}
                  <LogCheck entry={entry} />
                </span>
              </td>
              <td className="hidden min-w-64 px-4 py-2 text-zinc-300 sm:table-cell">
                {entry.details.summary}
                <LogCheck entry={entry} />
              </td>
              <td
                className={`px-2 py-2 text-right align-top whitespace-nowrap tabular-nums sm:px-4 ${entry.delta < 0 ? "text-rose-300" : "text-emerald-300"}`}
              >
                {formatDelta(entry.delta)}
              </td>
              <td className="px-2 py-2 text-right align-top whitespace-nowrap text-zinc-100 tabular-nums sm:px-4">
                {formatHistoryPoints(entry.balanceAfter)}
              </td>
            </tr>
          ))}
        </ScrollTable>
      </Card>
    </section>
  );
}

type LogCheckState = { state: "idle" } | { state: "checking" } | InclusionResult;

/**
 * "Check it in the public log": the row's entry read from the log and its inclusion proof checked, in this
 * browser, against the checkpoint it keeps (app/lib/log-inclusion.ts, loaded on demand). Rows from before the
 * log began have no entry.
 */
function LogCheck({ entry }: { entry: PointsHistoryEntry }) {
  const [check, setCheck] = useState<LogCheckState>({ state: "idle" });
  const index = entry.logIndex ?? null;
  if (index === null) return null;
  const run = async () => {
    setCheck({ state: "checking" });
    const { checkRowInLog } = await import("../lib/log-inclusion.ts");
    setCheck(await checkRowInLog(index, { id: entry.id, delta: entry.delta }));
  };
  if (check.state === "idle" || check.state === "checking") {
    return (
      <button
        type="button"
        className="mt-1 block text-xs text-violet-300 underline-offset-4 hover:underline disabled:text-zinc-500"
        disabled={check.state === "checking"}
        onClick={() => void run()}
      >
        {check.state === "checking" ? "Checking in the public log…" : "Check it in the public log"}
      </button>
    );
  }
  const text =
    check.state === "included"
      ? `✓ Entry ${check.index.toLocaleString("en-US")} of the public log, proven in the checkpoint your browser keeps (${check.size.toLocaleString("en-US")} entries)`
      : check.state === "pending"
        ? `Entry ${check.index.toLocaleString("en-US")} is not in a checkpoint your browser has verified yet (it keeps ${check.size.toLocaleString("en-US")} entries): try again in a minute`
        : `✗ Not proven in the public log: ${check.reason}`;
  const colour = check.state === "included" ? "text-emerald-300" : check.state === "pending" ? "text-zinc-400" : "text-rose-300";
  return (
    <span role="status" className={`mt-1 block text-xs whitespace-normal ${colour}`} data-testid="log-proof" data-state={check.state}>
      {text}
    </span>
  );
}
