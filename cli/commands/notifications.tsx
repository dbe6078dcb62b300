/**
 * `notifications list [--failed] [--channel C] [--limit N]`, `notifications replay ID`, `notifications test CHANNEL`:
 * the deliveries of the notification worker (docs/notifications.md), as the admin's Notifications tab shows them.
 */
import type { Command } from "commander";
import {
  listDeliveries as listDeliveriesRoute,
  replayDelivery as replayRoute,
  sendTest as sendTestRoute,
} from "../../app/api/notifications.ts";
import { recordAudit } from "../../db/queries/audit.server.ts";
import { listDeliveries, replayDelivery, type ChannelName, type DeliveryRow } from "../../db/queries/notifications.server.ts";
import { inTransaction } from "../../db/queries/transaction.server.ts";
import { notificationChannels } from "../../indexer/notifications/channels.server.ts";
import { NOTIFICATION_CHANNELS, sendTestNotification } from "../../indexer/notifications/test-send.server.ts";
import { dateTime } from "../format.ts";
import { action, CLI_ACTOR, CliError, leaf, outputAnswer, outputColumns, parseId, withDatabase, type OutputOptions } from "../runtime.ts";
import { tableView } from "../views.tsx";

type ListOptions = OutputOptions & { failed?: boolean; channel?: string; limit: string };

export function registerNotifications(program: Command): void {
  const group = program.command("notifications").description("notification deliveries (Discord, webhooks, email)");
  leaf(group, "list", "deliveries, newest first, with their state and the last answer")
    .option("--failed", "only failed deliveries and those retrying after a failure")
    .option("--channel <channel>", `only ${NOTIFICATION_CHANNELS.join(", ")}`)
    .option("--limit <n>", "at most this many", "100")
    .action(action(list));
  leaf(group, "replay <id>", "send a delivery again (the worker sends it on its next pass)").action(action(replay));
  leaf(group, "test <channel>", `send a test now on ${NOTIFICATION_CHANNELS.join(", ")}`).action(action(test));
}

function parseChannel(text: string): ChannelName {
  if (!(NOTIFICATION_CHANNELS as readonly string[]).includes(text)) {
    throw new CliError(`channel must be one of ${NOTIFICATION_CHANNELS.join(", ")} (got '${text}')`);
  }
  return text as ChannelName;
}

async function list(options: ListOptions): Promise<void> {
  const limit = Number(options.limit);
  if (!/^\d+$/.test(options.limit) || limit < 1 || limit > 10_000)
    throw new CliError(`--limit must be a whole number from 1 to 10000 (got '${options.limit}')`);
  const filter = { failed: options.failed, channel: options.channel === undefined ? undefined : parseChannel(options.channel), limit };
  const page = await withDatabase(({ sql }) => listDeliveries(sql, filter));
  await outputAnswer(options, listDeliveriesRoute.responses[200].schema, page, () => deliveriesView(page.entries));
}

function deliveriesView(entries: DeliveryRow[]) {
  return tableView({
    rows: entries,
    empty: "No deliveries",
    width: outputColumns(),
    columns: [
      { header: "Id", value: (row) => String(row.id) },
      { header: "Channel", value: (row) => (row.target ? `${row.channel} ${row.target}` : row.channel) },
      { header: "Event", value: (row) => `${row.event} ${row.recipient ?? ""}`.trim() },
      { header: "State", value: (row) => `${row.state} (${row.attempts} attempt${row.attempts === 1 ? "" : "s"})` },
      { header: "When", value: (row) => dateTime(row.deliveredAt ?? row.nextAttemptAt), minWidth: 20 },
      { header: "Last answer", value: (row) => row.lastError ?? (row.lastStatusCode === null ? "—" : String(row.lastStatusCode)) },
    ],
  });
}

async function replay(id: string, options: OutputOptions): Promise<void> {
  const deliveryId = parseId(id, "delivery");
  const delivery = await withDatabase(({ sql }) =>
    inTransaction(sql, async (tx) => {
      const replayed = await replayDelivery(tx, deliveryId);
      await recordAudit(tx, CLI_ACTOR, "notifications.replay", `delivery:${deliveryId}`, {
        channel: replayed.channel,
        event: replayed.event,
      });
      return replayed;
    }),
  );
  await outputAnswer(options, replayRoute.responses[200].schema, delivery, () => deliveriesView([delivery]));
}

async function test(channelText: string, options: OutputOptions): Promise<void> {
  const channel = parseChannel(channelText);
  const answer = await withDatabase(async ({ sql, config }) => {
    const results = await sendTestNotification(sql, notificationChannels(config, { sql }), channel);
    await recordAudit(sql, CLI_ACTOR, "notifications.test", channel, { results });
    return { channel, results };
  });
  const failed = answer.results.filter((result) => result.outcome !== "delivered");
  await outputAnswer(options, sendTestRoute.responses[200].schema, answer, () =>
    tableView({
      rows: answer.results,
      empty: "No target",
      width: outputColumns(),
      columns: [
        { header: "Target", value: (row) => row.target || channel },
        { header: "Outcome", value: (row) => row.outcome },
        { header: "Answer", value: (row) => row.error ?? String(row.statusCode ?? "—") },
      ],
    }),
  );
  if (failed.length) throw new CliError(`The test was not delivered: ${failed.map((result) => result.error).join("; ")}`);
}
