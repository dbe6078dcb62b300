/**
 * Slash commands (issue 37): each interaction Discord delivers is answered once (discord_interactions,
 * migration 0050). Claiming an id also removes a batch of ids past their retention, so the table holds about
 * an hour of interactions on either engine without a job of its own.
 */
import { INTERACTION_RETENTION_MS } from "../../app/domain/discord-commands.ts";
import type { Queryable } from "../client.server.ts";

const PRUNE_BATCH = 100;

/** Claims interaction `id` at `at`: true the first time it is seen, false when it was claimed before. */
export async function claimInteraction(sql: Queryable, id: string, at: Date): Promise<boolean> {
  const cutoff = new Date(at.getTime() - INTERACTION_RETENTION_MS);
  const rows = await sql`
    with expired as (
      delete from discord_interactions where id in (
        select id from discord_interactions where received_at < ${cutoff} order by received_at limit ${PRUNE_BATCH}))
    insert into discord_interactions (id, received_at) values (${id}, ${at})
    on conflict (id) do nothing
    returning id`;
  return rows.length === 1;
}

/** The wallet linked to a Discord account, or null. */
export async function linkedWalletOf(sql: Queryable, discordUserId: string): Promise<string | null> {
  const [row] = await sql<{ address: string }[]>`select address from discord_links where discord_user_id = ${discordUserId}`;
  return row?.address ?? null;
}
