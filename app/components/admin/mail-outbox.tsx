/**
 * "Mail outbox": demo mode's captured mail (GET /api/admin/mail-outbox), newest first, with the headers a
 * mail client would act on (List-Unsubscribe) and the text. For the admin's Notifications tab.
 */
import { DateText } from "../governance/date-text.tsx";
import { useEffect, useState } from "react";
import type { ClientAnswer } from "../../api/kit.ts";
import type { listCapturedMail } from "../../api/email.ts";
import { ApiError } from "../../lib/api.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { Card } from "../ui/card.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";

type Captured = ClientAnswer<typeof listCapturedMail>;

export function MailOutbox({ onUnauthorized }: { onUnauthorized: () => void }) {
  const mail = useApiQuery<Captured>("/api/admin/mail-outbox", { staleTime: 0 });
  const [open, setOpen] = useState<number | null>(null);
  const unauthorized = mail.error instanceof ApiError && mail.error.status === 401;
  useEffect(() => {
    if (unauthorized) onUnauthorized();
  }, [unauthorized, onUnauthorized]);

  return (
    <section aria-labelledby="mail-outbox-title" className="space-y-3">
      <h3 id="mail-outbox-title" className="text-lg font-semibold text-zinc-100">
        Mail outbox
      </h3>
      <p className="text-sm text-zinc-400">Demo mode sends no email: what would have gone out is kept here.</p>
      {mail.isPending ? (
        <Skeleton className="h-24 w-full" />
      ) : mail.isError ? (
        <LoadFailed what="the mail outbox" error={mail.error} onRetry={() => void mail.refetch()} />
      ) : mail.data.length === 0 ? (
        <p className="text-sm text-zinc-400">No mail yet.</p>
      ) : (
        <ul className="space-y-2">
          {mail.data.map((message) => (
            <li key={message.id}>
              <Card className="p-3">
                <button
                  type="button"
                  className="w-full text-left"
                  aria-expanded={open === message.id}
                  onClick={() => setOpen(open === message.id ? null : message.id)}
                >
                  <span className="block text-sm font-medium text-zinc-100">{message.subject}</span>
                  <span className="block text-xs text-zinc-400">
                    to {message.recipient} · <DateText value={message.capturedAt} withTime />
                  </span>
                </button>
                {open === message.id ? (
                  <div className="mt-2 space-y-2 text-xs text-zinc-300">
                    <dl className="grid grid-cols-[auto_1fr] gap-x-2">
                      {["List-Unsubscribe", "List-Unsubscribe-Post"].map((name) =>
                        message.headers[name] ? (
                          <div key={name} className="contents">
                            <dt className="text-zinc-500">{name}</dt>
                            <dd className="break-all">{message.headers[name]}</dd>
                          </div>
                        ) : null,
                      )}
                    </dl>
                    <pre className="whitespace-pre-wrap wrap-anywhere">{message.textBody}</pre>
                  </div>
                ) : null}
              </Card>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
