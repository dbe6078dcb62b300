/**
 * /giveaways/{id}/verify: "Verify this draw". The browser fetches GET /api/giveaways/{id}/draw (and nothing
 * else) and recomputes the draw with app/domain/draw.ts, which only this route's module loads: verified,
 * not drawn yet, or the first step that disagrees. docs/fairness.md does the same by hand.
 */
import { useQuery } from "@tanstack/react-query";
import { LIVE_POLL_MS, useApiQuery } from "../lib/queries.ts";
import { useMemo, useState } from "react";
import { Link, useParams } from "react-router";
import { ShieldIcon } from "../components/icons.tsx";
import { Alert, AlertDescription } from "../components/ui/alert.tsx";
import { Badge } from "../components/ui/badge.tsx";
import { Button } from "../components/ui/button.tsx";
import { Card } from "../components/ui/card.tsx";
import { LoadFailed } from "../components/ui/load-failed.tsx";
import { Skeleton } from "../components/ui/skeleton.tsx";
import { verifyDraw, type DrawVerdict, type PublishedDraw } from "../domain/draw.ts";
import { countOf, formatNumber } from "../domain/format.ts";
import { ApiError, paths, type UserGiveawayEntry } from "../lib/api.ts";
import { ClaimDialog, useClaimPrize, type ClaimTarget } from "../components/rewards/claim-dialog.tsx";
import { DateText } from "../components/governance/date-text.tsx";
import { useWallet } from "../wallet/wallet-context.tsx";
import type { Route } from "./+types/verify-draw";

export const meta: Route.MetaFunction = ({ params }) => [
  { title: `Verify the draw of giveaway #${params.id} | Spooks` },
  { name: "description", content: "Recompute a giveaway's draw in your browser from its published data." },
];

/** Entries shown in the table; the check itself always covers all of them. */
const SHOWN_ENTRIES = 100;

async function fetchDraw(id: string): Promise<PublishedDraw> {
  const path = `/api/giveaways/${encodeURIComponent(id)}/draw`;
  const response = await fetch(path, { headers: { accept: "application/json" } });
  const body = (await response.json().catch(() => null)) as (PublishedDraw & { message?: string }) | null;
  if (!response.ok || !body) {
    throw new ApiError(
      body?.message ?? `The draw could not be read (HTTP ${response.status})`,
      response.status,
      response.statusText,
      body,
      path,
    );
  }
  return body;
}

/** Reads the published draw and checks it here, in the browser (timed: the page shows how long it took). */
async function checkDraw(id: string): Promise<{ draw: PublishedDraw; verdict: DrawVerdict; ms: number }> {
  const draw = await fetchDraw(id);
  const started = performance.now();
  const verdict = verifyDraw(draw);
  return { draw, verdict, ms: performance.now() - started };
}

/** Each shown entry with its ticket range in the first draw: [before, before + tickets - 1]. */
function withRanges(entries: readonly PublishedDraw["entries"][number][]) {
  const rows: { address: string; tickets: number; first: number; last: number }[] = [];
  let before = 0;
  for (const entry of entries) {
    rows.push({ ...entry, first: before, last: before + entry.tickets - 1 });
    before += entry.tickets;
  }
  return rows;
}

export default function VerifyDrawPage() {
  const { id = "" } = useParams();
  // Issue 27, rule 3: a draw not made yet is read again while the page is shown (and on focus), so the winners
  // appear when the indexer draws; a drawn one never changes.
  const query = useQuery({
    queryKey: ["verify-draw", id],
    queryFn: () => checkDraw(id),
    retry: false,
    staleTime: Infinity,
    refetchInterval: (current) => (current.state.data && current.state.data.draw.seed === null ? LIVE_POLL_MS : false),
    refetchIntervalInBackground: false,
  });

  return (
    <div className="mx-auto grid max-w-4xl gap-6">
      <div>
        <p className="text-sm text-zinc-400">
          <Link to="/rewards" className="underline decoration-zinc-600 underline-offset-4 hover:text-zinc-200">
            Spook Rewards
          </Link>{" "}
          / Giveaway #{id}
        </p>
        <h1 className="mt-1 flex items-center gap-2 text-3xl font-bold tracking-tight text-white">
          <ShieldIcon className="h-7 w-7 text-emerald-400" /> Verify this draw
        </h1>
        <p className="mt-2 text-zinc-400">
          Your browser recomputes the draw from the data the site publishes for it, with SHA-256 only. Nothing else is asked of our server.
        </p>
      </div>
      {query.isPending ? (
        <Skeleton className="h-64 rounded-xl" />
      ) : query.isError ? (
        <LoadFailed what="this draw" error={query.error} onRetry={query.refetch} retrying={query.isFetching} />
      ) : (
        <>
          <ClaimYourPrize giveawayId={Number(id)} draw={query.data.draw} />
          <DrawReport draw={query.data.draw} verdict={query.data.verdict} ms={query.data.ms} />
          <div>
            <Button variant="secondary" onClick={() => void query.refetch()} disabled={query.isFetching}>
              Check again
            </Button>
          </div>
        </>
      )}
    </div>
  );
}

/**
 * The connected winner's way to claim, here where the draw is shown (issue 33, item 2): "Claim your prize" opens
 * the same dialog as the rewards page; once claimed, it says so.
 */
function ClaimYourPrize({ giveawayId, draw }: { giveawayId: number; draw: PublishedDraw }) {
  const wallet = useWallet();
  const address = wallet.connected ? wallet.address : null;
  const won = address !== null && draw.winnerAddresses.includes(address);
  const entries = useApiQuery<UserGiveawayEntry[]>(won && address ? paths.userEntries(address) : null, { staleTime: 10_000 });
  const claim = useClaimPrize(address);
  const [claiming, setClaiming] = useState<ClaimTarget | null>(null);
  if (!won || !address) return null;
  const entry = entries.data?.find((row) => row.giveawayId === giveawayId && row.isWinner);
  if (!entry) return null;
  return (
    <Alert variant="success" data-testid="claim-your-prize">
      <h2 className="mb-1 font-semibold">You won &ldquo;{entry.giveawayTitle}&rdquo;</h2>
      <AlertDescription>
        {entry.claimedAt ? (
          <p>
            Prize claimed on <DateText value={entry.claimedAt} withTime />: the admin will contact you.
          </p>
        ) : (
          <div className="flex flex-wrap items-center gap-3">
            <p>Tell the admin how to reach you, signed with your wallet.</p>
            <Button size="sm" onClick={() => setClaiming({ giveawayId, title: entry.giveawayTitle })}>
              Claim your prize
            </Button>
          </div>
        )}
      </AlertDescription>
      <ClaimDialog target={claiming} address={address} onOpenChange={(open) => !open && setClaiming(null)} onClaim={claim} />
    </Alert>
  );
}

const OUTCOME_TEXT: Record<DrawVerdict["outcome"], { title: string; variant: "success" | "default" | "destructive" }> = {
  verified: { title: "Verified: every step of this draw checks out", variant: "success" },
  pending: { title: "Not drawn yet: every step that can be checked so far checks out", variant: "default" },
  failed: { title: "This draw does not check out", variant: "destructive" },
};

function DrawReport({ draw, verdict, ms }: { draw: PublishedDraw; verdict: DrawVerdict; ms: number }) {
  const outcome = OUTCOME_TEXT[verdict.outcome];
  const failed = verdict.outcome === "failed" ? verdict.steps.at(-1) : undefined;
  return (
    <>
      <Alert variant={outcome.variant} data-testid="draw-verdict" data-outcome={verdict.outcome}>
        <h2 className="mb-1 font-semibold" data-testid="verdict-title">
          {outcome.title}
        </h2>
        <AlertDescription>
          {failed ? (
            <>
              First step that disagrees: <strong data-testid="failed-step">{failed.title}</strong>. {failed.detail}
            </>
          ) : draw.entries.length === 0 ? (
            <>No entries yet: there is nothing to draw from so far.</>
          ) : (
            <>
              Checked {countOf(draw.entries.length, "entry", "entries")} in your browser in{" "}
              <span data-testid="verify-ms">{ms.toFixed(1)}</span> ms.
            </>
          )}
        </AlertDescription>
      </Alert>
      {draw.simulatedChain && (
        <Alert data-testid="simulated-chain">
          <AlertDescription>
            Demo mode: the draw block is a block of this demo&apos;s simulated chain, not a Dogecoin block, so no block explorer knows it.
          </AlertDescription>
        </Alert>
      )}

      <Card className="p-5">
        <h2 className="text-lg font-semibold text-white">Steps</h2>
        <ol className="mt-3 grid gap-2" aria-label="Steps of the check">
          {verdict.steps.map((step, index) => (
            <li
              key={index}
              className="rounded-lg border border-zinc-800 bg-black/30 p-3"
              data-testid="draw-step"
              data-ok={step.ok}
              data-pending={step.pending ? "true" : undefined}
            >
              <p className="flex items-center gap-2 font-medium text-zinc-100">
                <Badge variant={step.pending ? "secondary" : step.ok ? "success" : "destructive"}>
                  {step.pending ? "… pending" : step.ok ? "✓ agrees" : "✗ disagrees"}
                </Badge>{" "}
                {step.title}
              </p>
              <p className="mt-1 font-mono text-xs break-all text-zinc-300">{step.detail}</p>
              {step.link && !draw.simulatedChain && (
                <p className="mt-1 text-xs text-zinc-300">
                  <a
                    href={step.link}
                    target="_blank"
                    rel="noopener noreferrer"
                    className="underline decoration-zinc-600 underline-offset-4 hover:text-zinc-100"
                    data-testid="block-explorer-link"
                  >
                    When was block {draw.blockHeight} mined? (Dogecoin mainnet explorer)
                  </a>
                </p>
              )}
            </li>
          ))}
        </ol>
      </Card>

      <Card className="p-5">
        <h2 className="text-lg font-semibold text-white">What was published</h2>
        <dl className="mt-3 grid gap-2 font-mono text-xs break-all text-zinc-300">
          <Field label="Draw version" value={String(draw.version)} />
          <Field label="Commitment (SHA-256 of the seed)" value={draw.commitment} />
          <Field label="Seed" value={draw.seed ?? "revealed when drawn"} />
          {draw.version === 2 && (
            <>
              <Field label="Draw block" value={draw.blockHeight === null ? "fixed when entries close" : String(draw.blockHeight)} />
              <Field label="Entries closed at" value={draw.closedAt ?? "not yet"} />
              <Field label="Block hash" value={draw.blockHash ?? "read once 6 blocks sit on top of the draw block"} />
            </>
          )}
          <Field label="Winners wanted" value={String(draw.winners)} />
          <Field label="Winners, in draw order" value={draw.winnerAddresses.join(", ") || "none yet"} />
        </dl>
        <YourEntry draw={draw} />
        <EntriesTable draw={draw} />
      </Card>
    </>
  );
}

/** A connected holder checks their own row: what the draw counts for them must be what they bought. */
function YourEntry({ draw }: { draw: PublishedDraw }) {
  const wallet = useWallet();
  if (!wallet.connected || !wallet.address) return null;
  const index = draw.entries.findIndex((entry) => entry.address === wallet.address);
  return (
    <p className="mt-4 rounded-lg border border-zinc-800 bg-black/30 px-3 py-2 text-sm text-zinc-200" data-testid="your-entry">
      {index === -1
        ? "Your wallet has no entry in this draw."
        : `Your entry: ${countOf(draw.entries[index].tickets, "ticket")}, entry ${formatNumber(index + 1)} of ${formatNumber(draw.entries.length)}. Check it against what you bought.`}
    </p>
  );
}

function Field({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt className="font-sans text-zinc-400">{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

function EntriesTable({ draw }: { draw: PublishedDraw }) {
  const rows = useMemo(() => withRanges(draw.entries.slice(0, SHOWN_ENTRIES)), [draw.entries]);
  return (
    <div className="mt-5 overflow-x-auto">
      <table className="w-full text-left text-sm">
        <caption className="pb-2 text-left text-zinc-400">
          Entries in the draw's order
          {draw.entries.length > SHOWN_ENTRIES &&
            ` (the first ${SHOWN_ENTRIES} of ${formatNumber(draw.entries.length)} shown; all of them are checked)`}
        </caption>
        <thead className="text-xs text-zinc-400">
          <tr>
            <th scope="col" className="py-1 pr-3">
              Address
            </th>
            <th scope="col" className="py-1 pr-3 text-right">
              Tickets
            </th>
            <th scope="col" className="py-1 text-right">
              First draw's range
            </th>
          </tr>
        </thead>
        <tbody className="font-mono text-xs text-zinc-200">
          {rows.length === 0 && (
            <tr>
              <td colSpan={3} className="py-3 text-center font-sans text-sm text-zinc-400" data-testid="no-entries">
                No entries yet
              </td>
            </tr>
          )}
          {rows.map((row, index) => (
            <tr key={index} className="border-t border-zinc-800">
              <td className="py-1 pr-3 break-all">{row.address}</td>
              <td className="py-1 pr-3 text-right">{formatNumber(row.tickets)}</td>
              <td className="py-1 text-right">
                {formatNumber(row.first)}–{formatNumber(row.last)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
