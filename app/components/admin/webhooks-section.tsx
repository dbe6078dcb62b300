/**
 * "Signed webhooks" in the admin's Notifications tab (issue 24 items 5, 8; docs/notifications.md): the endpoints
 * (url, events, active or why disabled), adding one (its `whsec_` secret shown once), deleting one (confirmed),
 * rotating its secret (the new one shown once), and per endpoint its deliveries with Replay. Reads and writes
 * /api/admin/webhooks with the admin's session; refusals are toasted with the server's reason.
 */
import { DateText } from "../governance/date-text.tsx";
import { deliveryStateText } from "../../domain/notifications.ts";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import type { ClientAnswer } from "../../api/kit.ts";
import type { createWebhook, listWebhookDeliveries, listWebhooks, rotateWebhookSecret } from "../../api/webhooks.ts";
import { HOLDER_EVENTS, NOTIFICATION_EVENTS, type NotificationEventName } from "../../domain/notifications.ts";
import { api, ApiError, isPendingApproval, type PendingApproval } from "../../lib/api.ts";
import { toastApprovalRequested } from "./approval-requested.ts";
import { useAdminRole } from "./role-context.tsx";
import { queryKeyOf, useApiQuery } from "../../lib/queries.ts";
import { ConfirmDialog } from "../ui/alert-dialog.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { toastFailure } from "../ui/failure-toast.ts";
import { Input, Label } from "../ui/input.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { ScrollTable, TableHead } from "../ui/table.tsx";
import { toast } from "../ui/toast.tsx";
import { useToggleSet } from "../../lib/use-toggle-set.ts";

type Webhook = ClientAnswer<typeof listWebhooks>[number];
type WebhookDelivery = ClientAnswer<typeof listWebhookDeliveries>[number];
type Created = ClientAnswer<typeof createWebhook>;
type Rotated = ClientAnswer<typeof rotateWebhookSecret>;

const LIST_PATH = "/api/admin/webhooks";

/** The admin's one date format (app/domain/format.ts): 'Dec 1, 2026, 07:00 GMT+1'. */
function when(at: string | Date | null) {
  return at ? <DateText value={at} withTime /> : "—";
}

/** A secret answered once: shown with a copy button until the admin dismisses it. */
function ShownOnce({ title, secret, onDone }: { title: string; secret: string; onDone: () => void }) {
  return (
    <div role="alert" data-testid="webhook-secret" className="grid gap-2 rounded-lg border border-amber-500/40 bg-amber-950/30 p-3">
      <p className="text-sm font-medium text-amber-200">{title}</p>
      <code className="block font-mono text-xs break-all text-zinc-100" data-testid="webhook-secret-value">
        {secret}
      </code>
      <p className="text-xs text-amber-200/80">This secret is shown only now: copy it into your bot. It cannot be read again.</p>
      <div className="flex flex-wrap gap-2">
        <Button
          size="sm"
          variant="outline"
          onClick={() =>
            void navigator.clipboard?.writeText(secret).then(
              () => toast({ title: "Copied", description: "The secret is on the clipboard.", variant: "success" }),
              () => toast({ title: "Not copied", description: "Select the secret and copy it by hand.", variant: "destructive" }),
            )
          }
        >
          Copy secret
        </Button>
        <Button size="sm" variant="ghost" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}

function Deliveries({ webhook }: { webhook: Webhook }) {
  const mayReplay = useAdminRole().can("webhooks");
  const queryClient = useQueryClient();
  const path = `${LIST_PATH}/${webhook.id}/deliveries?limit=20`;
  const deliveries = useApiQuery<WebhookDelivery[]>(path, { staleTime: 0, refetchInterval: 5_000 });
  const replay = async (delivery: WebhookDelivery) => {
    try {
      await api(`${LIST_PATH}/${webhook.id}/deliveries/${encodeURIComponent(delivery.id)}/replay`, { method: "POST" });
      toast({ title: "Queued again", description: `${delivery.id} goes out on the worker's next pass.`, variant: "success" });
    } catch (error) {
      toastFailure({ title: "Not replayed", description: `${delivery.id} was not queued again.` }, error);
    }
    await queryClient.invalidateQueries({ queryKey: queryKeyOf(path) });
  };
  if (deliveries.error && !deliveries.data) {
    return <LoadFailed what="the deliveries" error={deliveries.error} onRetry={deliveries.refetch} retrying={deliveries.isFetching} />;
  }
  if (!deliveries.data) return <p className="text-sm text-zinc-400">Loading deliveries…</p>;
  if (deliveries.data.length === 0) return <p className="text-sm text-zinc-400">No deliveries yet.</p>;
  return (
    <ScrollTable
      caption={{ text: <>Deliveries to {webhook.url}, newest first</>, className: "sr-only" }}
      head={
        <TableHead
          className="text-zinc-400 uppercase"
          cellClassName="px-2 py-1 font-medium"
          columns={["webhook-id", "Event", "Attempts", "Status", "Last code", "Next attempt", ""]}
        />
      }
      className="min-w-[44rem] text-xs"
      bodyClassName="divide-y divide-zinc-800/70"
    >
      {deliveries.data.map((delivery) => (
        <tr key={delivery.id} data-testid="webhook-delivery-row" className="align-top">
          <td className="px-2 py-1 font-mono break-all text-zinc-300">{delivery.id}</td>
          <td className="px-2 py-1 font-mono text-zinc-200">{delivery.event}</td>
          <td className="px-2 py-1 tabular-nums text-zinc-300">{delivery.attempts}</td>
          <td className="px-2 py-1 text-zinc-200" data-testid="webhook-delivery-status">
            {deliveryStateText({
              state: delivery.status === "retrying" && delivery.attempts === 0 ? "pending" : delivery.status,
              attempts: delivery.attempts,
              nextAttemptAt: delivery.nextAttemptAt ?? delivery.createdAt,
              lastStatusCode: delivery.lastStatusCode,
              lastError: null,
            })}
            {delivery.lastError && <span className="block break-all text-red-300">{delivery.lastError}</span>}
          </td>
          <td className="px-2 py-1 tabular-nums text-zinc-300">{delivery.lastStatusCode ?? "—"}</td>
          <td className="px-2 py-1 text-zinc-300">{delivery.status === "retrying" ? when(delivery.nextAttemptAt) : "—"}</td>
          <td className="px-2 py-1">
            <Button size="sm" variant="outline" disabled={!webhook.active} onClick={() => void replay(delivery)} hidden={!mayReplay}>
              Replay
            </Button>
          </td>
        </tr>
      ))}
    </ScrollTable>
  );
}

function Endpoint({ webhook, onChanged }: { webhook: Webhook; onChanged: () => Promise<void> }) {
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [rotated, setRotated] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const mayChange = useAdminRole().can("webhooks");

  const rotate = async () => {
    setBusy(true);
    try {
      const answer = await api<Rotated | PendingApproval>(`${LIST_PATH}/${webhook.id}/rotate-secret`, { method: "POST" });
      if (isPendingApproval(answer)) toastApprovalRequested(answer);
      else setRotated(answer.secret);
    } catch (error) {
      toastFailure({ title: "Secret not rotated", description: `The secret of ${webhook.url} was not changed.` }, error);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    setConfirmDelete(false);
    setBusy(true);
    try {
      const answer = await api<unknown>(`${LIST_PATH}/${webhook.id}`, { method: "DELETE" });
      if (isPendingApproval(answer)) toastApprovalRequested(answer);
      else toast({ title: "Webhook deleted", description: `Nothing more is sent to ${webhook.url}.`, variant: "success" });
    } catch (error) {
      toastFailure({ title: "Webhook not deleted", description: `${webhook.url} is still registered.` }, error);
    } finally {
      setBusy(false);
    }
    await onChanged();
  };

  return (
    <li data-testid="webhook-endpoint" className="grid gap-2 rounded-lg border border-zinc-800 p-3">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="font-mono text-sm break-all text-zinc-100">{webhook.url}</p>
          <p className="text-xs text-zinc-400">{webhook.events.join(", ")}</p>
          <p className={webhook.active ? "text-xs text-emerald-400" : "text-xs text-red-300"} data-testid="webhook-state">
            {webhook.active ? "Active" : `Disabled: ${webhook.disabledReason ?? "no reason recorded"}`}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button size="sm" variant="outline" aria-expanded={showDeliveries} onClick={() => setShowDeliveries((shown) => !shown)}>
            {showDeliveries ? "Hide deliveries" : "Deliveries"}
          </Button>
          <Button size="sm" variant="outline" disabled={busy} onClick={() => void rotate()} hidden={!mayChange}>
            Rotate secret
          </Button>
          <Button size="sm" variant="destructive" disabled={busy} onClick={() => setConfirmDelete(true)} hidden={!mayChange}>
            Delete
          </Button>
        </div>
      </div>
      {rotated && <ShownOnce title="The new signing secret" secret={rotated} onDone={() => setRotated(null)} />}
      {showDeliveries && <Deliveries webhook={webhook} />}
      <ConfirmDialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title="Delete this webhook?"
        description={`Nothing more is sent to ${webhook.url}; its deliveries not yet made are skipped. This cannot be undone.`}
        confirmLabel="Delete"
        destructive
        onConfirm={() => void remove()}
      />
    </li>
  );
}

export function WebhooksSection({ onUnauthorized }: { onUnauthorized: () => void }) {
  const queryClient = useQueryClient();
  const webhooks = useApiQuery<Webhook[]>(LIST_PATH, { staleTime: 0 });
  const [url, setUrl] = useState("");
  // The admin team's events (approval.pending) are asked for, not sent to a community bot by default.
  const [events, toggle] = useToggleSet<NotificationEventName>(HOLDER_EVENTS);
  const [created, setCreated] = useState<Created | null>(null);
  const [adding, setAdding] = useState(false);
  const unauthorized = webhooks.error instanceof ApiError && webhooks.error.status === 401;
  const mayChange = useAdminRole().can("webhooks");
  useEffect(() => {
    if (unauthorized) onUnauthorized();
  }, [unauthorized, onUnauthorized]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeyOf(LIST_PATH) });

  const add = async (submitted: FormEvent) => {
    submitted.preventDefault();
    setAdding(true);
    try {
      const answer = await api<Created | PendingApproval>(LIST_PATH, {
        method: "POST",
        body: { url: url.trim(), events: NOTIFICATION_EVENTS.filter((event) => events.has(event)) },
      });
      if (isPendingApproval(answer)) toastApprovalRequested(answer);
      else setCreated(answer);
      setUrl("");
    } catch (error) {
      toastFailure({ title: "Webhook not added", description: "The endpoint was not registered." }, error);
    } finally {
      setAdding(false);
    }
    await refresh();
  };

  return (
    <Card className="grid gap-4 p-4" data-testid="webhook-endpoints">
      <div>
        <h3 className="font-semibold text-zinc-100">Webhook endpoints</h3>
        <p className="text-sm text-zinc-400">
          Community bots receive each event as a signed Standard Webhooks message. Verify it with the secret shown when you add the
          endpoint.
        </p>
      </div>
      {created && <ShownOnce title={`Signing secret of ${created.url}`} secret={created.secret} onDone={() => setCreated(null)} />}
      {webhooks.error && !webhooks.data ? (
        <LoadFailed what="the webhooks" error={webhooks.error} onRetry={webhooks.refetch} retrying={webhooks.isFetching} />
      ) : webhooks.data?.length ? (
        <ul className="grid gap-3">
          {webhooks.data.map((webhook) => (
            <Endpoint key={webhook.id} webhook={webhook} onChanged={refresh} />
          ))}
        </ul>
      ) : (
        <p className="text-sm text-zinc-400">{webhooks.data ? "No endpoints yet." : "Loading…"}</p>
      )}
      <form onSubmit={(event) => void add(event)} className="grid gap-3" aria-label="Add a webhook" hidden={!mayChange}>
        <div className="grid gap-1">
          <Label htmlFor="webhook-url">Endpoint URL</Label>
          <Input
            id="webhook-url"
            type="url"
            required
            maxLength={2000}
            placeholder="https://bot.example/spooks-webhook"
            value={url}
            onChange={(change) => setUrl(change.target.value)}
          />
        </div>
        <fieldset className="grid gap-1 sm:grid-cols-2 lg:grid-cols-3">
          <legend className="mb-1 text-sm text-zinc-300">Events</legend>
          {NOTIFICATION_EVENTS.map((event) => (
            <label key={event} className="flex items-center gap-2 font-mono text-xs text-zinc-200">
              <input type="checkbox" checked={events.has(event)} onChange={() => toggle(event)} />
              {event}
            </label>
          ))}
        </fieldset>
        <div>
          <Button type="submit" size="sm" disabled={adding || events.size === 0 || !url.trim()}>
            {adding ? "Adding…" : "Add webhook"}
          </Button>
        </div>
      </form>
    </Card>
  );
}
