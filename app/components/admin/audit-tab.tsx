/**
 * Audit: every admin change (web and CLI) and every system change to holders' standing, newest first, with
 * before → after; filters by action, actor and dates (UTC days), paged with Older / Newer. Reads
 * GET /api/admin/audit with the admin's session.
 */
import { useEffect, useState } from "react";
import type { AuditEntry, AuditPage } from "../../api/admin.ts";
import { AUDIT_ACTIONS, auditActionLabel } from "../../domain/audit.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { ApiError } from "../../lib/api.ts";
import { DateText } from "../governance/date-text.tsx";
import { AdminTable, AdminTableNote } from "./admin-table.tsx";
import { CursorPager, useCursorPages } from "./cursor-pager.tsx";
import { Input, Label } from "../ui/input.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";

const PAGE_SIZE = 25;

type Filters = { action: string; actor: string; from: string; to: string };
const NO_FILTERS: Filters = { action: "", actor: "", from: "", to: "" };

const ACTORS = [
  ["", "Everyone"],
  ["web", "Web admin"],
  ["cli", "CLI operator"],
  ["system", "System"],
] as const;

const SELECT_CLASS =
  "h-10 w-full rounded-lg border border-zinc-700 bg-zinc-900 px-3 text-sm text-zinc-100 focus-visible:border-violet-500 focus-visible:outline-2 focus-visible:outline-violet-500/40";

/** The API path of one page: a UTC day's start for `from`, the next day's start for `to` (the day included). */
export function auditPath(filters: Filters, cursor: number | null): string {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filters.action) query.set("action", filters.action);
  if (filters.actor) query.set("actor", filters.actor);
  if (filters.from) query.set("since", `${filters.from}T00:00:00.000Z`);
  if (filters.to) query.set("until", new Date(Date.parse(`${filters.to}T00:00:00.000Z`) + 86_400_000).toISOString());
  if (cursor !== null) query.set("cursor", String(cursor));
  return `/api/admin/audit?${query.toString()}`;
}

/** A before or after value as short JSON text; nothing as a dash. */
function shown(value: unknown): string {
  return value === null || value === undefined ? "—" : JSON.stringify(value, null, 1).replace(/\n\s*/g, " ");
}

/**
 * The actions the filter offers, by family: every action the log holds (`logActions`, from the admin page's
 * loader) and the ones this release knows, so an action no release names (yet) can be filtered on too.
 */
export function auditFilterGroups(logActions: readonly string[]): { family: string; actions: string[] }[] {
  const all = [...new Set([...Object.keys(AUDIT_ACTIONS), ...logActions])];
  const families = [...new Set(all.map((action) => action.split(".")[0]))];
  return families.map((family) => ({
    family,
    actions: all.filter((action) => action === family || action.startsWith(`${family}.`)).filter((action) => action !== family),
  }));
}

export function AuditTab({ onUnauthorized, logActions = [] }: { onUnauthorized: () => void; logActions?: readonly string[] }) {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const page = useApiQuery<AuditPage>(auditPath(filters, cursor), { staleTime: 0, refetchOnWindowFocus: false });
  const unauthorized = page.error instanceof ApiError && page.error.status === 401;
  useEffect(() => {
    if (unauthorized) onUnauthorized();
  }, [unauthorized, onUnauthorized]);

  const change = (next: Partial<Filters>) => {
    setFilters((current) => ({ ...current, ...next }));
    pages.reset();
  };

  return (
    <div className="grid grid-cols-1 gap-4" data-testid="audit-tab">
      <form className="grid grid-cols-1 gap-3 sm:grid-cols-4" aria-label="Audit filters" onSubmit={(event) => event.preventDefault()}>
        <div className="grid gap-1">
          <Label htmlFor="audit-action">Action</Label>
          <select
            id="audit-action"
            className={SELECT_CLASS}
            value={filters.action}
            onChange={(event) => change({ action: event.target.value })}
          >
            <option value="">All actions</option>
            {auditFilterGroups(logActions).map(({ family, actions }) => (
              <optgroup key={family} label={family}>
                <option value={family}>All {family} actions</option>
                {actions.map((action) => (
                  <option key={action} value={action}>
                    {auditActionLabel(action)}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </div>
        <div className="grid gap-1">
          <Label htmlFor="audit-actor">Who</Label>
          <select
            id="audit-actor"
            className={SELECT_CLASS}
            value={filters.actor}
            onChange={(event) => change({ actor: event.target.value })}
          >
            {ACTORS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="grid gap-1">
          <Label htmlFor="audit-from">From (UTC)</Label>
          <Input id="audit-from" type="date" value={filters.from} onChange={(event) => change({ from: event.target.value })} />
        </div>
        <div className="grid gap-1">
          <Label htmlFor="audit-to">To (UTC)</Label>
          <Input id="audit-to" type="date" value={filters.to} onChange={(event) => change({ to: event.target.value })} />
        </div>
      </form>

      <AdminTable
        caption="Audit trail, newest first"
        columns={["When", "Who", "Action", "Target", "Before → After"]}
        className="min-w-[48rem]"
      >
        {page.isLoading ? (
          <AdminTableNote colSpan={5} status>
            <Skeleton className="h-6 w-full" />
          </AdminTableNote>
        ) : page.error && !page.data ? (
          <AdminTableNote colSpan={5} status>
            <LoadFailed what="the audit log" error={page.error} onRetry={page.refetch} retrying={page.isFetching} />
          </AdminTableNote>
        ) : page.data?.entries.length ? (
          page.data.entries.map((entry) => <AuditRow key={entry.id} entry={entry} />)
        ) : (
          <AdminTableNote colSpan={5}>No changes recorded</AdminTableNote>
        )}
      </AdminTable>

      <CursorPager pages={pages} nextCursor={page.data?.nextCursor} />
    </div>
  );
}

/** The words of a change that explain it: an adjustment's description, a clear's reason (issue 33, item 1). */
export function auditReasonText(details: Record<string, unknown>): string | null {
  const parts: string[] = [];
  if (typeof details.description === "string" && details.description) parts.push(`Description: ${details.description}`);
  if (typeof details.reason === "string" && details.reason) parts.push(`Reason: ${details.reason}`);
  return parts.length ? parts.join(" · ") : null;
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  const reason = auditReasonText(entry.details);
  return (
    <tr className="align-top hover:bg-zinc-900/50" data-testid="audit-row">
      <td className="px-4 py-3 whitespace-nowrap text-zinc-300 tabular-nums">
        <DateText value={entry.at} withTime />
      </td>
      <td className="px-4 py-3 text-zinc-200">
        {entry.actor}
        {entry.actorAddress && <span className="block font-mono text-xs break-all text-zinc-400">{entry.actorAddress}</span>}
      </td>
      <td className="px-4 py-3 text-zinc-100">
        {auditActionLabel(entry.action)}
        <span className="block font-mono text-xs text-zinc-400">{entry.action}</span>
        {reason && (
          <span className="mt-1 block text-xs text-zinc-300" data-testid="audit-reason">
            {reason}
          </span>
        )}
      </td>
      <td className="px-4 py-3 font-mono text-xs break-all text-zinc-300">{entry.target ?? "—"}</td>
      <td className="px-4 py-3 font-mono text-xs break-all text-zinc-300">
        {shown(entry.before)} → {shown(entry.after)}
      </td>
    </tr>
  );
}
