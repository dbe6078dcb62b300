/**
 * What each admin form does once the route action has authenticated the admin session and parsed the
 * form: one call into db/queries (which hold every rule), and the toast the spec gives its outcome
 * (section 8: success toasts, and 'Error …' / 'Failed to …: {error}' on a refusal).
 */
import type { z } from "zod";
import type { Sql } from "../../../db/client.server.ts";
import { createGiveaway, setGiveawayActive, setGiveawayImage, updateGiveaway } from "../../../db/queries/giveaways.server.ts";
import type { SelectWinnersResult } from "../../../indexer/draws.server.ts";
import { OrdError } from "../../../indexer/ord-client.server.ts";
import type { Approval } from "../../../db/queries/approvals.server.ts";
import { approvalRequested } from "../../domain/approvals.ts";
import { conflict } from "../../domain/errors.ts";
import type { AdminActor } from "../../utils/auth.server.ts";
import {
  ADD_POINTS,
  CLEAR_POINTS,
  DELETE_GIVEAWAY,
  RECALCULATE_POINTS,
  RESET_NEGATIVE_BALANCES,
  runOrPropose,
  SELECT_WINNER,
  type ActionContext,
} from "../../utils/approvals.server.ts";
import { createProposal, deleteProposal, startProposalNow } from "../../../db/queries/proposals.server.ts";
import { formatNumber, formatPointsExact, shortenAddress, countOf } from "../../domain/format.ts";
import type { ADMIN_FORMS, AdminIntent, AdminToast } from "./schemas.ts";

type Config = ActionContext["config"];

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

/** Select Winner: version 2 closes entries and draws at a block (the ord server's), version 1 draws now (or it waits for approval). */
async function selectWinnersFromForm(sql: Sql, id: number, actor: AdminActor, config: Config) {
  try {
    return await runOrPropose({ sql, config }, actor, SELECT_WINNER, { id });
  } catch (error) {
    if (error instanceof OrdError) throw conflict("The ord server did not answer: entries stay open, try again");
    throw error;
  }
}

/** A covered action kept for a second member's signature (issue 35): nothing changed yet. */
function approvalToast(approval: Approval): AdminToast {
  const { title, description } = approvalRequested(approval.id, approval.summary);
  return success(title, description);
}

function winnersToast(result: SelectWinnersResult): AdminToast {
  if (result.version === 1)
    return success("Winner Selected", `${result.winner.address} won with ${countOf(result.winner.tickets, "ticket")}.`);
  if (result.status === "drawing") {
    return success(`Drawing at block ${result.blockHeight}`, "Entries are closed; the winners are drawn once 6 blocks sit on top of it.");
  }
  return success("Winners Selected", result.winnerAddresses.length > 0 ? result.winnerAddresses.join(", ") : "Nobody entered: no winner.");
}

export async function runAdminIntent(sql: Sql, value: AdminFormValue, actor: AdminActor, config: Config): Promise<AdminToast> {
  const context = { sql, config };
  switch (value.intent) {
    case "add-points": {
      const outcome = await runOrPropose(context, actor, ADD_POINTS, {
        address: value.address,
        amount: value.amount,
        description: value.description,
      });
      if (outcome.pending) return approvalToast(outcome.pending);
      const result = outcome.applied;
      return success(
        "Points added",
        `Added ${formatNumber(value.amount)} points to ${shortenAddress(value.address)}. New balance: ${formatPointsExact(result.totalPoints)}.`,
      );
    }
    case "clear-points": {
      const outcome = await runOrPropose(context, actor, CLEAR_POINTS, { address: value.address, reason: value.reason });
      if (outcome.pending) return approvalToast(outcome.pending);
      const result = outcome.applied;
      return success("Points cleared", `Cleared ${formatPointsExact(result.clearedPoints)} points from ${shortenAddress(value.address)}.`);
    }
    case "recalculate-points": {
      const outcome = await runOrPropose(context, actor, RECALCULATE_POINTS, {});
      if (outcome.pending) return approvalToast(outcome.pending);
      const result = outcome.applied;
      return success(
        "Points Recalculated",
        `Recalculated points for ${formatNumber(result.addressesProcessed)} addresses. The next refresh shows the correct values.`,
      );
    }
    case "reset-negative-balances": {
      const outcome = await runOrPropose(context, actor, RESET_NEGATIVE_BALANCES, {});
      if (outcome.pending) return approvalToast(outcome.pending);
      const result = outcome.applied;
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
    case "select-winner": {
      const outcome = await selectWinnersFromForm(sql, value.giveawayId, actor, config);
      return outcome.pending ? approvalToast(outcome.pending) : winnersToast(outcome.applied);
    }
    case "delete-giveaway": {
      const outcome = await runOrPropose(context, actor, DELETE_GIVEAWAY, { id: value.giveawayId });
      if (outcome.pending) return approvalToast(outcome.pending);
      const result = outcome.applied;
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
