/**
 * Discord holder roles follow the truth (issue 25, items 4 and 5), in the indexer's process.
 *
 * The role sync (every DISCORD_SYNC_INTERVAL_S, default 15 s) derives what changed by comparing: every
 * linked member's earned roles (the rules over their standing now, one query) against the roles it granted
 * (discord_role_grants), and sends only the difference. No queue is written by stakes, points or
 * transfers: whatever changes a standing (an indexer pass ending a stake, an unstake, points spent, an
 * unlink, time passing for minStakedDays) is seen at the next tick. The reconciliation sweep (every
 * DISCORD_SWEEP_INTERVAL_H, default 6 h, and `spooks-admin discord sync`) reads every linked member from
 * Discord and fixes what differs from the rules, whoever changed it; the difference it found is recorded
 * and exported in /metrics. Only roles named in the rules are ever touched.
 *
 * Discord's refusals: 429s are the library's (it waits Retry-After); a member not in the guild (404
 * 10007) is marked absent and skipped until a sweep finds them again; a role the bot cannot assign
 * (403 50013) or that is gone (404 10011) is reported once (discord_problems) and not tried again until
 * the rules are saved; the bot token refused (401) stops the sync and tells the admin.
 */
import { DiscordAPIError } from "@discordjs/rest";
import { now } from "../app/domain/clock.ts";
import { earnedRoles } from "../app/domain/discord.ts";
import type { DiscordConfig } from "../app/utils/env.server.ts";
import { DISCORD_CODES, discordClient, type DiscordClient } from "../app/utils/discord.server.ts";
import type { Logger } from "../app/utils/logger.server.ts";
import type { Sql } from "../db/client.server.ts";
import { recordAudit, SYSTEM_ACTOR, type Actor } from "../db/queries/audit.server.ts";
import {
  addGrant,
  clearProblem,
  insertSweep,
  lastSweep,
  linkedStandings,
  listGrants,
  listProblems,
  listRules,
  markAbsent,
  markPresent,
  removeGrant,
  reportProblem,
  type SweepRecord,
  type SweepSource,
} from "../db/queries/discord.server.ts";

export type RoleSyncOptions = { sql: Sql; config: DiscordConfig; logger: Logger; client?: DiscordClient };

export type TickResult = { added: number; removed: number; absent: number; errors: number; stopped: boolean };

type Change = { userId: string; roleId: string; action: "add" | "remove"; linked: boolean };

const REASON = "Spooks holder roles";
/** Role changes (and sweep member reads) in flight at once; the library queues them per bucket. */
const CONCURRENCY = 8;

class Stopped extends Error {}

/** The state one run shares: roles found unassignable during it are not tried again. */
type RunState = { blocked: Set<string>; absentUsers: Set<string>; errors: number; stopped: boolean };

async function loadState(sql: Sql): Promise<{ rules: Awaited<ReturnType<typeof listRules>>; blocked: Set<string>; stopped: boolean }> {
  const [rules, problems] = await Promise.all([listRules(sql), listProblems(sql)]);
  return {
    rules,
    blocked: new Set(problems.filter((problem) => problem.roleId).map((problem) => problem.roleId!)),
    stopped: problems.some((problem) => problem.kind === "bad-token"),
  };
}

async function pool<T>(items: T[], work: (item: T) => Promise<void>, concurrency = CONCURRENCY): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * Handles Discord's refusal of one call: answers what the caller should do with the member. Throws Stopped
 * on a refused bot token.
 */
async function judge(
  { sql, logger }: RoleSyncOptions,
  run: RunState,
  error: unknown,
  change: { userId: string; roleId?: string },
): Promise<"absent" | "skip"> {
  const at = now();
  if (error instanceof DiscordAPIError && error.status === 401) {
    run.stopped = true;
    const fresh = await reportProblem(
      sql,
      {
        key: "bad-token",
        kind: "bad-token",
        roleId: null,
        message: "Discord refused the bot token (401): the role sync is stopped until DISCORD_BOT_TOKEN is fixed and the indexer restarted",
      },
      at,
    );
    if (fresh) logger.error({ msg: "discord: the bot token was refused (401); role sync stopped" });
    throw new Stopped();
  }
  if (error instanceof DiscordAPIError && error.status === 404 && error.code === DISCORD_CODES.unknownMember) {
    run.absentUsers.add(change.userId);
    return "absent";
  }
  const roleProblem =
    error instanceof DiscordAPIError &&
    ((error.status === 403 && error.code === DISCORD_CODES.missingPermissions) ||
      (error.status === 404 && error.code === DISCORD_CODES.unknownRole));
  if (roleProblem && change.roleId) {
    run.blocked.add(change.roleId);
    const message =
      error.code === DISCORD_CODES.unknownRole
        ? `The role ${change.roleId} no longer exists in the Discord server: remove its rule`
        : `The bot may not assign the role ${change.roleId} (403 50013 Missing Permissions): move the bot's role above it and give it Manage Roles, then save the rules again`;
    const fresh = await reportProblem(sql, { key: `role:${change.roleId}`, kind: "role-unassignable", roleId: change.roleId, message }, at);
    if (fresh)
      logger.warn({ msg: "discord: a role cannot be assigned; it is skipped until the rules are saved again", roleId: change.roleId });
    return "skip";
  }
  run.errors += 1;
  logger.warn({ msg: "discord: a call failed; retried at the next tick", userId: change.userId, roleId: change.roleId, err: error });
  return "skip";
}

async function applyChange(options: RoleSyncOptions, client: DiscordClient, run: RunState, change: Change): Promise<boolean> {
  if (run.stopped || run.blocked.has(change.roleId) || run.absentUsers.has(change.userId)) return false;
  try {
    if (change.action === "add") await client.addRole(change.userId, change.roleId, REASON);
    else await client.removeRole(change.userId, change.roleId, REASON);
  } catch (error) {
    const verdict = await judge(options, run, error, change);
    if (verdict === "absent") {
      if (change.linked) await markAbsent(options.sql, change.userId, now());
      // Gone from the guild: Discord drops a leaver's roles, so nothing granted stands any more.
      if (change.action === "remove") await removeGrant(options.sql, change.userId, change.roleId);
    }
    return false;
  }
  if (change.action === "add") await addGrant(options.sql, change.userId, change.roleId, now());
  else await removeGrant(options.sql, change.userId, change.roleId);
  return true;
}

/** One tick: earned roles against granted ones, the difference sent to Discord. */
export async function syncRoles(options: RoleSyncOptions, { unlinkedOnly = false } = {}): Promise<TickResult> {
  const { sql, config } = options;
  const client = options.client ?? discordClient(config);
  const state = await loadState(sql);
  const result: TickResult = { added: 0, removed: 0, absent: 0, errors: 0, stopped: state.stopped };
  if (state.stopped) return result;
  const at = now();
  const [standings, grants] = await Promise.all([linkedStandings(sql), listGrants(sql)]);
  const linked = new Map(standings.map((member) => [member.discordUserId, member]));
  const granted = new Map<string, Set<string>>();
  for (const grant of grants) {
    if (!granted.has(grant.discordUserId)) granted.set(grant.discordUserId, new Set());
    granted.get(grant.discordUserId)!.add(grant.roleId);
  }
  const changes: Change[] = [];
  for (const member of standings) {
    if (member.absent || unlinkedOnly) continue;
    const held = granted.get(member.discordUserId) ?? new Set<string>();
    for (const roleId of earnedRoles(state.rules, member.standing, at)) {
      if (!held.has(roleId) && !state.blocked.has(roleId))
        changes.push({ userId: member.discordUserId, roleId, action: "add", linked: true });
    }
  }
  for (const [userId, held] of granted) {
    const member = linked.get(userId);
    if (member?.absent || (unlinkedOnly && member)) continue;
    const earned = new Set(member ? earnedRoles(state.rules, member.standing, at) : []);
    for (const roleId of held) {
      if (!earned.has(roleId) && !state.blocked.has(roleId))
        changes.push({ userId, roleId, action: "remove", linked: member !== undefined });
    }
  }
  const run: RunState = { blocked: state.blocked, absentUsers: new Set(), errors: 0, stopped: false };
  try {
    await pool(changes, async (change) => {
      if (await applyChange(options, client, run, change)) result[change.action === "add" ? "added" : "removed"] += 1;
    });
  } catch (error) {
    if (!(error instanceof Stopped)) throw error;
  }
  return { ...result, absent: run.absentUsers.size, errors: run.errors, stopped: run.stopped };
}

/**
 * The reconciliation sweep: every linked member read from Discord, their rules' roles made to match the
 * rules (a member back in the guild is synced again), the grants set to what Discord holds after.
 */
export async function sweepRoles(options: RoleSyncOptions, source: SweepSource, actor: Actor = SYSTEM_ACTOR): Promise<SweepRecord> {
  const { sql, config } = options;
  const client = options.client ?? discordClient(config);
  const startedAt = now();
  const requestsBefore = client.requests();
  const state = await loadState(sql);
  const record: SweepRecord = {
    startedAt,
    finishedAt: startedAt,
    source,
    members: 0,
    absent: 0,
    added: 0,
    removed: 0,
    difference: 0,
    requests: 0,
    errors: 0,
  };
  if (state.stopped)
    throw new Error("The Discord role sync is stopped: the bot token was refused (401). Fix DISCORD_BOT_TOKEN and restart.");
  // First the accounts no longer linked: the roles granted them go (the members below are judged by reading them).
  const tick = await syncRoles({ ...options, client }, { unlinkedOnly: true });
  const ruled = new Set(state.rules.map((rule) => rule.roleId));
  const run: RunState = { blocked: state.blocked, absentUsers: new Set(), errors: 0, stopped: false };
  const standings = await linkedStandings(sql);
  record.members = standings.length;
  try {
    await pool(standings, async (member) => {
      if (run.stopped) return;
      let roles: string[];
      try {
        roles = (await client.member(member.discordUserId)).roles;
      } catch (error) {
        if ((await judge(options, run, error, { userId: member.discordUserId })) === "absent") {
          await markAbsent(sql, member.discordUserId, now());
        }
        return;
      }
      if (member.absent) await markPresent(sql, member.discordUserId);
      const held = new Set(roles.filter((roleId) => ruled.has(roleId)));
      const earned = new Set(earnedRoles(state.rules, member.standing, now()));
      const changes: Change[] = [
        ...[...earned]
          .filter((roleId) => !held.has(roleId))
          .map((roleId) => ({ userId: member.discordUserId, roleId, action: "add" as const, linked: true })),
        ...[...held]
          .filter((roleId) => !earned.has(roleId))
          .map((roleId) => ({ userId: member.discordUserId, roleId, action: "remove" as const, linked: true })),
      ].filter((change) => !run.blocked.has(change.roleId));
      record.difference += changes.length;
      for (const change of changes) {
        if (await applyChange(options, client, run, change)) record[change.action === "add" ? "added" : "removed"] += 1;
      }
      // The grants become what Discord holds now (a role someone gave by hand counts as granted when earned).
      for (const roleId of held) if (earned.has(roleId)) await addGrant(sql, member.discordUserId, roleId, now());
    });
  } catch (error) {
    if (!(error instanceof Stopped)) throw error;
  }
  record.absent = run.absentUsers.size;
  record.errors = run.errors + tick.errors;
  record.finishedAt = now();
  record.requests = client.requests() - requestsBefore;
  await sql.begin(async (tx) => {
    await insertSweep(tx, record);
    await recordAudit(tx, actor, "discord.sweep", null, {
      source,
      members: record.members,
      absent: record.absent,
      added: record.added,
      removed: record.removed,
      difference: record.difference,
      requests: record.requests,
      errors: record.errors,
      stopped: run.stopped,
    });
  });
  if (run.stopped) throw new Error("Discord refused the bot token (401): the role sync is stopped");
  return record;
}

export type RoleSync = {
  /** Runs a tick now (after the one in flight, if any). */
  tick(): Promise<TickResult | null>;
  stop(): Promise<void>;
};

/** Ticks every syncIntervalMs and sweeps every sweepIntervalMs (the first sweep one interval after start unless none was ever made). */
export function startRoleSync(options: RoleSyncOptions): RoleSync {
  const { sql, config, logger } = options;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const serial = <T>(work: () => Promise<T>): Promise<T | null> => {
    const next = running.then(
      () => (stopped ? null : work()),
      () => (stopped ? null : work()),
    );
    running = next.catch(() => {});
    return next;
  };
  const tick = () =>
    serial(() => syncRoles(options)).catch((error: Error) => {
      logger.error({ msg: "discord role sync failed", err: error });
      return null;
    });
  const sweep = (source: SweepSource) =>
    serial(() => sweepRoles(options, source)).then(
      (record) => record && logger.info({ msg: "discord sweep", ...record }),
      (error: Error) => logger.error({ msg: "discord sweep failed", err: error }),
    );
  // A refused token stopped an earlier run; a restart (after DISCORD_BOT_TOKEN is fixed) tries again.
  running = clearProblem(sql, "bad-token").catch(() => {});
  const ticker = setInterval(() => void tick(), config.syncIntervalMs);
  const sweeper = setInterval(() => void sweep("scheduled"), config.sweepIntervalMs);
  void tick();
  void lastSweep(sql).then(
    (last) => {
      if (!last || now().getTime() - last.finishedAt.getTime() > config.sweepIntervalMs) void sweep("startup");
    },
    () => {},
  );
  logger.info({
    msg: "discord role sync started",
    guild: config.guildId,
    everyMs: config.syncIntervalMs,
    sweepEveryMs: config.sweepIntervalMs,
  });
  return {
    tick,
    stop: async () => {
      stopped = true;
      clearInterval(ticker);
      clearInterval(sweeper);
      await running;
    },
  };
}
