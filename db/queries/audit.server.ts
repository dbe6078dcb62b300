/**
 * The audit trail: every admin change (web or CLI) and every system change to holders' standing, with who,
 * when, what, and what the change found and left (before → after). Write it in the same transaction as the
 * change it records; the database refuses to update or delete a row (migration 0013). No secret is ever
 * written: every text of a row goes through app/domain/redact.ts (a URL's password would stay for good).
 */
import { now } from "../../app/domain/clock.ts";
import { redactUrl, redactUrlsDeep, redactWebhookUrl } from "../../app/domain/redact.ts";
import type { AuditActorKind } from "../../app/domain/audit.ts";
import type { Queryable } from "../client.server.ts";

/**
 * A change a second member approved (issue 35): the audit row's `details.approval` names both, beside
 * `actor_address` (the proposer, who asked for it).
 */
export type ApprovalRecord = { id: number; proposedBy: string; approvedBy: string };

/** Who made a change: a web admin (with their address, and the approval when a second member signed it), the CLI operator, or the system itself. */
export type Actor = { kind: "web"; address: string; approval?: ApprovalRecord } | { kind: "cli" } | { kind: "system" };

export const SYSTEM_ACTOR: Actor = { kind: "system" };

/** The ledger's `actor` column text for an actor. */
export function actorLabel(actor: Actor): string {
  return actor.kind === "web" ? `web:${actor.address}` : actor.kind;
}

/** What a change found and what it left: null before a creation, null after a deletion. */
export type AuditChange = { before?: unknown; after?: unknown };

/** jsonb of a value as JSON would write it (Dates as ISO text), URLs without credentials. */
function redactedJson(sql: Queryable, value: unknown) {
  return sql.json(redactUrlsDeep(JSON.parse(JSON.stringify(value)) as unknown) as never);
}

/** The same, or SQL null for null or undefined. */
function jsonOrNull(sql: Queryable, value: unknown) {
  return value === undefined || value === null ? null : redactedJson(sql, value);
}

export async function recordAudit(
  sql: Queryable,
  actor: Actor,
  action: string,
  target: string | null,
  details: Record<string, unknown> = {},
  change: AuditChange = {},
): Promise<void> {
  const approved = actor.kind === "web" && actor.approval ? { ...details, approval: actor.approval } : details;
  await sql`
    insert into audit_log (actor, actor_address, action, target, details, before, after, created_at)
    values (${actor.kind}, ${actor.kind === "web" ? actor.address : null}, ${action}, ${target === null ? null : redactUrl(target)},
            ${redactedJson(sql, approved)}, ${jsonOrNull(sql, change.before)},
            ${jsonOrNull(sql, change.after)}, ${now()})`;
}

/** A timestamptz as JSON writes a Date (ISO 8601, UTC, milliseconds), inside SQL. */
const isoSql = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * `insert into audit_log … select … from ended`: one system row per stake a move ended, for a statement whose
 * CTE `ended` returns the stakes' id, address, item_id, started_at and ended_at, and the item's new holder as
 * holder and holder_kind. Written by the statement that ends them, so the row and the change are one.
 */
export function auditStakesEndedByTransfer(sql: Queryable, at: Date) {
  return sql`
    insert into audit_log (actor, action, target, details, before, after, created_at)
    select 'system', 'stake.transferred', e.address,
           jsonb_build_object('stakeId', e.id, 'item', i.name, 'inscriptionId', i.inscription_id),
           jsonb_build_object('staked', true, 'since', ${sql.unsafe(isoSql("e.started_at"))}),
           jsonb_build_object('staked', false, 'endedAt', ${sql.unsafe(isoSql("e.ended_at"))}, 'endReason', 'transferred',
                              'holder', e.holder, 'holderKind', e.holder_kind),
           ${at}::timestamptz
    from ended e join items i on i.id = e.item_id`;
}

/** An uploaded image: its path after, and what it is (type, size, SHA-256 of its bytes). */
export async function recordUpload(
  sql: Queryable,
  actor: Actor,
  upload: { filePath: string; mediaType: string; bytes: number; sha256: string },
): Promise<void> {
  const { filePath, ...details } = upload;
  await recordAudit(sql, actor, "upload.image", filePath, details, { after: { filePath } });
}

export type AuditEntry = {
  id: number;
  actor: AuditActorKind;
  actorAddress: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  before: unknown;
  after: unknown;
  createdAt: Date;
};

export type AuditFilter = {
  /** An action (`points.add`) or a family (`points`: every `points.*`). */
  action?: string;
  /** `web`, `cli`, `system`, or the web admin's address. */
  actor?: string;
  since?: Date;
  until?: Date;
  /** Rows older than this id (the previous page's `nextCursor`). */
  before?: number;
  limit?: number;
};

export type AuditPage = { entries: AuditEntry[]; nextCursor: number | null };

const ACTOR_KINDS = new Set(["web", "cli", "system"]);

/** A webhook's before/after as shown: rows written before issue 32 hold its whole URL, whose path may be its secret. */
function withoutWebhookPath(action: string, value: unknown): unknown {
  if (!action.startsWith("webhook.") || value === null || typeof value !== "object" || !("url" in value)) return value;
  const { url } = value;
  return typeof url === "string" ? { ...value, url: redactWebhookUrl(url) } : value;
}

/** A row as it is shown: rows written before redaction existed keep what they hold (append-only), but not on screen. */
const withoutSecrets = (entry: AuditEntry): AuditEntry => ({
  ...entry,
  target: entry.target === null ? null : redactUrl(entry.target),
  details: redactUrlsDeep(entry.details),
  before: redactUrlsDeep(withoutWebhookPath(entry.action, entry.before)),
  after: redactUrlsDeep(withoutWebhookPath(entry.action, entry.after)),
});

/** Newest first, filtered, one page; `nextCursor` is the id to pass as `before` for the next page. */
export async function listAudit(sql: Queryable, filter: AuditFilter = {}): Promise<AuditPage> {
  const limit = filter.limit ?? 50;
  const { action, actor, since, until, before } = filter;
  const rows = await sql<AuditEntry[]>`
    select id, actor, actor_address, action, target, details, before, after, created_at
    from audit_log
    where true
      ${action ? sql`and (action = ${action} or starts_with(action, ${`${action}.`}))` : sql``}
      ${actor ? (ACTOR_KINDS.has(actor) ? sql`and actor = ${actor}` : sql`and actor_address = ${actor}`) : sql``}
      ${since ? sql`and created_at >= ${since}` : sql``}
      ${until ? sql`and created_at < ${until}` : sql``}
      ${before ? sql`and id < ${before}` : sql``}
    order by id desc
    limit ${limit + 1}`;
  const entries = rows.slice(0, limit).map(withoutSecrets);
  return { entries, nextCursor: rows.length > limit ? entries[entries.length - 1].id : null };
}

/**
 * Every distinct action the log holds, sorted: what the audit filter offers (a newer release's actions, or
 * another service's, included). A skip scan over the (action, id) index: one probe per distinct action.
 */
export async function auditActions(sql: Queryable): Promise<string[]> {
  const rows = await sql<{ action: string }[]>`
    with recursive found(action) as (
      (select action from audit_log order by action limit 1)
      union all
      select (select a.action from audit_log a where a.action > found.action order by a.action limit 1)
      from found where found.action is not null
    )
    select action from found where action is not null`;
  return rows.map((row) => row.action);
}

export async function recentAudit(sql: Queryable, limit = 50): Promise<AuditEntry[]> {
  return (await listAudit(sql, { limit })).entries;
}
