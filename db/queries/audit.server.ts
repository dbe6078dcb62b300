/** The audit trail of admin actions. Write it in the same transaction as the change it records. */
import { now } from "../../app/domain/clock.ts";
import type { Queryable } from "../client.server.ts";

/** Who made a change: the web admin (with their address), the CLI operator, or the system itself. */
export type Actor = { kind: "web"; address: string } | { kind: "cli" } | { kind: "system" };

/** The ledger's `actor` column text for an actor. */
export function actorLabel(actor: Actor): string {
  return actor.kind === "web" ? `web:${actor.address}` : actor.kind;
}

export async function recordAudit(
  sql: Queryable,
  actor: Actor,
  action: string,
  target: string | null,
  details: Record<string, unknown> = {},
): Promise<void> {
  await sql`
    insert into audit_log (actor, actor_address, action, target, details, created_at)
    values (${actor.kind}, ${actor.kind === "web" ? actor.address : null}, ${action}, ${target},
            ${sql.json(details as never)}, ${now()})`;
}

export type AuditEntry = {
  id: number;
  actor: string;
  actorAddress: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
};

export async function recentAudit(sql: Queryable, limit = 50): Promise<AuditEntry[]> {
  return sql<AuditEntry[]>`select * from audit_log order by id desc limit ${limit}`;
}
