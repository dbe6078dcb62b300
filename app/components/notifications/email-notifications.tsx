/**
 * "Email notifications": a holder sends their wallet's notifications to an email address by signing the
 * consent with MyDoge (POST /api/notifications/email); a confirmation email follows, and nothing else is
 * sent until its link is confirmed. Self-contained; mounted on the staking page, below the Spooks and the
 * rewards panel (a form does not belong in the bell's menu). docs/notifications.md "Email".
 */
import { useState, type FormEvent } from "react";
import type { ClientAnswer } from "../../api/kit.ts";
import type { getEmailSubscription, subscribeEmail } from "../../api/email.ts";
import { emailSubscribeMessage } from "../../domain/messages.ts";
import { EVENT_LABELS, HOLDER_EVENTS, PERSONAL_EVENTS, type NotificationEventName } from "../../domain/notifications.ts";
import { api, refusalOf } from "../../lib/api.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { useWallet } from "../../wallet/wallet-context.tsx";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { Input, Label } from "../ui/input.tsx";
import { useToggleSet } from "../../lib/use-toggle-set.ts";

const LABELS = EVENT_LABELS;

const ORDERED = [...HOLDER_EVENTS].sort((a, b) => Number(PERSONAL_EVENTS.has(b)) - Number(PERSONAL_EVENTS.has(a)));

type Status = ClientAnswer<typeof getEmailSubscription>;

export function EmailNotifications() {
  const wallet = useWallet();
  const status = useApiQuery<Status>(wallet.address ? `/api/notifications/email/${wallet.address}` : null, { staleTime: 0 });
  const [email, setEmail] = useState("");
  const [events, toggle] = useToggleSet<NotificationEventName>(PERSONAL_EVENTS);
  const [state, setState] = useState<{ kind: "idle" | "signing" | "sent" | "failed"; text?: string }>({ kind: "idle" });

  if (!wallet.connected || !wallet.address) {
    return (
      <Card>
        <CardHeader>
          <CardTitle>Email notifications</CardTitle>
          <CardDescription>Connect your wallet to get an email when your ticket wins or a stake ends.</CardDescription>
        </CardHeader>
      </Card>
    );
  }
  const address = wallet.address;
  // A site that sends no email (no SMTP_URL, not demo mode) offers none; nothing shows until the site said.
  if (!status.data?.available) return null;

  const submit = async (submitted: FormEvent) => {
    submitted.preventDefault();
    setState({ kind: "signing" });
    const mailbox = email.trim();
    const message = emailSubscribeMessage(address, mailbox, new Date());
    try {
      const signature = await wallet.signMessage(message);
      await api<ClientAnswer<typeof subscribeEmail>>("/api/notifications/email", {
        method: "POST",
        body: { address, email: mailbox, events: ORDERED.filter((event) => events.has(event)), message, signature },
      });
      setState({ kind: "sent", text: `Check ${mailbox}: open the link in the email we sent and press Confirm.` });
      void status.refetch();
    } catch (error) {
      const refusal = refusalOf(error);
      setState({ kind: "failed", text: refusal ? [refusal.message, refusal.nextStep].filter(Boolean).join(". ") : "Not signed." });
    }
  };

  const current = status.data;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Email notifications</CardTitle>
        <CardDescription>
          {current?.subscribed
            ? current.confirmed
              ? `Notifications for this wallet go to ${current.email}. Every email has a link to stop them at once.`
              : `Waiting for you to confirm ${current.email}: open the link in the email we sent.`
            : "Get an email when your ticket wins, a stake ends or your points change. Sign once with your wallet; at most 3 a day."}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={(event) => void submit(event)} className="space-y-3" aria-label="Email notifications">
          <div className="space-y-1">
            <Label htmlFor="notification-email">{current?.subscribed ? "Change the address" : "Email address"}</Label>
            <Input
              id="notification-email"
              type="email"
              required
              maxLength={254}
              autoComplete="email"
              value={email}
              onChange={(change) => setEmail(change.target.value)}
            />
          </div>
          <fieldset className="space-y-1">
            <legend className="text-sm text-zinc-300">Email me when</legend>
            {ORDERED.map((event) => (
              <label key={event} className="flex items-center gap-2 text-sm text-zinc-200">
                <input type="checkbox" checked={events.has(event)} onChange={() => toggle(event)} />
                {LABELS[event]}
              </label>
            ))}
          </fieldset>
          <Button type="submit" disabled={state.kind === "signing" || events.size === 0 || !email.trim()}>
            {state.kind === "signing" ? "Signing…" : "Sign and subscribe"}
          </Button>
          {state.text ? (
            <p role="status" className={state.kind === "failed" ? "text-sm text-red-400" : "text-sm text-emerald-400"}>
              {state.text}
            </p>
          ) : null}
        </form>
      </CardContent>
    </Card>
  );
}
