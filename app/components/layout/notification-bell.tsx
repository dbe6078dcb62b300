/**
 * The header's bell (issue 24 item 3): how many notifications are newer than the last one the holder opened (kept
 * in this browser, per address), and a panel listing them with their links. Public events and the connected
 * address's own (GET /api/notifications/{address}), read again every minute.
 */
import { useState } from "react";
import { Link } from "react-router";
import type { NotificationEntry, NotificationsPage } from "../../api/notifications.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { formatDateTime } from "../../domain/format.ts";
import { useWallet } from "../../wallet/wallet-context.tsx";
import { BellIcon } from "../icons.tsx";
import { Button } from "../ui/button.tsx";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "../ui/dropdown-menu.tsx";

export const NOTIFICATIONS_POLL_MS = 60_000;
const PANEL_SIZE = 20;

/** The localStorage key of the newest notification id the holder opened the panel on. */
export const lastOpenedKey = (address: string) => `spooks:notifications:last-opened:${address}`;

function readLastOpened(address: string): number {
  try {
    return Number(window.localStorage.getItem(lastOpenedKey(address))) || 0;
  } catch {
    return 0;
  }
}

/** The one clock (app/domain/format.ts): the reader's time with its zone (the bell renders only in the browser). */
function when(at: string): string {
  return formatDateTime(at);
}

export function NotificationBell() {
  const { address, connected } = useWallet();
  const path = connected && address ? `/api/notifications/${address}?limit=${PANEL_SIZE}` : null;
  const { data } = useApiQuery<NotificationsPage>(path, { refetchInterval: NOTIFICATIONS_POLL_MS, staleTime: 10_000 });
  // What this page opened, else what the browser kept (read while rendering: the bell renders only in the browser).
  const [opened, setOpened] = useState<{ address: string; id: number } | null>(null);
  if (!path || !address) return null;
  const lastOpened = opened?.address === address ? opened.id : readLastOpened(address);
  const entries: NotificationEntry[] = data?.entries ?? [];
  const unread = entries.filter((entry) => entry.id > lastOpened).length;
  const label = unread === 0 ? "Notifications" : `Notifications, ${unread}${unread === PANEL_SIZE ? "+" : ""} new`;

  const onOpenChange = (open: boolean) => {
    if (!open || entries.length === 0) return;
    const newest = entries[0].id;
    try {
      window.localStorage.setItem(lastOpenedKey(address), String(newest));
    } catch {
      // Storage refused (private mode): the count simply starts again next visit.
    }
    setOpened({ address, id: newest });
  };

  return (
    <DropdownMenu onOpenChange={onOpenChange}>
      <DropdownMenuTrigger asChild>
        <Button variant="outline" size="responsive" aria-label={label} title={label} className="relative">
          <BellIcon />
          {unread > 0 && (
            <span
              data-testid="notification-count"
              className="absolute -right-1.5 -top-1.5 grid h-5 min-w-5 place-items-center rounded-full bg-fuchsia-600 px-1 text-[11px] font-bold text-white"
            >
              {unread === PANEL_SIZE ? `${unread}+` : unread}
            </span>
          )}
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent className="max-h-[70vh] w-80 overflow-y-auto" aria-label="Notifications">
        <DropdownMenuLabel>Notifications</DropdownMenuLabel>
        {entries.length === 0 && <p className="px-3 py-2 text-sm text-zinc-400">Nothing yet.</p>}
        {entries.map((entry) => (
          <DropdownMenuItem key={entry.id} asChild>
            <Link to={entry.link} className="flex flex-col items-start gap-0.5">
              <span className="text-sm font-medium text-zinc-100">
                {entry.id > lastOpened && <span className="sr-only">New: </span>}
                {entry.title}
              </span>
              <span className="text-xs text-zinc-400">{entry.body}</span>
              <span className="text-[11px] text-zinc-400">{when(entry.at)}</span>
            </Link>
          </DropdownMenuItem>
        ))}
        <DropdownMenuSeparator />
        {/* Where else they reach the holder (issue 33, item 9). */}
        <DropdownMenuItem asChild>
          <Link to="/notifications" className="text-sm text-violet-200">
            Notification settings
          </Link>
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
