/**
 * Boost schedules (issue 26, items 1 and 2): versioned and append-only. The schedule in force at hour H is
 * the one with the latest effective_from at or before H (the highest version among equals); with none, the
 * built-in defaults (everything 100%: the seed's economy). A new schedule starts at a whole hour not in the
 * past, after every hour already credited, so it never changes an hour already credited.
 */
import { boostRulesText, DEFAULT_SCHEDULE, type BoostRules, type BoostSchedule, type TenureStep } from "../../app/domain/boosts.ts";
import { HOUR_MS } from "../../app/domain/clock.ts";
import { badRequest, conflict, notFound } from "../../app/domain/errors.ts";
import { notificationText } from "../../app/domain/notifications.ts";
import { REWARD_TIERS } from "../../app/domain/rewards.ts";
import type { Queryable } from "../client.server.ts";
import { combinedPercentCase } from "./boost-sql.server.ts";
import { actorLabel, recordAudit, type Actor } from "./audit.server.ts";
import { notify } from "./notifications.server.ts";
import { inTransaction } from "./transaction.server.ts";

/** The advisory lock a schedule change holds exclusively and an hour's credit shares. */
export const BOOST_LOCK_CLASS = 727_104;

type ScheduleRow = {
  version: number;
  effectiveFrom: Date;
  commonPercent: number;
  rarePercent: number;
  epicPercent: number;
  legendaryPercent: number;
  tenure: TenureStep[];
  capPercent: number;
  createdBy: string;
  createdAt: Date;
};

function schedule(row: ScheduleRow): BoostSchedule {
  return {
    version: row.version,
    effectiveFrom: row.effectiveFrom,
    rarity: { Common: row.commonPercent, Rare: row.rarePercent, Epic: row.epicPercent, Legendary: row.legendaryPercent },
    tenure: row.tenure,
    cap: row.capPercent,
    createdAt: row.createdAt,
    createdBy: row.createdBy,
  };
}

/** Schedules not cancelled (migration 0030): a cancelled upcoming schedule never comes into force. */
const notCancelled = (sql: Queryable) =>
  sql`not exists (select 1 from boost_schedule_cancellations c where c.version = boost_schedules.version)`;

/** The schedule in force for the hour starting at `hour` (the defaults when none was ever set before it). */
export async function scheduleInForce(sql: Queryable, hour: Date): Promise<BoostSchedule> {
  const [row] = await sql<ScheduleRow[]>`
    select * from boost_schedules where effective_from <= ${hour} and ${notCancelled(sql)}
    order by effective_from desc, version desc limit 1`;
  return row ? schedule(row) : DEFAULT_SCHEDULE;
}

export async function scheduleByVersion(sql: Queryable, version: number): Promise<BoostSchedule | null> {
  const [row] = await sql<ScheduleRow[]>`select * from boost_schedules where version = ${version}`;
  return row ? schedule(row) : null;
}

/**
 * `{ current, upcoming, history }` at `at`: the schedule in force now, those that start later (soonest first;
 * one replaced by a later version with the same start is left out), and those that were in force before
 * (newest first, the defaults not listed).
 */
export async function boostSchedules(
  sql: Queryable,
  at: Date,
): Promise<{ current: BoostSchedule; upcoming: BoostSchedule[]; history: BoostSchedule[] }> {
  const rows = (await sql<ScheduleRow[]>`select * from boost_schedules where ${notCancelled(sql)} order by effective_from, version`).map(
    schedule,
  );
  // Among schedules with the same start, the highest version wins.
  const winners = rows.filter(
    (row) => !rows.some((other) => other.effectiveFrom!.getTime() === row.effectiveFrom!.getTime() && other.version! > row.version!),
  );
  const started = winners.filter((row) => row.effectiveFrom! <= at);
  const current = started.at(-1) ?? DEFAULT_SCHEDULE;
  return {
    current,
    upcoming: winners.filter((row) => row.effectiveFrom! > at),
    history: started.slice(0, -1).reverse(),
  };
}

export type NewSchedule = BoostRules & { effectiveFrom: Date };

const rulesOf = (s: BoostSchedule) => ({
  version: s.version,
  effectiveFrom: s.effectiveFrom,
  rarity: s.rarity,
  tenure: s.tenure,
  cap: s.cap,
});

/** Records a new schedule (validated by its route) and its audit row: what would have been in force then → this. */
export async function createSchedule(sql: Queryable, input: NewSchedule, actor: Actor, at: Date): Promise<BoostSchedule> {
  const { effectiveFrom } = input;
  if (effectiveFrom.getTime() % HOUR_MS !== 0) throw badRequest("effectiveFrom must be a whole hour (minutes, seconds and milliseconds 0)");
  if (effectiveFrom < at) throw badRequest("effectiveFrom must not be in the past");
  return inTransaction(sql, async (tx) => {
    // Serialises schedule changes with accruals (which hold it shared): one that credited an hour before this
    // is seen below; one after this reads this schedule.
    await tx`select pg_advisory_xact_lock(${BOOST_LOCK_CLASS}, 0)`;
    const [credited] = await tx<{ hour: Date | null }[]>`select max(hour) as hour from accrual_runs`;
    if (credited.hour && credited.hour >= effectiveFrom) {
      throw conflict(`The hour ${credited.hour.toISOString()} is already credited; a schedule starts after the last credited hour`);
    }
    const before = await scheduleInForce(tx, effectiveFrom);
    const [row] = await tx<ScheduleRow[]>`
      insert into boost_schedules (effective_from, common_percent, rare_percent, epic_percent, legendary_percent, tenure, cap_percent,
                                   created_by, created_at)
      values (${effectiveFrom}, ${input.rarity.Common}, ${input.rarity.Rare}, ${input.rarity.Epic}, ${input.rarity.Legendary},
              ${tx.json(input.tenure.map(({ days, percent }) => ({ days, percent })))}, ${input.cap}, ${actorLabel(actor)}, ${at})
      returning *`;
    const created = schedule(row);
    await recordAudit(
      tx,
      actor,
      "boosts.set",
      `boosts:${created.version}`,
      { version: created.version, effectiveFrom: effectiveFrom.toISOString() },
      { before: rulesOf(before), after: rulesOf(created) },
    );
    // Holders hear of it when it is saved, before it starts (issue 33, item 3): the bell and every channel.
    const version = created.version!;
    await notify(
      tx,
      [
        {
          event: "boosts.scheduled",
          subject: version,
          ...notificationText.boostsScheduled({ version, effectiveFrom, rules: boostRulesText(created) }),
          data: { ...rulesOf(created), version, effectiveFrom: effectiveFrom.toISOString(), cancelled: false },
        },
      ],
      at,
    );
    return created;
  });
}

/**
 * Cancels an upcoming schedule (issue 33, item 7): one that has not started (the database refuses the others
 * too, migration 0030). Audited, and announced as its saving was. Answers the schedule cancelled.
 */
export async function cancelSchedule(sql: Queryable, version: number, actor: Actor, at: Date): Promise<BoostSchedule> {
  return inTransaction(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(${BOOST_LOCK_CLASS}, 0)`;
    const found = await scheduleByVersion(tx, version);
    if (!found) throw notFound(`There is no boost schedule version ${version}`);
    const [cancelled] = await tx<{ version: number }[]>`select version from boost_schedule_cancellations where version = ${version}`;
    if (cancelled) throw conflict(`Boost schedule version ${version} is already cancelled`);
    if (found.effectiveFrom! <= at) {
      throw conflict(
        `Boost schedule version ${version} started at ${found.effectiveFrom!.toISOString()}: only an upcoming one can be cancelled`,
      );
    }
    await tx`
      insert into boost_schedule_cancellations (version, cancelled_at, cancelled_by)
      values (${version}, ${at}, ${actorLabel(actor)})`;
    await recordAudit(
      tx,
      actor,
      "boosts.cancel",
      `boosts:${version}`,
      { version, effectiveFrom: found.effectiveFrom!.toISOString() },
      { before: { ...rulesOf(found), cancelled: false }, after: { ...rulesOf(found), cancelled: true } },
    );
    await notify(
      tx,
      [
        {
          event: "boosts.scheduled",
          subject: `${version}:cancelled`,
          ...notificationText.boostsCancelled({ version, effectiveFrom: found.effectiveFrom! }),
          data: { version, effectiveFrom: found.effectiveFrom!.toISOString(), cancelled: true },
        },
      ],
      at,
    );
    return found;
  });
}

export type SchedulePreview = {
  /** The hour the preview is for (tenure counted to it). */
  at: Date;
  wallets: number;
  items: number;
  /** Points per day for every open stake: under the schedule in force then, and under the new one. */
  before: { pointsPerDay: number; version: number | null };
  after: { pointsPerDay: number };
  byRarity: { rarity: string; items: number; before: number; after: number }[];
};

/**
 * What a schedule would change (the /admin preview, `spooks-admin boosts set --dry-run`): points per day for
 * the whole catalogue's open stakes as they are now, with tenure counted to `hour`, under the schedule in force
 * then → under `rules`. Exact: sums of whole percentages times the tier rates.
 */
export async function previewSchedule(sql: Queryable, rules: BoostRules, hour: Date): Promise<SchedulePreview> {
  const current = await scheduleInForce(sql, hour);
  const beforeCase = combinedPercentCase(current, hour, "s.rarity", "s.tenure_from");
  const afterCase = combinedPercentCase(rules, hour, "s.rarity", "s.tenure_from");
  const tiers = [...REWARD_TIERS].sort((a, b) => b.minStaked - a.minStaked);
  const rate = `case ${tiers
    .slice(0, -1)
    .map((tier) => `when w.n >= ${tier.minStaked} then ${tier.dailyRatePerItem}`)
    .join(" ")} else ${tiers[tiers.length - 1].dailyRatePerItem} end`;
  const rows = await sql<{ rarity: string; items: number; before: number; after: number; wallets: number }[]>`
    with per_item as (
      select s.address, s.rarity, ${sql.unsafe(beforeCase)} as before, ${sql.unsafe(afterCase)} as after
      from stakes s where s.ended_at is null
    ), wallets as (
      select address, count(*) as n from per_item group by address
    )
    select p.rarity, count(*)::int as items, count(distinct p.address)::int as wallets,
           coalesce(sum((${sql.unsafe(rate)}) * p.before), 0)::int8 as before,
           coalesce(sum((${sql.unsafe(rate)}) * p.after), 0)::int8 as after
    from per_item p join wallets w using (address)
    group by p.rarity order by p.rarity`;
  const [{ wallets }] = await sql<{ wallets: number }[]>`select count(distinct address)::int as wallets from stakes where ended_at is null`;
  // Sums of rate × percent: points per day × 100.
  const points = (value: number) => value / 100;
  return {
    at: hour,
    wallets,
    items: rows.reduce((sum, row) => sum + row.items, 0),
    before: { pointsPerDay: points(rows.reduce((sum, row) => sum + row.before, 0)), version: current.version },
    after: { pointsPerDay: points(rows.reduce((sum, row) => sum + row.after, 0)) },
    byRarity: rows.map((row) => ({ rarity: row.rarity, items: row.items, before: points(row.before), after: points(row.after) })),
  };
}
