/**
 * What each admin form does once the route action has authenticated the admin session and parsed the
 * form: one call into db/queries (which hold every rule), and the toast the spec gives its outcome
 * (section 8: success toasts, and 'Error …' / 'Failed to …: {error}' on a refusal).
 */
import type { z } from "zod";
import type { Actor } from "../../../db/queries/audit.server.ts";
import type { Sql } from "../../../db/client.server.ts";
import {
  createGiveaway,
  deleteGiveaway,
  setGiveawayActive,
  setGiveawayImage,
  updateGiveaway,
} from "../../../db/queries/giveaways.server.ts";
import { withDrawChain } from "../../../indexer/draw-chain.server.ts";
import { selectWinners, type SelectWinnersResult } from "../../../indexer/draws.server.ts";
import { OrdError } from "../../../indexer/ord-client.server.ts";
import { conflict } from "../../domain/errors.ts";
import type { Config } from "../../utils/env.server.ts";
import { addPoints, clearPoints, recalculateAllPoints, resetNegativeBalances } from "../../../db/queries/points.server.ts";
import { createProposal, deleteProposal, startProposalNow } from "../../../db/queries/proposals.server.ts";
import { formatNumber, formatPointsExact, shortenAddress } from "../../domain/format.ts";
import type { ADMIN_FORMS, AdminIntent, AdminToast } from "./schemas.ts";

export type AdminFormValue = { [I in AdminIntent]: z.output<(typeof ADMIN_FORMS)[I]> }[AdminIntent];

/** 'Error adding points' / 'Failed to add points: {error}', and the like, per form. */
export const ADMIN_ERRORS: Record<AdminIntent, { title: string; failed: string }> = {
  "add-points": { title: "Error adding points", failed: "Failed to add points" },
  "clear-points": { title: "Error clearing points", failed: "Failed to clear points" },
  "recalculate-points": { title: "Error recalculating points", failed: "Failed to recalculate points" },
  "reset-negative-balances": { title: "Error resetting negative balances", failed: "Failed to reset negative balances" },
  "create-giveaway": { title: "Error Creating Giveaway", failed: "Failed to create giveaway" },
  "toggle-giveaway": { title: "Error Updating Giveaway", failed: "Failed to update giveaway" },
  "edit-giveaway": { title: "Error Updating Giveaway", failed: "Failed to update giveaway" },
  "update-image": { title: "Error Updating Image", failed: "Failed to update image" },
  "select-winner": { title: "Error Selecting Winner", failed: "Failed to select winner" },
  "delete-giveaway": { title: "Error Deleting Giveaway", failed: "Failed to delete giveaway" },
  "create-proposal": { title: "Error Creating Proposal", failed: "Failed to create proposal" },
  "delete-proposal": { title: "Error Deleting Proposal", failed: "Failed to delete proposal" },
  "start-proposal": { title: "Error Starting Proposal", failed: "Failed to start proposal" },
};

export function errorToast(intent: AdminIntent, message: string): AdminToast {
  const { title, failed } = ADMIN_ERRORS[intent];
  return { title, description: `${failed}: ${message}`, variant: "destructive" };
}

const success = (title: string, description?: string): AdminToast => ({ title, description, variant: "success" });

/** Select Winner: version 2 closes entries and draws at a block (the ord server's), version 1 draws now. */
async function selectWinnersFromForm(sql: Sql, id: number, actor: Actor, config: DrawConfig): Promise<SelectWinnersResult> {
  try {
    return await withDrawChain(config, (chain) => selectWinners(sql, chain, id, actor));
  } catch (error) {
    if (error instanceof OrdError) throw conflict("The ord server did not answer: entries stay open, try again");
    throw error;
  }
}

function winnersToast(result: SelectWinnersResult): AdminToast {
  if (result.version === 1)
    return success("Winner Selected", `${result.winner.address} won with ${formatNumber(result.winner.tickets)} ticket(s).`);
  if (result.status === "drawing") {
    return success(`Drawing at block ${result.blockHeight}`, "Entries are closed; the winners are drawn once 6 blocks sit on top of it.");
  }
  return success("Winners Selected", result.winnerAddresses.length > 0 ? result.winnerAddresses.join(", ") : "Nobody entered: no winner.");
}

type DrawConfig = Pick<Config, "indexer"> & { ordUrl?: string };

export async function runAdminIntent(
  sql: Sql,
  value: AdminFormValue,
  actor: Actor & { kind: "web" },
  config: DrawConfig,
): Promise<AdminToast> {
  switch (value.intent) {
    case "add-points": {
      const result = await addPoints(sql, {
        address: value.address,
        points: value.amount,
        description: value.description,
        actor,
      });
      return success(
        "Points added",
        `Added ${formatNumber(value.amount)} points to ${shortenAddress(value.address)}. New balance: ${formatPointsExact(result.totalPoints)}.`,
      );
    }
    case "clear-points": {
      const result = await clearPoints(sql, { address: value.address, actor });
      return success("Points cleared", `Cleared ${formatPointsExact(result.clearedPoints)} points from ${shortenAddress(value.address)}.`);
    }
    case "recalculate-points": {
      const result = await recalculateAllPoints(sql, actor);
      return success(
        "Points Recalculated",
        `Recalculated points for ${formatNumber(result.addressesProcessed)} addresses. The next refresh shows the correct values.`,
      );
    }
    case "reset-negative-balances": {
      const result = await resetNegativeBalances(sql, actor);
      return success("Negative Balances Reset", `${formatNumber(result.adjustmentsApplied)} negative balances were reset to 0.`);
    }
    case "create-giveaway": {
      const { intent: _intent, ...input } = value;
      const giveaway = await createGiveaway(sql, input, actor);
      return success("Giveaway Created", `"${giveaway.title}" is open for entries.`);
    }
    case "edit-giveaway": {
      const { intent: _intent, giveawayId, ...input } = value;
      const giveaway = await updateGiveaway(sql, giveawayId, input, actor);
      return success("Giveaway Updated", `"${giveaway.title}" was updated.`);
    }
    case "toggle-giveaway": {
      const giveaway = await setGiveawayActive(sql, value.giveawayId, value.active, actor);
      return success("Giveaway Updated", `"${giveaway.title}" is now ${giveaway.active ? "active" : "inactive"}.`);
    }
    case "update-image": {
      const giveaway = await setGiveawayImage(sql, value.giveawayId, value.imageUrl, actor);
      return success("Image updated", `The image of "${giveaway.title}" was updated.`);
    }
    case "select-winner":
      return winnersToast(await selectWinnersFromForm(sql, value.giveawayId, actor, config));
    case "delete-giveaway": {
      const result = await deleteGiveaway(sql, value.giveawayId, actor);
      return success(
        "Giveaway Deleted",
        result.refunded > 0
          ? `The giveaway and its entries were deleted; ${formatNumber(result.refunded)} entries refunded (${formatPointsExact(result.refundedPoints)} points).`
          : "The giveaway and its entries were deleted.",
      );
    }
    case "create-proposal": {
      const { intent: _intent, ...input } = value;
      const proposal = await createProposal(sql, { ...input, createdBy: actor.address }, actor);
      return success("Proposal Created", `"${proposal.title}" was created.`);
    }
    case "delete-proposal": {
      await deleteProposal(sql, value.proposalId, actor);
      return success("Proposal Deleted", "The proposal was deleted.");
    }
    case "start-proposal": {
      const proposal = await startProposalNow(sql, value.proposalId, actor);
      return success("Proposal Started", `Voting on "${proposal.title}" is open now.`);
    }
  }
}
