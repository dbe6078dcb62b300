/** GET /api/admin/notifications/channels (admin): each channel, configured or not, disabled and why, deliveries by state. */
import { listChannels } from "../../api/notifications.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { channelState, channelTargetCounts, deliveryCounts } from "../../../db/queries/notifications.server.ts";
import { notificationChannels } from "../../../indexer/notifications/channels.server.ts";
import { NOTIFICATION_CHANNELS } from "../../../indexer/notifications/test-send.server.ts";
import type { Route } from "./+types/admin-notifications-channels";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listChannels, async ({ context }) => {
    const configured = new Set(notificationChannels(context.config, { sql: context.sql }).map((channel) => channel.name));
    const counts = await deliveryCounts(context.sql);
    const targets = await channelTargetCounts(context.sql);
    return Promise.all(
      NOTIFICATION_CHANNELS.map(async (channel) => {
        const state = await channelState(context.sql, channel);
        const sends = configured.has(channel) && !state?.disabledAt;
        return {
          channel,
          configured: configured.has(channel),
          disabledAt: state?.disabledAt ?? null,
          disabledReason: state?.disabledReason ?? null,
          counts: Object.fromEntries(counts.filter((row) => row.channel === channel).map((row) => [row.state, row.count])),
          targets: sends ? (channel === "discord" ? 1 : targets[channel]) : 0,
        };
      }),
    );
  }),
);

export const action = onlyMethods("GET");
