/**
 * `audit [--since WHEN] [--action A] [--actor WHO] [--limit N]`: the audit trail, newest first: who changed
 * what, when, and before → after (db/queries/audit.server.ts; the admin page's Audit tab reads the same).
 */
import type { Command } from "commander";
import { listAudit as listAuditRoute } from "../../app/api/admin.ts";
import { auditActionLabel } from "../../app/domain/audit.ts";
import { now } from "../../app/domain/clock.ts";
import { listAudit, type AuditEntry } from "../../db/queries/audit.server.ts";
import { dateTime } from "../format.ts";
import { action, CliError, leaf, outputAnswer, outputColumns, withDatabase, type OutputOptions } from "../runtime.ts";
import { tableView } from "../views.tsx";

type AuditOptions = OutputOptions & { since?: string; action?: string; actor?: string; limit: string };

const RELATIVE = /^(\d+)([mhd])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function registerAudit(program: Command): void {
  leaf(program, "audit", "the audit trail, newest first: who changed what, when, before → after")
    .option("--since <when>", "only changes since then: an ISO 8601 time (2030-10-31T18:00:00Z) or an age (30m, 24h, 7d)")
    .option("--action <action>", "only this action (points.add) or family (points)")
    .option("--actor <who>", "only web, cli or system, or the web admin's address")
    .option("--limit <n>", "at most this many changes", "100")
    .action(action(audit));
}

/** `--since`: an ISO time, or an age before now. */
export function parseSince(text: string, at: Date = now()): Date {
  const relative = RELATIVE.exec(text.trim());
  if (relative) return new Date(at.getTime() - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS]);
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim()) || Number.isNaN(date.getTime())) {
    throw new CliError(`--since must be an ISO 8601 time (2030-10-31T18:00:00Z) or an age (30m, 24h, 7d) (got '${text}')`);
  }
  return date;
}

function parseLimit(text: string): number {
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > 10_000)
    throw new CliError(`--limit must be a whole number from 1 to 10000 (got '${text}')`);
  return limit;
}

async function audit(options: AuditOptions): Promise<void> {
  const filter = {
    since: options.since === undefined ? undefined : parseSince(options.since),
    action: options.action?.trim() || undefined,
    actor: options.actor?.trim() || undefined,
    limit: parseLimit(options.limit),
  };
  const page = await withDatabase(({ sql }) => listAudit(sql, filter));
  const answer = { ...page, entries: page.entries.map(({ createdAt, ...entry }) => ({ ...entry, at: createdAt })) };
  await outputAnswer(options, listAuditRoute.responses[200].schema, answer, () => auditView(page.entries));
}

/** A value as one short line of JSON (null shown as a dash). */
function compact(value: unknown): string {
  return value === null || value === undefined ? "—" : JSON.stringify(value);
}

function who(entry: AuditEntry): string {
  return entry.actorAddress ? `${entry.actor} ${entry.actorAddress}` : entry.actor;
}

/** One line per change, cut to the terminal's width (--json has every value whole). */
function auditView(entries: AuditEntry[]) {
  return tableView({
    rows: entries,
    empty: "No changes recorded",
    width: outputColumns(),
    columns: [
      { header: "When", value: (entry) => dateTime(entry.createdAt), minWidth: 20 },
      { header: "Who", value: who },
      { header: "Action", value: (entry) => `${entry.action} (${auditActionLabel(entry.action)})` },
      { header: "Target", value: (entry) => entry.target ?? "—" },
      { header: "Before → After", value: (entry) => `${compact(entry.before)} → ${compact(entry.after)}` },
    ],
  });
}
