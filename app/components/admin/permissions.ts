/**
 * What each admin form needs (issue 35): the team permission, and what a refusal says the role tried. The same
 * words as the API routes' contracts (tests/api/team-roles.test.ts compares them), so a moderator hears "A
 * moderator cannot clear points" from the page and from the API alike.
 */
import type { Requirement } from "../../domain/team.ts";
import type { AdminIntent } from "./schemas.ts";

export const INTENT_REQUIREMENTS: Record<AdminIntent, Requirement> = {
  "add-points": { permission: "points", doing: "add points" },
  "clear-points": { permission: "points", doing: "clear points" },
  "recalculate-points": { permission: "points", doing: "recalculate points" },
  "reset-negative-balances": { permission: "points", doing: "reset negative balances" },
  "create-giveaway": { permission: "giveaways", doing: "create giveaways" },
  "toggle-giveaway": { permission: "giveaways", doing: "end or activate giveaways" },
  "edit-giveaway": { permission: "giveaways", doing: "edit giveaways" },
  "update-image": { permission: "giveaways", doing: "change giveaway pictures" },
  "select-winner": { permission: "giveaways", doing: "select winners" },
  "delete-giveaway": { permission: "giveaways", doing: "delete giveaways" },
  "create-proposal": { permission: "proposals", doing: "create proposals" },
  "delete-proposal": { permission: "proposals", doing: "delete proposals" },
  "start-proposal": { permission: "proposals", doing: "start proposals" },
};

/** The API operation each form does, where there is one (the test above compares their requirements). */
export const INTENT_OPERATIONS: Partial<Record<AdminIntent, string>> = {
  "add-points": "addPoints",
  "clear-points": "clearPoints",
  "recalculate-points": "recalculatePoints",
  "reset-negative-balances": "resetNegativeBalances",
  "create-giveaway": "createGiveaway",
  "toggle-giveaway": "setGiveawayActive",
  "edit-giveaway": "updateGiveaway",
  "update-image": "setGiveawayImage",
  "select-winner": "drawGiveawayWinner",
  "delete-giveaway": "deleteGiveaway",
  "create-proposal": "createProposal",
  "delete-proposal": "deleteProposal",
};
