/**
 * The whole /api contract: every route's contract, by group (the docs' sections, in this order). A
 * group module exports its routes (made by `defineRoute`) beside schemas and types; only the routes count.
 */
import type { RouteContract } from "./kit.ts";
import * as admin from "./admin.ts";
import * as auth from "./auth.ts";
import * as boosts from "./boosts.ts";
import * as content from "./content.ts";
import * as email from "./email.ts";
import * as discord from "./discord.ts";
import * as giveaways from "./giveaways.ts";
import * as holdings from "./holdings.ts";
import * as log from "./log.ts";
import * as notifications from "./notifications.ts";
import * as points from "./points.ts";
import * as proposals from "./proposals.ts";
import * as staking from "./staking.ts";
import * as system from "./system.ts";
import * as team from "./team.ts";
import * as webhooks from "./webhooks.ts";

const GROUPS: Record<string, unknown>[] = [
  holdings,
  points,
  boosts,
  content,
  staking,
  giveaways,
  proposals,
  discord,
  notifications,
  auth,
  admin,
  team,
  webhooks,
  email,
  log,
  system,
];

function isRouteContract(value: unknown): value is RouteContract {
  return typeof value === "object" && value !== null && "operationId" in value && "method" in value && "responses" in value;
}

export const API_ROUTES: readonly RouteContract[] = GROUPS.flatMap((group) => Object.values(group).filter(isRouteContract));
