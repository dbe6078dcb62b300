/**
 * Slash commands over HTTP (issue 37; docs/discord.md "Slash commands"): Discord POSTs each interaction to
 * /api/discord/interactions. The Ed25519 signature over the timestamp and the RAW body is checked before
 * anything else (401 otherwise, and for timestamps more than 5 minutes off); a PING is answered PONG; each
 * interaction id is answered once; a command is answered from the same queries as the site's API, within
 * DISCORD_DEFER_AFTER_MS or else deferred (type 5) and edited in through the interaction's webhook.
 */
import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { Routes } from "discord-api-types/v10";
import type { AppLoadContext } from "react-router";
import type { z } from "zod";
import { discordInteraction, interactionSchema } from "../api/discord.ts";
import { hourStart, now } from "../domain/clock.ts";
import {
  giveawaysAnswer,
  INTERACTION_MAX_AGE_S,
  isPersonalCommand,
  LEADERBOARD_SIZE,
  leaderboardAnswer,
  linkAnswer,
  linkFirstAnswer,
  parseCommand,
  pointsAnswer,
  refusalAnswer,
  sitePages,
  stakeAnswer,
  unavailableAnswer,
  verifyAnswer,
  type CommandAnswer,
  type CommandMessage,
  type InteractionOption,
} from "../domain/discord-commands.ts";
import { badRequest, notFound, Refusal } from "../domain/errors.ts";
import { isRowId } from "../domain/ids.ts";
import { blockIntervalMs, isGiveawayOpen } from "../domain/giveaways.ts";
import { unboostedDailyRate } from "../domain/rewards.ts";
import { findLinkByAddress } from "../../db/queries/discord.server.ts";
import { claimInteraction, linkedWalletOf } from "../../db/queries/discord-interactions.server.ts";
import { scheduleInForce } from "../../db/queries/boosts.server.ts";
import { getGiveawayDraw } from "../../db/queries/draws.server.ts";
import { getGiveaway, listGiveaways } from "../../db/queries/giveaways.server.ts";
import { leaderboard, rewardsOf, walletItems } from "../../db/queries/holdings.server.ts";
import { parseOrRefuse } from "../../db/queries/input.server.ts";
import type { Sql } from "../../db/client.server.ts";
import { answer, JSON_BODY_LIMIT, json, readBodyBytes } from "./api.server.ts";
import { siteOf } from "./csrf.server.ts";
import { discordClient } from "./discord.server.ts";
import type { DiscordConfig } from "./env.server.ts";
import type { Logger } from "./logger.server.ts";

export const DEFAULT_DEFER_AFTER_MS = 400;

// The signature -----------------------------------------------------------------------------------------------

const keys = new Map<string, KeyObject>();

function publicKeyOf(hex: string): KeyObject {
  let key = keys.get(hex);
  if (!key) {
    key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(hex, "hex").toString("base64url") }, format: "jwk" });
    keys.set(hex, key);
  }
  return key;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/**
 * Discord's signature: X-Signature-Ed25519 (hex) over X-Signature-Timestamp + the raw body, by the application's
 * key; and the timestamp (Unix seconds) within 5 minutes of `at`, so a captured request cannot be replayed later.
 */
export function checkInteractionSignature(
  publicKeyHex: string,
  headers: { signature: string | null; timestamp: string | null },
  body: Uint8Array,
  at: Date,
): SignatureCheck {
  const { signature, timestamp } = headers;
  if (!signature || !timestamp) return { ok: false, reason: "X-Signature-Ed25519 and X-Signature-Timestamp are required" };
  if (!/^[0-9a-fA-F]{128}$/.test(signature) || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "Invalid request signature" };
  const signed = Buffer.concat([Buffer.from(timestamp, "utf8"), body]);
  if (!verify(null, signed, publicKeyOf(publicKeyHex), Buffer.from(signature, "hex")))
    return { ok: false, reason: "Invalid request signature" };
  if (Math.abs(at.getTime() / 1000 - Number(timestamp)) > INTERACTION_MAX_AGE_S) {
    return { ok: false, reason: "The request's timestamp is more than 5 minutes from server time" };
  }
  return { ok: true };
}

// Answering --------------------------------------------------------------------------------------------------

export type Interaction = z.output<typeof interactionSchema>;
type InteractionResponse = { type: 1 | 4 | 5 | 8; data?: Record<string, unknown> };

/** Interaction types, and the callback types we answer with (discord-api-types' InteractionType, InteractionResponseType). */
const TYPE = { ping: 1, command: 2, autocomplete: 4 } as const;
const CALLBACK = { pong: 1, message: 4, deferred: 5, autocomplete: 8 } as const;

type Answering = { sql: Sql; config: { demo: boolean }; site: string };

/**
 * The answer to a command from a caller whose linked wallet `callerWallet` looks up (only the commands about the
 * caller ask). The figures are the site's API's own: GET /api/rewards, /api/wallet-doginals, /api/giveaways,
 * /api/leaderboard and /api/giveaways/{id}/draw answer from these same functions.
 */
export async function commandAnswer(
  { sql, config, site }: Answering,
  data: { name: string; options?: InteractionOption[] },
  callerWallet: () => Promise<string | null>,
): Promise<CommandAnswer> {
  const parsed = parseCommand(site, data);
  if (!parsed.ok) return parsed.answer;
  const { name, options } = parsed;
  switch (name) {
    case "points": {
      const address = options.wallet ?? (await callerWallet());
      if (!address) return linkFirstAnswer(site, "points");
      const rewards = await rewardsOf(sql, address);
      return pointsAnswer(
        site,
        {
          address,
          points: rewards.unclaimedRewards,
          // The API's dailyRate is the rate credited, boosts included (DECISIONS.md); the base is the tier's alone.
          baseDailyRate: unboostedDailyRate(rewards.stakedCount),
          tier: rewards.rewardTier,
          stakedCount: rewards.stakedCount,
          boostedPerDay: rewards.dailyRate,
          rank: rewards.rank,
          currentHour: rewards.currentHour,
        },
        options.wallet === undefined,
      );
    }
    case "stake": {
      const address = await callerWallet();
      if (!address) return linkFirstAnswer(site, "stake");
      const [items, schedule] = await Promise.all([walletItems(sql, address), scheduleInForce(sql, hourStart(now()))]);
      const staked = items.map((item) => ({
        name: item.name,
        collection: item.collection,
        isStaked: item.isStaked,
        tenurePercent: item.boost?.tenurePercent ?? null,
        tenureDays: item.boost?.tenureDays ?? null,
        nextStep: item.boost?.nextStep ?? null,
      }));
      return stakeAnswer(site, address, staked, schedule.tenure);
    }
    case "giveaways": {
      const at = now();
      const open = (await listGiveaways(sql, blockIntervalMs(config))).filter((giveaway) => isGiveawayOpen(giveaway, at));
      return giveawaysAnswer(site, open);
    }
    case "leaderboard":
      return leaderboardAnswer(site, await leaderboard(sql, LEADERBOARD_SIZE));
    case "verify": {
      const id = options.giveaway!;
      const found = await giveawayOrNull(sql, id, blockIntervalMs(config));
      if (!found)
        return refusalAnswer(sitePages(site).giveaways, "No such giveaway", `There is no giveaway #${id}. /giveaways lists the open ones.`);
      const draw = await getGiveawayDraw(sql, id);
      return verifyAnswer(site, { id, title: found.title, ...draw });
    }
    case "link":
      return linkAnswer(site, await callerWallet());
  }
}

async function giveawayOrNull(sql: Sql, id: number, blockMs: number) {
  if (!isRowId(id)) return null;
  try {
    return await getGiveaway(sql, id, blockMs);
  } catch (error) {
    if (error instanceof Refusal && error.status === 404) return null;
    throw error;
  }
}

const callerOf = (interaction: Interaction) => interaction.member?.user.id ?? interaction.user?.id ?? null;

const sleep = (ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  return { promise, cancel: () => clearTimeout(timer) };
};

/** The message as the interaction's webhook takes it in an edit: the ephemeral flag is the deferral's and cannot change. */
function editBody(message: CommandMessage) {
  const { flags: _flags, ...rest } = message;
  return rest;
}

/** A command's answer: at once when ready within the budget, else deferred and edited in when it is. */
async function answerCommand(
  answering: Answering,
  discord: DiscordConfig,
  interaction: Interaction,
  logger: Logger,
): Promise<InteractionResponse> {
  const data = { name: interaction.data?.name ?? "", options: interaction.data?.options };
  const caller = callerOf(interaction);
  const work = commandAnswer(answering, data, () => (caller ? linkedWalletOf(answering.sql, caller) : Promise.resolve(null))).catch(
    (error: unknown) => {
      logger.error({ msg: "slash command failed", command: data.name, err: error });
      return unavailableAnswer(answering.site);
    },
  );
  const budgetMs = discord.deferAfterMs ?? DEFAULT_DEFER_AFTER_MS;
  // 0: every command is deferred (no race at all).
  if (budgetMs > 0) {
    const budget = sleep(budgetMs);
    const first = await Promise.race([work, budget.promise]);
    budget.cancel();
    if (first) return { type: CALLBACK.message, data: first.message };
  }
  void work.then(async (late) => {
    try {
      await discordClient(discord).rest.patch(Routes.webhookMessage(interaction.application_id, interaction.token, "@original"), {
        body: editBody(late.message),
        auth: false,
      });
    } catch (error) {
      logger.error({ msg: "slash command: the deferred answer could not be sent", command: data.name, err: error });
    }
  });
  return { type: CALLBACK.deferred, data: isPersonalCommand(data.name) ? { flags: 64 } : {} };
}

/** What each interaction type gets once its signature and id are accepted. */
async function respond(
  answering: Answering,
  discord: DiscordConfig,
  interaction: Interaction,
  logger: Logger,
): Promise<InteractionResponse> {
  switch (interaction.type) {
    case TYPE.ping:
      return { type: CALLBACK.pong };
    case TYPE.command:
      if (interaction.data && (interaction.data.type ?? 1) !== 1) {
        const refusal = refusalAnswer(answering.site, "Unknown command", "Spooks answers its slash commands only.");
        return { type: CALLBACK.message, data: refusal.message };
      }
      return answerCommand(answering, discord, interaction, logger);
    case TYPE.autocomplete:
      return { type: CALLBACK.autocomplete, data: { choices: [] } };
    default:
      // Buttons of ours are links, and we show no modal: nothing else should arrive.
      return {
        type: CALLBACK.message,
        data: refusalAnswer(answering.site, "Not understood", "Spooks answers its slash commands only.").message,
      };
  }
}

/** POST /api/discord/interactions. */
export async function handleInteraction(request: Request, context: AppLoadContext): Promise<Response> {
  const discord = context.config.discord;
  if (!discord?.publicKey) throw notFound("Not found");
  const body = await readBodyBytes(request, JSON_BODY_LIMIT);
  const signature = checkInteractionSignature(
    discord.publicKey,
    { signature: request.headers.get("x-signature-ed25519"), timestamp: request.headers.get("x-signature-timestamp") },
    body,
    now(),
  );
  if (!signature.ok) return json({ message: signature.reason }, 401);
  let parsedJson: unknown;
  try {
    parsedJson = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    return json({ message: "Malformed JSON body" }, 400);
  }
  const interaction = parseOrRefuse(interactionSchema, parsedJson);
  if (interaction.type !== TYPE.ping && !(await claimInteraction(context.sql, interaction.id, now()))) {
    return json({ message: "This interaction was answered already" }, 409);
  }
  const answering = { sql: context.sql, config: context.config, site: siteOf(request, context).origin };
  return answer(discordInteraction, 200, await respond(answering, discord, interaction, context.logger));
}

/** Runs a command as a test member (the admin's Discord tab): the same answer, without Discord. */
export async function testCommand(
  context: AppLoadContext,
  request: Request,
  input: { command: string; options: Record<string, string | number>; asAddress: string | null },
): Promise<{ ephemeral: boolean; elapsedMs: number; wouldDefer: boolean; message: CommandMessage }> {
  if (input.asAddress !== null && !(await findLinkByAddress(context.sql, input.asAddress))) {
    throw badRequest("That wallet is not linked to a Discord account");
  }
  const options: InteractionOption[] = Object.entries(input.options).map(([name, value]) => ({
    name,
    type: typeof value === "number" ? 4 : 3,
    value,
  }));
  const started = performance.now();
  const result = await commandAnswer(
    { sql: context.sql, config: context.config, site: siteOf(request, context).origin },
    { name: input.command, options },
    async () => input.asAddress,
  );
  const elapsedMs = Math.round((performance.now() - started) * 10) / 10;
  const deferAfter = context.config.discord?.deferAfterMs ?? DEFAULT_DEFER_AFTER_MS;
  return { ephemeral: result.ephemeral, elapsedMs, wouldDefer: elapsedMs > deferAfter, message: result.message };
}
