/**
 * Notifications (issue 24 item 8): each channel (configured, disabled and why, deliveries by state, "Send a test"),
 * then every delivery, newest first, with its state and the answer received, failures first when filtered, and
 * Replay; between them the signed webhooks' endpoints (webhooks-section.tsx), and at the foot demo mode's captured
 * mail (mail-outbox.tsx). Reads GET /api/admin/notifications/channels and /deliveries with the admin's session.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { ChannelStatus, DeliveriesPage, Delivery, TestSendAnswer } from "../../api/notifications.ts";
import { countOf } from "../../domain/format.ts";
import { channelStateText, deliveryStateText } from "../../domain/notifications.ts";
import { ApiError, apiPost } from "../../lib/api.ts";
import { queryKeyOf, useApiQuery } from "../../lib/queries.ts";
import { useWallet } from "../../wallet/wallet-context.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { CursorPager, useCursorPages } from "./cursor-pager.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { toast } from "../ui/toast.tsx";
import { ChannelPosts } from "./channel-posts.tsx";
import { MailOutbox } from "./mail-outbox.tsx";
import { WebhooksSection } from "./webhooks-section.tsx";
import { useAdminRole } from "./role-context.tsx";
import { AdminTable, AdminTableNote } from "./admin-table.tsx";

const PAGE_SIZE = 50;
const CHANNEL_NAMES: Record<string, string> = { discord: "Discord channel", webhook: "Signed webhooks", email: "Email" };

export function NotificationsTab({ onUnauthorized }: { onUnauthorized: () => void }) {
  const [failedOnly, setFailedOnly] = useState(false);
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const queryClient = useQueryClient();
  const wallet = useWallet();
  const mayUseChannels = useAdminRole().can("channels");
  const captured = useApiQuery<unknown[]>("/api/admin/mail-outbox", { staleTime: 0 });
  const posts = useApiQuery<unknown[]>("/api/admin/notifications/channel-posts", { staleTime: 0 });
  const channels = useApiQuery<ChannelStatus[]>("/api/admin/notifications/channels", { staleTime: 0 });
  const deliveriesPath = `/api/admin/notifications/deliveries?limit=${PAGE_SIZE}${failedOnly ? "&failed=true" : ""}${cursor ? `&cursor=${cursor}` : ""}`;
  const deliveries = useApiQuery<DeliveriesPage>(deliveriesPath, { staleTime: 0, refetchOnWindowFocus: false });
  const unauthorized = [channels.error, deliveries.error].some((error) => error instanceof ApiError && error.status === 401);
  useEffect(() => {
    if (unauthorized) onUnauthorized();
  }, [unauthorized, onUnauthorized]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeyOf("/api/admin/notifications") });

  const sendTest = async (channel: string) => {
    try {
      const answer = await apiPost<TestSendAnswer>("/api/admin/notifications/test", { channel });
      const failed = answer.results.filter((result) => result.outcome !== "delivered");
      toast(
        failed.length === 0
          ? { title: "Test sent", description: `${CHANNEL_NAMES[channel]} accepted the test.`, variant: "success" }
          : { title: "Test not delivered", description: failed.map((result) => result.error).join("; "), variant: "destructive" },
      );
    } catch (error) {
      toast({ title: "Test not sent", description: error instanceof Error ? error.message : String(error), variant: "destructive" });
    }
    await refresh();
  };

  const replay = async (delivery: Delivery) => {
    try {
      await apiPost(`/api/admin/notifications/deliveries/${delivery.id}/replay`);
      toast({ title: "Queued again", description: `Delivery ${delivery.id} goes out on the worker's next pass.`, variant: "success" });
    } catch (error) {
      toast({ title: "Not replayed", description: error instanceof Error ? error.message : String(error), variant: "destructive" });
    }
    await refresh();
  };

  return (
    <div className="grid grid-cols-1 gap-4" data-testid="notifications-tab">
      <h2 className="sr-only">Notifications</h2>
      <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
        {channels.error && !channels.data ? (
          <LoadFailed what="the channels" error={channels.error} onRetry={channels.refetch} retrying={channels.isFetching} />
        ) : (
          (channels.data ?? []).map((channel) => (
            <Card key={channel.channel} className="grid gap-2 p-4" data-testid={`channel-${channel.channel}`}>
              <h3 className="font-semibold text-zinc-100">{CHANNEL_NAMES[channel.channel]}</h3>
              <p className="text-sm text-zinc-400">
                <span data-testid="channel-state">{channelStateText(channel)}</span>
                {Object.keys(channel.counts).length > 0 &&
                  ` · ${Object.entries(channel.counts)
                    .map(([state, count]) => `${count} ${state}`)
                    .join(", ")}`}
              </p>
              {channel.disabledReason && (
                <p role="alert" className="text-sm text-red-300">
                  {channel.disabledReason}
                </p>
              )}
              <Button
                size="sm"
                variant="outline"
                disabled={!channel.configured}
                onClick={() => void sendTest(channel.channel)}
                hidden={!mayUseChannels}
              >
                Send a test
              </Button>
            </Card>
          ))
        )}
      </div>
      <WebhooksSection onUnauthorized={onUnauthorized} />

      <label className="flex items-center gap-2 text-sm text-zinc-300">
        <input
          type="checkbox"
          checked={failedOnly}
          onChange={(event) => {
            setFailedOnly(event.target.checked);
            pages.reset();
          }}
        />
        Only failures
      </label>
      <AdminTable
        caption="Notification deliveries, newest first"
        columns={["Id", "Channel", "Event", "State", "Answer received", ""]}
        className="min-w-[48rem]"
      >
        {deliveries.error && !deliveries.data ? (
          <AdminTableNote colSpan={6} status>
            <LoadFailed what="the deliveries" error={deliveries.error} onRetry={deliveries.refetch} retrying={deliveries.isFetching} />
          </AdminTableNote>
        ) : deliveries.data?.entries.length ? (
          deliveries.data.entries.map((delivery) => (
            <tr key={delivery.id} className="align-top" data-testid="delivery-row">
              <td className="px-4 py-3 tabular-nums text-zinc-300">{delivery.id}</td>
              <td className="px-4 py-3 text-zinc-200">
                {delivery.channel}
                {delivery.target && <span className="block font-mono text-xs text-zinc-400">{delivery.target}</span>}
              </td>
              <td className="px-4 py-3 text-zinc-100">
                {delivery.title}
                <span className="block font-mono text-xs text-zinc-400">
                  {delivery.event}
                  {delivery.recipient ? ` → ${delivery.recipient}` : ""}
                </span>
              </td>
              <td className="px-4 py-3 text-zinc-200" data-testid="delivery-state">
                {deliveryStateText(delivery)}
                <span className="block text-xs text-zinc-400">{countOf(delivery.attempts, "attempt")}</span>
              </td>
              <td className="px-4 py-3 font-mono text-xs break-all text-zinc-300">
                {delivery.lastError ?? (delivery.lastStatusCode === null ? "—" : delivery.lastStatusCode)}
              </td>
              <td className="px-4 py-3">
                <Button
                  size="sm"
                  variant="outline"
                  disabled={delivery.state === "sending"}
                  onClick={() => void replay(delivery)}
                  hidden={!mayUseChannels}
                >
                  Replay
                </Button>
              </td>
            </tr>
          ))
        ) : (
          <AdminTableNote colSpan={6}>No deliveries</AdminTableNote>
        )}
      </AdminTable>
      <CursorPager pages={pages} nextCursor={deliveries.data?.nextCursor} />
      {/* Demo mode's captured mail: shown with the demo wallet, or once there is any (never outside demo mode). */}
      {(wallet.isDemo || (captured.data?.length ?? 0) > 0) && <MailOutbox onUnauthorized={onUnauthorized} />}
      {/* Demo mode's Discord channel, shown like the mail (issue 33, item 8). */}
      {(wallet.isDemo || (posts.data?.length ?? 0) > 0) && <ChannelPosts onUnauthorized={onUnauthorized} />}
    </div>
  );
}
