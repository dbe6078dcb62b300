/**
 * Second signatures (issue 35, item 4; docs/admin.md "Approvals"). Each action the owner's policy can cover is
 * an `Approvable`: how a request of it is kept (its input's stored shape), whether the policy covers it, its
 * summary and what it would do (before → after), and how it is applied. A covered request answers 202 and
 * changes nothing but its pending row; a different member with the right to do it approves it with their
 * wallet's signature, and it is applied in the same transaction as that decision. What an action needs from
 * outside (the ord server's blocks, Discord's roles, a destination's addresses) its `prepare` asks before any
 * transaction opens: a transaction never waits on a remote (on the embedded database it would hold every request
 * of the site meanwhile). The route and the admin page's forms both go through `runOrPropose`, so the two ways in
 * keep one rule.
 */
import type { AppLoadContext } from "react-router";
import { z } from "zod";
import { API_ROUTES } from "../api/index.ts";
import {
  APPROVAL_ACTIONS,
  APPROVAL_TTL_MS,
  approvalMessage,
  isCovered,
  parseApprovalMessage,
  summaries,
  type ApprovalKind,
  type ApprovalPolicy,
} from "../domain/approvals.ts";
import { now } from "../domain/clock.ts";
import { badRequest, conflict, forbidden, notFound, unauthorized } from "../domain/errors.ts";
import { isGiveawayEnded } from "../domain/giveaways.ts";
import { isFreshTimestamp } from "../domain/messages.ts";
import { pointsToUnits, unitsToPoints } from "../domain/rewards.ts";
import { verifySignedMessage } from "../domain/signature.ts";
import { ASSIGNABLE_ROLES, refusalFor, type MemberRole, type Requirement } from "../domain/team.ts";
import type { Queryable, Sql } from "../../db/client.server.ts";
import {
  decideApproval,
  getApproval,
  getPolicy,
  lockApproval,
  proposeApproval,
  setPolicy,
  type Approval,
} from "../../db/queries/approvals.server.ts";
import { recordAudit, type Actor } from "../../db/queries/audit.server.ts";
import { recordUsedSignature } from "../../db/queries/auth.server.ts";
import {
  cancelSchedule,
  createSchedule,
  previewSchedule,
  scheduleByVersion,
  scheduleInForce,
  type NewSchedule,
} from "../../db/queries/boosts.server.ts";
import { listRules } from "../../db/queries/discord.server.ts";
import { deleteGiveaway, getGiveaway } from "../../db/queries/giveaways.server.ts";
import { addPoints, clearPoints, getBalanceUnits, recalculateAllPoints, resetNegativeBalances } from "../../db/queries/points.server.ts";
import { addMember, removeMember, roleOf } from "../../db/queries/team.server.ts";
import { inTransaction, isTransaction } from "../../db/queries/transaction.server.ts";
import * as webhooks from "../../db/queries/webhooks.server.ts";
import { withDrawChain } from "../../indexer/draw-chain.server.ts";
import { readDrawChain, selectWinners } from "../../indexer/draws.server.ts";
import type { AdminActor } from "./auth.server.ts";
import { checkRules, previewRules, storeRules } from "./discord-admin.server.ts";
import { checkDestination, DestinationError } from "./public-destination.server.ts";

/** What an action runs with: the database (the approval's transaction when it is approved) and the settings. */
export type ActionContext = Pick<AppLoadContext, "sql" | "config">;

type Preview = { before: unknown; after: unknown };

export type Approvable<I, R = unknown, P = unknown> = {
  kind: ApprovalKind;
  /** The API operation it is (its contract's `requires` is what doing it needs). */
  operation: string;
  /** The input as it is kept (JSON) and read back to apply it. */
  stored: z.ZodType<I>;
  /** What doing this particular one needs beyond its route's permission (deleting a closed giveaway). */
  extraRequirement?(sql: Queryable, input: I): Promise<Requirement | null>;
  /** Who may give the second signature when it is not whoever may do it: the owner's team changes are co-signed by an admin. */
  approver?: Requirement;
  /** Refuses bad input before anything is kept (a webhook's destination). */
  check?(context: ActionContext, input: I): Promise<void>;
  covered(sql: Queryable, policy: ApprovalPolicy, input: I): Promise<boolean>;
  describe(context: ActionContext, input: I): Promise<{ summary: string; preview: Preview }>;
  /**
   * What applying it needs from outside, asked before any transaction (on the pool, never the approval's
   * transaction); it may refuse. `apply` gets the answer. Without it, applying asks nothing outside.
   */
  prepare?(context: ActionContext, input: I): Promise<P>;
  /** Applies it (inside the caller's transaction when there is one); answers the route's success data. No remote calls here. */
  apply(context: ActionContext, input: I, actor: Actor, prepared: P): Promise<R>;
};

/** Keeps an approvable's input, answer and prepared types (inferred from `stored`, `apply` and `prepare`). */
const approvable = <I, R, P = undefined>(definition: Approvable<I, R, P>): Approvable<I, R, P> => definition;

const byPolicy =
  (kind: ApprovalKind) =>
  async (_sql: Queryable, policy: ApprovalPolicy): Promise<boolean> =>
    isCovered(policy, kind);

const points = async (sql: Queryable, address: string) => unitsToPoints(await getBalanceUnits(sql, address));

// Points --------------------------------------------------------------------------------------------------

const addPointsInput = z.object({ address: z.string(), amount: z.number(), description: z.string().nullish() });
export const ADD_POINTS = approvable({
  kind: "add-points",
  operation: "addPoints",
  stored: addPointsInput,
  covered: async (_sql, policy, input) => isCovered(policy, "add-points", input.amount),
  async describe({ sql }, input) {
    const before = await points(sql, input.address);
    return {
      summary: summaries.addPoints(input.address, input.amount),
      preview: { before: { points: before }, after: { points: unitsToPoints(pointsToUnits(before) + pointsToUnits(input.amount)) } },
    };
  },
  apply: async ({ sql }, input, actor) => ({
    success: true as const,
    ...(await addPoints(sql, { address: input.address, points: input.amount, description: input.description, actor })),
  }),
});

const addressInput = z.object({ address: z.string() });
const clearInput = addressInput.extend({ reason: z.string().nullish() });
export const CLEAR_POINTS = approvable({
  kind: "clear-points",
  operation: "clearPoints",
  stored: clearInput,
  covered: async (sql, policy, input) => isCovered(policy, "clear-points", await points(sql, input.address)),
  async describe({ sql }, input) {
    return {
      summary: summaries.clearPoints(input.address),
      preview: { before: { points: await points(sql, input.address) }, after: { points: 0 } },
    };
  },
  apply: async ({ sql }, input, actor) => ({
    success: true as const,
    ...(await clearPoints(sql, { address: input.address, reason: input.reason, actor })),
  }),
});

/** At most this many wallets are named in a repair's preview; the rest are counted. */
const PREVIEW_WALLETS = 50;

const noInput = z.object({});
export const RESET_NEGATIVE_BALANCES = approvable({
  kind: "reset-negative-balances",
  operation: "resetNegativeBalances",
  stored: noInput,
  covered: byPolicy("reset-negative-balances"),
  async describe({ sql }) {
    const rows = await sql<{ address: string; units: number }[]>`
      select address, units from wallet_balances where units < 0 order by units, address`;
    const listed = rows.slice(0, PREVIEW_WALLETS);
    return {
      summary: summaries.resetNegativeBalances(),
      preview: {
        before: { negativeBalances: rows.length, points: Object.fromEntries(listed.map((row) => [row.address, unitsToPoints(row.units)])) },
        after: { negativeBalances: 0, points: Object.fromEntries(listed.map((row) => [row.address, 0])) },
      },
    };
  },
  apply: async ({ sql }, _input, actor) => ({ success: true as const, ...(await resetNegativeBalances(sql, actor)) }),
});

export const RECALCULATE_POINTS = approvable({
  kind: "recalculate-points",
  operation: "recalculatePoints",
  stored: noInput,
  covered: byPolicy("recalculate-points"),
  async describe({ sql }) {
    // The balances whose cached value is not their ledger's sum: what a recalculation would change.
    const rows = await sql<{ address: string; cached: number; ledger: number }[]>`
      select w.address, w.units as cached, coalesce(l.units, 0)::int8 as ledger
      from wallet_balances w left join (select address, sum(amount) as units from points_ledger group by address) l using (address)
      where w.units <> coalesce(l.units, 0)
      order by w.address`;
    const listed = rows.slice(0, PREVIEW_WALLETS);
    return {
      summary: summaries.recalculatePoints(),
      preview: {
        before: { differing: rows.length, points: Object.fromEntries(listed.map((row) => [row.address, unitsToPoints(row.cached)])) },
        after: { differing: 0, points: Object.fromEntries(listed.map((row) => [row.address, unitsToPoints(row.ledger)])) },
      },
    };
  },
  async apply({ sql }, _input, actor) {
    const { addressesProcessed } = await recalculateAllPoints(sql, actor);
    return { success: true as const, addressesProcessed };
  },
});

// Giveaways -------------------------------------------------------------------------------------------------

const idInput = z.object({ id: z.number().int().min(1) });

const giveawayFacts = async (sql: Queryable, id: number) => {
  const giveaway = await getGiveaway(sql, id);
  const status = giveaway.winnerAddresses.length
    ? "drawn"
    : giveaway.drawBlockHeight !== null
      ? "drawing"
      : isGiveawayEnded(giveaway, now())
        ? "ended"
        : giveaway.active
          ? "active"
          : "inactive";
  return { giveaway, facts: { id, title: giveaway.title, status, entries: giveaway.entriesCount, tickets: giveaway.ticketsCount } };
};

export const DELETE_GIVEAWAY = approvable({
  kind: "giveaway.delete",
  operation: "deleteGiveaway",
  stored: idInput,
  async extraRequirement(sql, input) {
    const giveaway = await getGiveaway(sql, input.id);
    return isGiveawayEnded(giveaway, now()) ? { permission: "giveaways.delete-closed", doing: "delete a closed giveaway" } : null;
  },
  covered: byPolicy("giveaway.delete"),
  async describe({ sql }, input) {
    const { giveaway, facts } = await giveawayFacts(sql, input.id);
    const refunds = giveaway.winnerAddress ? 0 : giveaway.entriesCount;
    return {
      summary: summaries.deleteGiveaway(input.id, giveaway.title),
      preview: { before: facts, after: { deleted: true, entriesRefunded: refunds } },
    };
  },
  apply: async ({ sql }, input, actor) => ({ success: true as const, ...(await deleteGiveaway(sql, input.id, actor)) }),
});

export const SELECT_WINNER = approvable({
  kind: "select-winner",
  operation: "drawGiveawayWinner",
  stored: idInput,
  covered: byPolicy("select-winner"),
  async describe({ sql }, input) {
    const { giveaway, facts } = await giveawayFacts(sql, input.id);
    const after = giveaway.drawVersion === 1 ? "drawn now" : "entries closed at the next block, drawn once 6 blocks sit on top";
    return { summary: summaries.selectWinner(input.id, giveaway.title), preview: { before: facts, after: { status: after } } };
  },
  // The ord server is asked first; an OrdError (it did not answer) is the caller's to answer: 503 from the API, a
  // toast on the page. Inside the approval's transaction the draw's own transactions are that one (inTransaction
  // reuses it), and it reads the answers asked ahead.
  prepare: ({ sql, config }, input) => withDrawChain(config, (chain) => readDrawChain(sql, chain, input.id)),
  apply: ({ sql }, input, actor, chain) => selectWinners(sql, chain, input.id, actor),
});

// Boosts --------------------------------------------------------------------------------------------------

const boostsInput = z.object({
  effectiveFrom: z.coerce.date(),
  rarity: z.object({ Common: z.number(), Rare: z.number(), Epic: z.number(), Legendary: z.number() }),
  tenure: z.array(z.object({ days: z.number(), percent: z.number() })),
  cap: z.number(),
});
const rulesText = (s: Pick<NewSchedule, "rarity" | "tenure" | "cap">) =>
  `${Object.entries(s.rarity)
    .map(([name, percent]) => `${name} ${percent}%`)
    .join(", ")}; tenure ${s.tenure.length ? s.tenure.map((step) => `${step.days}d ${step.percent}%`).join(", ") : "none"}; cap ${s.cap}%`;

export const SET_BOOSTS = approvable({
  kind: "boosts",
  operation: "setBoosts",
  stored: boostsInput,
  covered: byPolicy("boosts"),
  async describe({ sql }, input) {
    const [before, effect] = await Promise.all([
      scheduleInForce(sql, input.effectiveFrom),
      previewSchedule(sql, input, input.effectiveFrom),
    ]);
    return {
      summary: summaries.boosts(input.effectiveFrom, rulesText(input)),
      preview: {
        before: {
          version: before.version,
          rarity: before.rarity,
          tenure: before.tenure,
          cap: before.cap,
          pointsPerDay: effect.before.pointsPerDay,
        },
        after: { rarity: input.rarity, tenure: input.tenure, cap: input.cap, pointsPerDay: effect.after.pointsPerDay },
      },
    };
  },
  apply: ({ sql }, input, actor) => createSchedule(sql, input, actor, now()),
});

export const CANCEL_BOOSTS = approvable({
  kind: "boosts",
  operation: "cancelBoosts",
  stored: z.object({ version: z.number() }),
  covered: byPolicy("boosts"),
  async describe({ sql }, input) {
    const schedule = await scheduleByVersion(sql, input.version);
    if (!schedule?.effectiveFrom) throw notFound(`There is no boost schedule version ${input.version}`);
    return {
      summary: summaries.cancelBoosts(input.version, schedule.effectiveFrom),
      preview: { before: { version: input.version, cancelled: false }, after: { version: input.version, cancelled: true } },
    };
  },
  apply: ({ sql }, input, actor) => cancelSchedule(sql, input.version, actor, now()),
});

// Discord rules -----------------------------------------------------------------------------------------------

const rulesInput = z.array(
  z.object({
    roleId: z.string(),
    minStaked: z.number().optional(),
    minPoints: z.number().optional(),
    minLegendary: z.number().optional(),
    minStakedDays: z.number().optional(),
  }),
);
export const DISCORD_RULES = approvable({
  kind: "discord.rules",
  operation: "putDiscordRules",
  stored: rulesInput,
  covered: byPolicy("discord.rules"),
  async describe({ sql }, input) {
    const [before, effect] = await Promise.all([listRules(sql), previewRules(sql, input)]);
    return {
      summary: summaries.discordRules(input.length),
      preview: { before: { rules: before }, after: { rules: input, rolesGained: effect.gain.length, rolesLost: effect.lose.length } },
    };
  },
  prepare: ({ config }, input) => checkRules(config, input),
  apply: ({ sql }, _input, actor, checked) => storeRules(sql, checked, actor),
});

// Webhooks ----------------------------------------------------------------------------------------------------

const webhookInput = z.object({ url: z.string(), events: z.array(z.string()) });

async function checkWebhookDestination(url: string, allowPrivate: boolean): Promise<void> {
  try {
    await checkDestination(url, { allowPrivate });
  } catch (error) {
    if (error instanceof DestinationError) throw badRequest(error.message);
    throw error;
  }
}

export const CREATE_WEBHOOK = approvable({
  kind: "webhooks",
  operation: "createWebhook",
  stored: webhookInput,
  check: ({ config }, input) => checkWebhookDestination(input.url, config.webhooks.allowPrivate),
  covered: byPolicy("webhooks"),
  describe: async (_context, input) => ({
    summary: summaries.createWebhook(input.url, input.events),
    preview: { before: null, after: { url: input.url, events: input.events } },
  }),
  // Checked again when applied: an approval comes hours later, and the name may point elsewhere by then.
  prepare: ({ config }, input) => checkWebhookDestination(input.url, config.webhooks.allowPrivate),
  async apply({ sql }, input, actor) {
    const created = await webhooks.createWebhook(sql, { url: input.url, events: input.events as never, actor });
    return { ...created, active: true as const };
  },
});

async function webhookFacts(sql: Queryable, id: number) {
  const endpoint = await webhooks.findWebhook(sql, id);
  if (!endpoint) throw notFound("Webhook not found");
  return { id, url: endpoint.url, events: endpoint.events, active: endpoint.active };
}

export const DELETE_WEBHOOK = approvable({
  kind: "webhooks",
  operation: "deleteWebhook",
  stored: idInput,
  covered: byPolicy("webhooks"),
  async describe({ sql }, input) {
    const facts = await webhookFacts(sql, input.id);
    return { summary: summaries.deleteWebhook(input.id, facts.url), preview: { before: facts, after: null } };
  },
  async apply({ sql }, input, actor) {
    await webhooks.deleteWebhook(sql, { id: input.id, actor });
    return { success: true as const };
  },
});

export const ROTATE_WEBHOOK_SECRET = approvable({
  kind: "webhooks",
  operation: "rotateWebhookSecret",
  stored: idInput,
  covered: byPolicy("webhooks"),
  async describe({ sql }, input) {
    const facts = await webhookFacts(sql, input.id);
    return {
      summary: summaries.rotateWebhookSecret(input.id, facts.url),
      preview: { before: { ...facts, secret: "the current one" }, after: { ...facts, secret: "a new one, shown once to the approver" } },
    };
  },
  apply: ({ sql }, input, actor) => webhooks.rotateWebhookSecret(sql, { id: input.id, actor }),
});

// The team and the policy ---------------------------------------------------------------------------------

/** An owner's team change or policy change is co-signed by an admin: only the owner proposes them. */
const TEAM_APPROVER: Requirement = { permission: "team.approve", doing: "approve team changes" };

const memberInput = z.object({ address: z.string(), role: z.enum(ASSIGNABLE_ROLES) });
export const ADD_MEMBER = approvable({
  kind: "team",
  operation: "addTeamMember",
  stored: memberInput,
  approver: TEAM_APPROVER,
  async check({ config }, input) {
    if (input.address === config.adminAddress)
      throw badRequest("That address is the owner (ADMIN_ADDRESS): the owner's role never changes");
  },
  covered: byPolicy("team"),
  async describe({ sql, config }, input) {
    const before = await roleOf(sql, config.adminAddress, input.address);
    return { summary: summaries.addMember(input.address, input.role), preview: { before: { role: before }, after: { role: input.role } } };
  },
  apply: ({ sql, config }, input, actor) =>
    addMember(sql, { ownerAddress: config.adminAddress, address: input.address, role: input.role, actor }),
});

const removeInput = z.object({ address: z.string() });
export const REMOVE_MEMBER = approvable({
  kind: "team",
  operation: "removeTeamMember",
  stored: removeInput,
  approver: TEAM_APPROVER,
  async check({ sql, config }, input) {
    if (input.address === config.adminAddress) throw badRequest("The owner (ADMIN_ADDRESS) cannot be removed from the team");
    if (!(await roleOf(sql, config.adminAddress, input.address))) throw badRequest("No member has that address");
  },
  covered: byPolicy("team"),
  async describe({ sql, config }, input) {
    const before = await roleOf(sql, config.adminAddress, input.address);
    return { summary: summaries.removeMember(input.address), preview: { before: { role: before }, after: null } };
  },
  async apply({ sql, config }, input, actor) {
    await removeMember(sql, { ownerAddress: config.adminAddress, address: input.address, actor });
    return { success: true as const };
  },
});

const policyInput = z.object({ pointsAbove: z.number().nullable(), actions: z.array(z.enum(APPROVAL_ACTIONS)) });
export const SET_POLICY = approvable({
  kind: "approvals.policy",
  operation: "setApprovalPolicy",
  stored: policyInput,
  approver: TEAM_APPROVER,
  covered: async (_sql, policy) => isCovered(policy, "approvals.policy"),
  async describe({ sql }, input) {
    const before = await getPolicy(sql);
    return {
      summary: summaries.policy(input),
      preview: { before: { pointsAbove: before.pointsAbove, actions: before.actions }, after: input },
    };
  },
  apply: ({ sql }, input, actor) => setPolicy(sql, input, actor),
});

const APPROVABLES = [
  ADD_POINTS,
  CLEAR_POINTS,
  RESET_NEGATIVE_BALANCES,
  RECALCULATE_POINTS,
  DELETE_GIVEAWAY,
  SELECT_WINNER,
  SET_BOOSTS,
  CANCEL_BOOSTS,
  DISCORD_RULES,
  CREATE_WEBHOOK,
  DELETE_WEBHOOK,
  ROTATE_WEBHOOK_SECRET,
  ADD_MEMBER,
  REMOVE_MEMBER,
  SET_POLICY,
] as const;

function approvableOf(operation: string): Approvable<unknown> {
  const found = APPROVABLES.find((candidate) => candidate.operation === operation);
  if (!found) throw new Error(`no approvable action for ${operation}`);
  return found;
}

/** What doing `operation` needs: its route's contract says (every approvable operation is an admin route). */
function requirementOf(operation: string): Requirement {
  const route = API_ROUTES.find((candidate) => candidate.operationId === operation);
  if (!route?.requires) throw new Error(`the contract names no requirement for ${operation}`);
  return route.requires;
}

function refuseRole(role: MemberRole, requirement: Requirement | null): void {
  const refusal = requirement ? refusalFor(role, requirement) : null;
  if (refusal) throw forbidden(refusal);
}

// Asking --------------------------------------------------------------------------------------------------

export type Outcome<R> = { applied: R; pending?: never } | { pending: Approval; applied?: never };

/** Applies an action at once, outside any transaction: what it needs from outside first, then the change. */
async function applyNow<I, R, P>(context: ActionContext, action: Approvable<I, R, P>, input: I, actor: Actor): Promise<R> {
  const prepared = (await action.prepare?.(withoutTransaction(context), input)) as P;
  return action.apply(context, input, actor, prepared);
}

/** `prepare` runs on the pool: a remote is never waited on inside a transaction. */
function withoutTransaction(context: ActionContext): ActionContext {
  if (isTransaction(context.sql)) throw new Error("an action's remote calls must run before its transaction, not inside it");
  return context;
}

/**
 * The one way a covered action is asked, from the API or the admin page: its own checks, then either applied
 * now (no policy covers it) or kept as a pending approval (announced and audited), nothing else changed.
 */
export async function runOrPropose<I, R, P>(
  context: ActionContext,
  actor: AdminActor,
  action: Approvable<I, R, P>,
  input: I,
): Promise<Outcome<R>> {
  refuseRole(actor.role, (await action.extraRequirement?.(context.sql, input)) ?? null);
  await action.check?.(context, input);
  const policy = await getPolicy(context.sql);
  if (!(await action.covered(context.sql, policy, input))) return { applied: await applyNow(context, action, input, actor) };
  const { summary, preview } = await action.describe(context, input);
  const pending = await inTransaction(context.sql, (tx) =>
    proposeApproval(
      tx,
      { kind: action.kind, operation: action.operation, input, summary, preview, proposedBy: actor.address, ttlMs: APPROVAL_TTL_MS },
      { kind: "web", address: actor.address },
    ),
  );
  return { pending };
}

/** The 202 answer of a request kept for approval. */
export function pendingAnswer(approval: Approval): Response {
  const body = { approvalId: approval.id, status: "pending", summary: approval.summary, expiresAt: approval.expiresAt.toISOString() };
  return Response.json(body, { status: 202, headers: { "Cache-Control": "no-store" } });
}

/** For a route: the action's answer, or its 202 when it waits for a second signature. */
export async function answerOrPending<I, R, P>(
  context: ActionContext,
  actor: AdminActor,
  action: Approvable<I, R, P>,
  input: I,
): Promise<R | Response> {
  const outcome = await runOrPropose(context, actor, action, input);
  return outcome.pending ? pendingAnswer(outcome.pending) : outcome.applied;
}

// Deciding --------------------------------------------------------------------------------------------------

function requirePending(approval: Approval): void {
  if (approval.status === "expired") {
    throw conflict(`Approval #${approval.id} expired at ${approval.expiresAt.toISOString()} unapproved: ask for it again`);
  }
  if (approval.status !== "pending") throw conflict(`Approval #${approval.id} was already ${approval.status}`);
}

type Signed = { message: string; signature: string };

/**
 * Whether `approver` may approve `approval` with `signed`, as the database reads now: it is pending, the approver
 * is not its proposer, has the right to do it (for the owner's team changes: an admin's), and signed
 * `Approve Spooks action #{id}: {summary}. Timestamp: {ISO}` within 10 minutes. Answers the action and its input.
 */
async function approvalChecked(sql: Queryable, approval: Approval, approver: AdminActor, signed: Signed) {
  requirePending(approval);
  if (approval.proposedBy === approver.address) throw forbidden("You proposed this action: a different member must approve it");
  const approvable = approvableOf(approval.operation);
  const input = approvable.stored.parse(approval.input);
  refuseRole(approver.role, approvable.approver ?? requirementOf(approval.operation));
  refuseRole(approver.role, (await approvable.extraRequirement?.(sql, input)) ?? null);
  requireApprovalSignature(approval, approver.address, signed);
  return { approvable, input };
}

/**
 * Approves and applies a pending action. Everything is checked first, then what the action needs from outside is
 * asked (no transaction open), then one transaction checks it all again under the approval's lock, uses the
 * signature once, records the decision and its audit row, and applies the action. Anything refused leaves the
 * approval pending and the signature unused.
 */
export async function approve(
  context: ActionContext,
  approver: AdminActor,
  id: number,
  signed: Signed,
): Promise<{ approval: Approval; result: unknown }> {
  const unlocked = await approvalChecked(context.sql, await getApproval(context.sql, id), approver, signed);
  const prepared = await unlocked.approvable.prepare?.(withoutTransaction(context), unlocked.input);
  return inTransaction(context.sql, async (tx) => {
    const approval = await lockApproval(tx, id);
    const { approvable, input } = await approvalChecked(tx, approval, approver, signed);
    const fresh = await recordUsedSignature(tx, { address: approver.address, ...signed, action: "approval" });
    if (!fresh) throw unauthorized("This signature has already been used");
    await decideApproval(tx, id, { status: "approved", decidedBy: approver.address, ...signed });
    await recordAudit(tx, approver, "approval.approve", `approval:${id}`, { action: approval.action, summary: approval.summary });
    const actor: Actor = {
      kind: "web",
      address: approval.proposedBy,
      approval: { id, proposedBy: approval.proposedBy, approvedBy: approver.address },
    };
    const result = await approvable.apply({ ...context, sql: tx as unknown as Sql }, input, actor, prepared);
    return { approval: { ...approval, status: "approved", decidedBy: approver.address, decidedAt: now() }, result };
  });
}

function requireApprovalSignature(approval: Approval, address: string, signed: Signed): void {
  const parsed = parseApprovalMessage(signed.message);
  if (!parsed || parsed.id !== approval.id || signed.message !== approvalMessage(approval.id, approval.summary, parsed.timestamp)) {
    throw unauthorized(
      `The signed message is not approval #${approval.id}'s: sign "${approvalMessage(approval.id, approval.summary, now())}"`,
    );
  }
  verifySignedMessage(signed.message, address, signed.signature);
  if (!isFreshTimestamp(parsed.timestamp, now())) {
    throw unauthorized("The signed message has expired: its timestamp is more than 10 minutes from server time");
  }
}

/** Ends a pending approval unapplied: its proposer withdraws it, or a member who could approve it refuses it. */
export async function reject(context: ActionContext, member: AdminActor, id: number): Promise<Approval> {
  return inTransaction(context.sql, async (tx) => {
    const approval = await lockApproval(tx, id);
    requirePending(approval);
    if (approval.proposedBy !== member.address) {
      const approvable = approvableOf(approval.operation);
      refuseRole(member.role, approvable.approver ?? requirementOf(approval.operation));
    }
    await decideApproval(tx, id, { status: "rejected", decidedBy: member.address });
    await recordAudit(tx, member, "approval.reject", `approval:${id}`, { action: approval.action, summary: approval.summary });
    return { ...approval, status: "rejected", decidedBy: member.address, decidedAt: now() };
  });
}
