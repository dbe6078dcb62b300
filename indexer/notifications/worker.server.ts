/**
 * The notification worker (issue 24 item 1; docs/notifications.md "The worker"), in the indexer process every
 * NOTIFY_INTERVAL_S seconds. One pass:
 * 1. raises the timed events whose time has come (`*.closing_soon`, a later `proposal.opened`, `proposal.closed`);
 * 2. fans each new event out: one delivery per channel and target (`targets`), and `fanned_out_at`, in one
 *    transaction, so an event is fanned out whole or not at all;
 * 2b. sends what a channel owes outside the outbox (the confirmation mails of new email subscriptions), outside
 *    any transaction, as every other mail;
 * 3. claims the due deliveries (pending or retrying and due, or `sending` past its lease: a worker that died
 *    holding it) in a transaction, marks them `sending` with a lease, sends each (one target's in order, one
 *    at a time), and records each result where the claim still holds (`claimed_until` is the fencing token),
 *    while the target's next delivery is sent where the channel's receivers act on a repeat once.
 * A crash anywhere leaves either an event not fanned out (fanned out next pass), a delivery not yet claimed
 * (sent next pass), or `sending` ones whose lease runs out: the one in flight, and where receivers act on a repeat
 * once, those whose results were being written (sent again, with the same delivery id: what "once" rests on for
 * each channel is in docs/notifications.md).
 */
import { now, nowMs } from "../../app/domain/clock.ts";
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";
import { silentLogger, type Logger } from "../../app/utils/logger.server.ts";
import type { Queryable, Sql } from "../../db/client.server.ts";
import { raiseTimedEvents } from "../../db/queries/notifications.server.ts";
import type { DeliveryAttempt, DeliveryResult, NotificationChannel, OutboxEvent } from "./channel.server.ts";

export const DEFAULT_LEASE_MS = 60_000;
const FAN_OUT_BATCH = 200;
const CLAIM_BATCH = 100;
/** Targets sent to at once (each target's deliveries go one at a time, in order). */
const TARGETS_AT_ONCE = 8;
/** A channel that threw (a bug, not an answer) is tried again after this. */
const THREW_RETRY_MS = 30_000;

export type WorkerOptions = {
  sql: Sql;
  channels: readonly NotificationChannel[];
  logger?: Logger;
  /** How long a claim holds a delivery (longer than any channel's request time-out). */
  leaseMs?: number;
};

export type PassSummary = {
  raised: number;
  fannedOut: number;
  delivered: number;
  retried: number;
  failed: number;
  /** Mail the channels owed outside the outbox, sent (confirmation mails). */
  queuedSent: number;
};

type EventRow = Omit<OutboxEvent, "id"> & { id: number | string };

const toEvent = (row: EventRow): OutboxEvent => ({ ...row, id: Number(row.id), data: row.data ?? {} });

/** The targets of each event on `channel`, asked once per `targetsKey` where the channel has one. */
async function targetsOfEvents(tx: Queryable, channel: NotificationChannel, events: readonly OutboxEvent[]): Promise<string[][]> {
  const byKey = new Map<string, Promise<string[]>>();
  const targetsOf = (event: OutboxEvent) => {
    if (!channel.targetsKey) return channel.targets(tx, event);
    const key = channel.targetsKey(event);
    if (!byKey.has(key)) byKey.set(key, channel.targets(tx, event));
    return byKey.get(key)!;
  };
  const targets: string[][] = [];
  for (const event of events) targets.push([...new Set(await targetsOf(event))]);
  return targets;
}

/** Step 2: deliveries for every event not fanned out yet, a batch of events in one statement. Answers how many events were. */
export async function fanOut(sql: Sql, channels: readonly NotificationChannel[]): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await sql.begin(async (tx) => {
      const rows = await tx<EventRow[]>`
        select id, event, subject, recipient, occurred_at, title, body, link, data from notification_events
        where fanned_out_at is null order by id limit ${FAN_OUT_BATCH} for update skip locked`;
      const at = now();
      const events = rows.map(toEvent);
      const deliveries: { eventIds: number[]; channels: string[]; targets: string[] } = { eventIds: [], channels: [], targets: [] };
      for (const channel of channels) {
        const targets = await targetsOfEvents(tx, channel, events);
        events.forEach((event, index) => {
          for (const target of targets[index]) {
            deliveries.eventIds.push(event.id);
            deliveries.channels.push(channel.name);
            deliveries.targets.push(target);
          }
        });
      }
      if (deliveries.eventIds.length > 0) {
        await tx`
          insert into notification_deliveries (event_id, channel, target, next_attempt_at, created_at)
          select event_id, channel, target, ${at}, ${at}
          from unnest(${deliveries.eventIds}::int8[], ${deliveries.channels}::text[], ${deliveries.targets}::text[]) as d(event_id, channel, target)
          on conflict (event_id, channel, target) do nothing`;
      }
      if (rows.length)
        await tx`update notification_events set fanned_out_at = ${at} where id = any(${events.map((event) => event.id)}::int8[])`;
      return rows.length;
    });
    total += done;
    if (done < FAN_OUT_BATCH) return total;
  }
}

type Claimed = { id: number; eventId: number; channel: NotificationChannel["name"]; target: string; attempts: number; createdAt: Date };

/** Step 3a: claims up to `limit` due deliveries of these channels, in a transaction; answers them with the claim's end. */
export async function claimDue(sql: Sql, channelNames: readonly string[], leaseMs: number, limit = CLAIM_BATCH) {
  const at = now();
  const until = new Date(at.getTime() + leaseMs);
  const rows = await sql<(Claimed & { id: string | number; eventId: string | number })[]>`
    update notification_deliveries d set state = 'sending', claimed_until = ${until}
    from (
      select id from notification_deliveries
      where channel = any(${channelNames as string[]}::text[])
        and ((state in ('pending', 'retrying') and next_attempt_at <= ${at}) or (state = 'sending' and claimed_until <= ${at}))
      order by next_attempt_at, id limit ${limit}
      for update skip locked
    ) due
    where d.id = due.id
    returning d.id, d.event_id, d.channel, d.target, d.attempts, d.created_at`;
  const claimed = rows.map((row) => ({ ...row, id: Number(row.id), eventId: Number(row.eventId) })).sort((a, b) => a.id - b.id);
  return { claimed, until };
}

/** What a receiver answered, as kept for the admin: no terminal escape (it is printed by spooks-admin), 2,000 characters at most. */
const storedAnswer = (text: string) => withoutControlCharacters(text).slice(0, 2000);

type Recorded = { row: Claimed; result: DeliveryResult };

/**
 * Step 3c: records attempts' results in one statement, each only while this worker's claim (`until`) still holds
 * it. Its commit does not wait for the disk (`synchronous_commit` off for its own transaction): that wait cost more
 * than the POST it records. A database crash may lose the last results recorded; those deliveries are then sent
 * again with their same id, as after a worker's crash. Answers the ids whose claim had run out.
 */
export async function recordResults(sql: Sql, until: Date, results: readonly Recorded[]): Promise<number[]> {
  if (results.length === 0) return [];
  const at = now();
  const column = <T>(pick: (entry: Recorded) => T) => results.map(pick);
  const states = column(({ result }) => (result.outcome === "retry" ? "retrying" : result.outcome));
  const [, rows] = await sql.begin((tx) => [
    tx`set local synchronous_commit = off`,
    tx`
      update notification_deliveries d set state = r.state, attempts = d.attempts + 1, claimed_until = null,
        last_status_code = r.status_code, last_error = r.error,
        delivered_at = case when r.state = 'delivered' then ${at}::timestamptz else d.delivered_at end,
        next_attempt_at = coalesce(r.retry_at, d.next_attempt_at)
      from unnest(${column(({ row }) => row.id)}::int8[], ${states}::text[], ${column(({ result }) => result.statusCode ?? null)}::int[],
                  ${column(({ result }) => ("error" in result ? storedAnswer(result.error) : null))}::text[],
                  ${column(({ result }) => (result.outcome === "retry" ? result.retryAt.toISOString() : null))}::text[]::timestamptz[])
        as r(id, state, status_code, error, retry_at)
      where d.id = r.id and d.state = 'sending' and d.claimed_until = ${until}
      returning d.id`,
  ]);
  const held = new Set(rows.map((row) => Number(row.id)));
  return results.map(({ row }) => row.id).filter((id) => !held.has(id));
}

/**
 * The results of one claimed batch, written as they come: one statement at a time, each with every result that
 * arrived while the one before was written (a result costs about what its POST does when written alone).
 */
function resultRecorder(sql: Sql, until: Date, logger: Logger) {
  let queued: Recorded[] = [];
  let writing: Promise<void> | null = null;
  // Kept until `written()` is awaited: a write nobody awaits yet must not end the process as an unhandled rejection.
  let failure: { error: unknown } | null = null;
  const writeQueued = async () => {
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      for (const id of await recordResults(sql, until, batch)) {
        logger.warn({ msg: "notification delivery's claim ran out before its result was recorded", delivery: id });
      }
    }
  };
  return {
    add(row: Claimed, result: DeliveryResult): void {
      queued.push({ row, result });
      writing ??= writeQueued()
        .catch((error: unknown) => void (failure ??= { error }))
        .finally(() => (writing = null));
    },
    /** Resolves once every result added so far is written. */
    written: async (): Promise<void> => {
      while (writing) await writing;
      if (failure) throw failure.error;
    },
  };
}

/** Gives back claimed deliveries not attempted (their target asked to wait), due at `at`, their attempts unchanged. */
async function release(sql: Sql, ids: readonly number[], until: Date, at: Date): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    update notification_deliveries set state = case when attempts = 0 then 'pending' else 'retrying' end,
      claimed_until = null, next_attempt_at = ${at}
    where id = any(${ids as number[]}::int8[]) and state = 'sending' and claimed_until = ${until}`;
}

async function runLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/** One attempt through its channel; a channel that throws (a bug, not an answer) is tried again later. */
async function attemptDelivery(
  sql: Sql,
  channel: NotificationChannel,
  event: OutboxEvent,
  row: Claimed,
  batch: object,
  logger: Logger,
): Promise<DeliveryResult> {
  const attempt: DeliveryAttempt = { id: row.id, target: row.target, attempts: row.attempts, createdAt: row.createdAt, batch };
  try {
    return await channel.deliver(sql, event, attempt);
  } catch (error) {
    logger.error({ msg: "notification channel threw", channel: row.channel, delivery: row.id, err: error });
    return { outcome: "retry", retryAt: new Date(nowMs() + THREW_RETRY_MS), error: error instanceof Error ? error.message : String(error) };
  }
}

/** One pass of the worker (steps 1-3). */
export async function runNotificationPass({
  sql,
  channels,
  logger = silentLogger,
  leaseMs = DEFAULT_LEASE_MS,
}: WorkerOptions): Promise<PassSummary> {
  const summary: PassSummary = { raised: 0, fannedOut: 0, delivered: 0, retried: 0, failed: 0, queuedSent: 0 };
  summary.raised = await raiseTimedEvents(sql, now());
  summary.fannedOut = await fanOut(sql, channels);
  for (const channel of channels) {
    try {
      summary.queuedSent += (await channel.sendQueued?.(sql)) ?? 0;
    } catch (error) {
      logger.error({ msg: "notification channel's queued mail failed", channel: channel.name, err: error });
    }
  }
  const byName = new Map(channels.map((channel) => [channel.name, channel]));
  if (byName.size === 0) return summary;
  for (;;) {
    const { claimed, until } = await claimDue(sql, [...byName.keys()], leaseMs);
    if (claimed.length === 0) break;
    const eventRows = await sql<EventRow[]>`
      select id, event, subject, recipient, occurred_at, title, body, link, data from notification_events
      where id = any(${[...new Set(claimed.map((row) => row.eventId))]}::int8[])`;
    const events = new Map(eventRows.map((row) => [Number(row.id), toEvent(row)]));
    const groups = new Map<string, Claimed[]>();
    for (const row of claimed)
      groups.set(`${row.channel}\u0000${row.target}`, [...(groups.get(`${row.channel}\u0000${row.target}`) ?? []), row]);
    const recorder = resultRecorder(sql, until, logger);
    await runLimited([...groups.values()], TARGETS_AT_ONCE, async (group) => {
      // Where the receiver acts on a repeat once, the next delivery is sent while the results before it are written
      // (a crash repeats at most the deliveries whose results were not written yet); elsewhere (Discord) a result
      // is written before the next is sent, so a crash repeats only the one in flight.
      const overlap = byName.get(group[0].channel)!.repeatsAreIdempotent === true;
      for (let index = 0; index < group.length; index++) {
        const row = group[index];
        const result = await attemptDelivery(sql, byName.get(row.channel)!, events.get(row.eventId)!, row, recorder, logger);
        recorder.add(row, result);
        if (result.outcome === "delivered") summary.delivered += 1;
        else if (result.outcome === "failed") {
          summary.failed += 1;
          logger.warn({ msg: "notification delivery failed", channel: row.channel, delivery: row.id, error: result.error });
        } else {
          summary.retried += 1;
          await recorder.written();
          // The target asked to wait (a rate limit) or is failing: its other deliveries wait too, in order.
          await release(
            sql,
            group.slice(index + 1).map((rest) => rest.id),
            until,
            result.retryAt,
          );
          return;
        }
        if (!overlap) await recorder.written();
      }
    });
    await recorder.written();
  }
  return summary;
}

export type NotificationWorker = { stop(): Promise<void>; /** Runs a pass now (after the current one). */ wake(): Promise<void> };

/** Runs a pass at once and then every `intervalMs` after the previous one ended; stop() waits for the pass in flight. */
export function startNotificationWorker(options: WorkerOptions & { intervalMs: number }): NotificationWorker {
  const { intervalMs, logger = silentLogger } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const pass = () => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        const summary = await runNotificationPass(options);
        if (summary.raised + summary.delivered + summary.failed + summary.queuedSent > 0) logger.info({ msg: "notifications", ...summary });
      } catch (error) {
        logger.error({ msg: "notification pass failed", err: error });
      }
    });
    return running;
  };
  const loop = () => {
    void pass().then(() => {
      if (!stopped) timer = setTimeout(loop, intervalMs);
    });
  };
  loop();
  return {
    wake: () => pass(),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
