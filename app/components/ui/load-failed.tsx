/**
 * The failed state of a data view (DECISIONS "Errors holders can act on"): a load that failed says so,
 * with the server's reason when it gave one, and a Retry that fetches again; it is never shown as an
 * empty list or 0 points. `compact` fits a figure's place (a header badge, a panel's number).
 */
import { refusalOf } from "../../lib/api.ts";
import { Button } from "./button.tsx";
import { cn } from "./cn.ts";

type Props = {
  /** What failed to load, as a holder calls it ("your Spooks", "giveaways"). */
  what: string;
  error: unknown;
  /** Fetches again (TanStack Query's `refetch`). */
  onRetry: () => unknown;
  /** True while the retry is under way. */
  retrying?: boolean;
  compact?: boolean;
  className?: string;
};

export function LoadFailed({ what, error, onRetry, retrying = false, compact = false, className }: Props) {
  const reason = refusalOf(error)?.message;
  return (
    <div
      role="alert"
      data-testid="load-failed"
      className={cn(
        "flex flex-wrap items-center gap-2 rounded-lg border border-red-500/40 bg-red-500/10 text-red-100",
        compact ? "px-2 py-1 text-xs" : "px-4 py-3 text-sm",
        className,
      )}
    >
      <p className="min-w-0 grow">
        Could not load {what}.{reason && !compact ? <span className="block opacity-90">{reason}</span> : null}
      </p>
      <Button
        size="sm"
        variant="secondary"
        onClick={() => void onRetry()}
        disabled={retrying}
        aria-label={compact ? `Retry loading ${what}` : undefined}
      >
        {retrying ? "Retrying..." : "Retry"}
      </Button>
    </div>
  );
}
