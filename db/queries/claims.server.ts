/**
 * Prize claims (issue 27, item 9): a winner signs a claim with a contact, once per giveaway; the admin reads
 * every winner with their claim or none. The contact is in no public answer, export, log or audit row: only
 * `claimsOf` (the admin's session, the CLI) reads it.
 */
import { now } from "../../app/domain/clock.ts";
import { conflict, forbidden, unauthorized } from "../../app/domain/errors.ts";
import type { Queryable } from "../client.server.ts";
import { recordAudit } from "./audit.server.ts";
import { recordUsedSignature } from "./auth.server.ts";
import { getGiveaway, lockGiveaway } from "./giveaways.server.ts";
import { inTransaction } from "./transaction.server.ts";

export type ClaimInput = { giveawayId: number; address: string; contact: string; message: string; signature: string };

export type Claim = { giveawayId: number; address: string; claimedAt: Date };

export type WinnerClaim = {
  address: string;
  /** Draw order (1 = first winner). */
  place: number;
  claimedAt: Date | null;
  contact: string | null;
  message: string | null;
  signature: string | null;
};

export type GiveawayClaims = {
  giveawayId: number;
  title: string;
  drawn: boolean;
  claimed: number;
  unclaimed: number;
  winners: WinnerClaim[];
};

/** The giveaway's winners in draw order (version 1: its one winner). */
async function winnersOf(sql: Queryable, giveawayId: number): Promise<string[]> {
  const rows = await sql<{ address: string }[]>`
    select w.address from giveaway_winners w where w.giveaway_id = ${giveawayId}
    union all
    select g.winner_address from giveaways g where g.id = ${giveawayId} and g.draw_version = 1 and g.winner_address is not null`;
  return rows.map((row) => row.address);
}

/**
 * Records a winner's claim. The signature (already verified by the caller, message rebuilt from these very
 * fields) is spent in the same transaction, so a refused claim spends nothing and a replay is refused.
 */
export async function claimPrize(sql: Queryable, input: ClaimInput): Promise<Claim> {
  return inTransaction(sql, async (tx) => {
    const giveaway = await lockGiveaway(tx, input.giveawayId, "share");
    if (giveaway.drawnAt === null) throw conflict("This giveaway has not been drawn yet: only its winners can claim, once drawn");
    const winners = await winnersOf(tx, input.giveawayId);
    if (!winners.includes(input.address)) throw forbidden("Only a winner of this giveaway can claim its prize");
    // The staking replay rule: each signature once (app/utils/auth.server.ts consumeSignature says the same).
    if (!(await recordUsedSignature(tx, { ...input, action: "giveaway-claim" })))
      throw unauthorized("This signature has already been used");
    const [already] = await tx<{ claimedAt: Date }[]>`
      select claimed_at from giveaway_claims where giveaway_id = ${input.giveawayId} and address = ${input.address}`;
    if (already) throw conflict(`This prize was already claimed on ${already.claimedAt.toISOString()}`);
    const claimedAt = now();
    const inserted = await tx`
      insert into giveaway_claims (giveaway_id, address, contact, message, signature, claimed_at)
      values (${input.giveawayId}, ${input.address}, ${input.contact}, ${input.message}, ${input.signature}, ${claimedAt})
      on conflict (giveaway_id, address) do nothing
      returning 1`;
    // A claim committed by a concurrent request between the check above and this insert.
    if (inserted.length === 0) throw conflict("This prize was already claimed");
    // The audit row says who claimed what and when; the contact stays in giveaway_claims alone.
    await recordAudit(
      tx,
      { kind: "web", address: input.address },
      "giveaway.claim",
      `giveaway:${input.giveawayId}`,
      { giveawayId: input.giveawayId, title: giveaway.title, winner: input.address },
      { before: null, after: { claimedAt: claimedAt.toISOString() } },
    );
    return { giveawayId: input.giveawayId, address: input.address, claimedAt };
  });
}

/** Every winner of a giveaway with their claim (contact included) or none: the admin's view. */
export async function claimsOf(sql: Queryable, giveawayId: number): Promise<GiveawayClaims> {
  const giveaway = await getGiveaway(sql, giveawayId);
  const winners = await winnersOf(sql, giveawayId);
  const claims = await sql<{ address: string; claimedAt: Date; contact: string; message: string; signature: string }[]>`
    select address, claimed_at, contact, message, signature from giveaway_claims where giveaway_id = ${giveawayId}`;
  const byAddress = new Map(claims.map((claim) => [claim.address, claim]));
  const rows = winners.map((address, index) => {
    const claim = byAddress.get(address);
    return {
      address,
      place: index + 1,
      claimedAt: claim?.claimedAt ?? null,
      contact: claim?.contact ?? null,
      message: claim?.message ?? null,
      signature: claim?.signature ?? null,
    };
  });
  const claimed = rows.filter((row) => row.claimedAt !== null).length;
  return {
    giveawayId,
    title: giveaway.title,
    drawn: giveaway.drawSeed !== null,
    claimed,
    unclaimed: rows.length - claimed,
    winners: rows,
  };
}
