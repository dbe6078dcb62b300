/**
 * The signed stake/unstake flow shared by the single and bulk routes: the message must name exactly the
 * items acted on (single: the item's number; bulk: the names in the order sent), the signature is
 * recorded in the same transaction as the change, and the answer carries the wallet's fresh rewards.
 */
import type { z } from "zod";
import type { AppLoadContext } from "react-router";
import type { ServerAnswer } from "../api/kit.ts";
import type { bulkStakeBody, stakeBody, stakeItem, stakeItems } from "../api/staking.ts";
import { unauthorized } from "../domain/errors.ts";
import { parseBulkStakeMessage, parseStakeMessage, type StakeAction } from "../domain/messages.ts";
import { rewardsOf, type Rewards } from "../../db/queries/holdings.server.ts";
import { applyStakeAction, findItems, type StakeResult } from "../../db/queries/stakes.server.ts";
import { withLogIndex } from "../../db/queries/log.server.ts";
import { consumeSignature, verifySignedAction, type SignedInput } from "./auth.server.ts";
import type { ItemRow } from "../../db/queries/catalogue.server.ts";

export type SignedStakeRequest = SignedInput & { inscriptionIds: string[] };

export type StakeAnswer = StakeResult & { rewards: Rewards; logIndex: number | null };

/** Checks the signature and the message's form and age (no database); answers what it must name. */
function verifyStakeMessage(action: StakeAction, input: SignedStakeRequest, mode: "single" | "bulk"): (items: ItemRow[]) => void {
  if (mode === "single") {
    const parsed = verifySignedAction(input, (message) => parseStakeMessage(action, message), `${action} message`);
    return ([item]) => {
      if (parsed.itemNumber !== item.number) {
        throw unauthorized(`The signed message names Spook #${parsed.itemNumber}, not ${item.name}`);
      }
    };
  }
  const parsed = verifySignedAction(input, (message) => parseBulkStakeMessage(action, message), `bulk ${action} message`);
  if (parsed.names.length !== input.inscriptionIds.length) {
    throw unauthorized("The signed message does not list exactly the items sent, in the order sent");
  }
  return (items) => {
    const names = items.map((item) => item.name);
    if (parsed.names.length !== names.length || parsed.names.some((name, index) => name !== names[index])) {
      throw unauthorized("The signed message does not list exactly the items sent, in the order sent");
    }
  };
}

export async function signedStake(
  context: AppLoadContext,
  action: StakeAction,
  request: SignedStakeRequest,
  mode: "single" | "bulk",
): Promise<StakeAnswer> {
  const { sql } = context;
  // The signature and the message are checked before the database is touched: a forged or stale call
  // costs one signature check, never a query.
  const namesExactly = verifyStakeMessage(action, request, mode);
  const items = await findItems(sql, request.inscriptionIds);
  namesExactly(items);
  const { result, logIndex } = await withLogIndex(sql, async (tx) => {
    await consumeSignature(tx, { ...request, action: mode === "bulk" ? `${action}-bulk` : action });
    return applyStakeAction(tx, action, request.address, items);
  });
  return { ...result, rewards: await rewardsOf(sql, request.address, { afterOwnWrite: true }), logIndex };
}

/** The single call's answer (POST /api/stake, /api/unstake): `alreadyStaked: true` when the item already was in the asked state. */
export async function singleStakeAnswer(
  context: AppLoadContext,
  action: StakeAction,
  body: z.output<typeof stakeBody>,
): Promise<ServerAnswer<typeof stakeItem>> {
  // `doginalId` (the page's own id for the item) is accepted and not needed: the inscription id names it.
  const { address, message, signature, inscriptionId } = body;
  const result = await signedStake(context, action, { address, message, signature, inscriptionIds: [inscriptionId] }, "single");
  const { rewards, logIndex } = result;
  return result.count === 0 ? { success: true, alreadyStaked: true, rewards, logIndex } : { success: true, rewards, logIndex };
}

/** The bulk call's answer (POST /api/stake/bulk, /api/unstake/bulk). */
export async function bulkStakeAnswer(
  context: AppLoadContext,
  action: StakeAction,
  body: z.output<typeof bulkStakeBody>,
): Promise<ServerAnswer<typeof stakeItems>> {
  return { success: true, ...(await signedStake(context, action, body, "bulk")) };
}
