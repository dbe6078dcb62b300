import { formatDateTime, formatTime, type ClockZone } from "./format.ts";

/**
 * The notification events (issue 24; docs/notifications.md): their names, used everywhere (payloads,
 * preferences, docs), and who each goes to. Personal events go to one address; the others to everyone.
 */
export const NOTIFICATION_EVENTS = [
  "boosts.scheduled",
  "giveaway.opened",
  "giveaway.closing_soon",
  "giveaway.drawn",
  "giveaway.won",
  "proposal.opened",
  "proposal.closing_soon",
  "proposal.closed",
  "stake.ended",
  "points.adjusted",
  "approval.pending",
] as const;

export type NotificationEventName = (typeof NOTIFICATION_EVENTS)[number];

/**
 * Events for the admin team alone (issue 35): they go to the Discord channel and the webhooks that ask for them,
 * never to the site's public list or to email.
 */
export const ADMIN_EVENTS: ReadonlySet<NotificationEventName> = new Set(["approval.pending"]);

/** The events a holder can see and subscribe to by email. */
export type HolderEventName = Exclude<NotificationEventName, "approval.pending">;
export const HOLDER_EVENTS = NOTIFICATION_EVENTS.filter((event) => !ADMIN_EVENTS.has(event)) as HolderEventName[];

export const PERSONAL_EVENTS: ReadonlySet<NotificationEventName> = new Set(["giveaway.won", "stake.ended", "points.adjusted"]);

export function isPersonalEvent(event: NotificationEventName): boolean {
  return PERSONAL_EVENTS.has(event);
}

export function isNotificationEvent(value: unknown): value is NotificationEventName {
  return typeof value === "string" && (NOTIFICATION_EVENTS as readonly string[]).includes(value);
}

/** Who an event goes to, in words (the docs and the admin's tab). */
export const EVENT_AUDIENCE: Record<NotificationEventName, "everyone" | "one address" | "the admin team"> = Object.fromEntries(
  NOTIFICATION_EVENTS.map((event) => [
    event,
    PERSONAL_EVENTS.has(event) ? "one address" : ADMIN_EVENTS.has(event) ? "the admin team" : "everyone",
  ]),
) as Record<NotificationEventName, "everyone" | "one address" | "the admin team">;

/** What each event is, in a subscriber's words (the email form, the confirm and unsubscribe pages). */
export const EVENT_LABELS: Record<HolderEventName, string> = {
  "giveaway.won": "I win a giveaway (and a reminder if I have not claimed it a day later)",
  "stake.ended": "A stake of mine ends because the item moved",
  "points.adjusted": "The admin changes my points",
  "giveaway.opened": "A giveaway opens",
  "giveaway.closing_soon": "A giveaway closes in 24 hours",
  "giveaway.drawn": "A giveaway is drawn",
  "proposal.opened": "A proposal opens",
  "proposal.closing_soon": "A proposal closes in 24 hours",
  "proposal.closed": "A proposal closes",
  "boosts.scheduled": "The boosts change (announced before they start)",
};

/** How long before a giveaway's or proposal's end its `*.closing_soon` goes out. */
export const CLOSING_SOON_MS = 24 * 3_600_000;

/** A proposal that closed longer ago than this is not announced (an upgrade never announces old history). */
export const CLOSED_CATCH_UP_MS = 7 * 24 * 3_600_000;

/** A win still unclaimed this long after its draw is reminded once (`giveaway.won`, subject `{id}:reminder`). */
export const CLAIM_REMINDER_MS = 24 * 3_600_000;

/** What an event says: its title and body (plain text, public facts only) and a path of the site. */
export type NotificationText = { title: string; body: string; link: string };

const points = (value: number) => `${value.toLocaleString("en-US", { maximumFractionDigits: 2 })} point${value === 1 ? "" : "s"}`;
const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;
/** The one clock (app/domain/format.ts): a notification's reader's zone is not known, so UTC, marked UTC. */
const day = (at: Date) => formatDateTime(at, "utc");
const votes = (count: number) => `${count.toLocaleString("en-US")} ${count === 1 ? "vote" : "votes"}`;

/** Where a win leads: the rewards page, which opens the claim dialog of this giveaway. */
export const claimLink = (giveawayId: number) => `/rewards?claim=${giveawayId}`;

/** The words of every event, in one place (the web, the indexer and the CLI write them through these). */
export const notificationText = {
  giveawayOpened: (g: { id: number; title: string; pointsCost: number; endDate: Date }): NotificationText => ({
    title: `New giveaway: ${g.title}`,
    body: `Enter with ${points(g.pointsCost)} a ticket until ${day(g.endDate)}.`,
    link: "/rewards",
  }),
  giveawayClosingSoon: (g: { id: number; title: string; endDate: Date }): NotificationText => ({
    title: `Giveaway closing soon: ${g.title}`,
    body: `Entries close at ${day(g.endDate)}.`,
    link: "/rewards",
  }),
  giveawayDrawn: (g: { id: number; title: string; winners: readonly string[] }): NotificationText => ({
    title: `Giveaway drawn: ${g.title}`,
    body:
      g.winners.length === 0
        ? "The draw found no entries: nobody won."
        : `Winner${g.winners.length === 1 ? "" : "s"}: ${g.winners.map(short).join(", ")}. Anyone can verify the draw.`,
    link: `/giveaways/${g.id}/verify`,
  }),
  // Issue 33, item 2: the win says what to do, and its link opens the claim dialog.
  giveawayWon: (g: { id: number; title: string }): NotificationText => ({
    title: `You won: ${g.title}. Claim your prize`,
    body: `Your ticket won the giveaway "${g.title}". Claim your prize: tell the admin how to reach you, signed with your wallet.`,
    link: claimLink(g.id),
  }),
  claimReminder: (g: { id: number; title: string }): NotificationText => ({
    title: `Claim your prize: ${g.title}`,
    body: `You won "${g.title}" a day ago and have not claimed it yet. Claim your prize so the admin can reach you.`,
    link: claimLink(g.id),
  }),
  proposalOpened: (p: { id: number; title: string; endDate: Date }): NotificationText => ({
    title: `Vote open: ${p.title}`,
    body: `Voting is open until ${day(p.endDate)}.`,
    link: `/governance/${p.id}`,
  }),
  proposalClosingSoon: (p: { id: number; title: string; endDate: Date }): NotificationText => ({
    title: `Vote closing soon: ${p.title}`,
    body: `Voting closes at ${day(p.endDate)}.`,
    link: `/governance/${p.id}`,
  }),
  proposalClosed: (p: { id: number; title: string; options: readonly { text: string; votes: number }[] }): NotificationText => {
    const total = p.options.reduce((sum, option) => sum + option.votes, 0);
    const top = Math.max(0, ...p.options.map((option) => option.votes));
    const leaders = p.options.filter((option) => option.votes === top);
    const result =
      total === 0
        ? "No votes were cast."
        : leaders.length > 1
          ? `A tie between ${leaders.map((option) => `"${option.text}"`).join(" and ")} with ${votes(top)} each.`
          : `"${leaders[0].text}" won with ${top.toLocaleString("en-US")} of ${votes(total)}.`;
    return { title: `Vote closed: ${p.title}`, body: result, link: `/governance/${p.id}` };
  },
  // Issue 33, item 3: holders learn of a new schedule when it is saved, before it starts.
  boostsScheduled: (b: { version: number; effectiveFrom: Date; rules: string }): NotificationText => ({
    title: `Boosts change from ${day(b.effectiveFrom)}`,
    body: `From ${day(b.effectiveFrom)} staked Spooks earn: ${b.rules}.`,
    link: "/",
  }),
  boostsCancelled: (b: { version: number; effectiveFrom: Date }): NotificationText => ({
    title: "Boost change cancelled",
    body: `The boosts announced for ${day(b.effectiveFrom)} will not start; the boosts in force stay.`,
    link: "/",
  }),
  pointsAdjusted: (a: { points: number; description: string | null; balance: number }): NotificationText => ({
    title: a.points >= 0 ? `You received ${points(a.points)}` : `${points(-a.points)} removed from your balance`,
    body: `${a.description ? `${a.description}. ` : ""}Your balance is now ${points(a.balance)}.`,
    link: "/rewards/history",
  }),
  approvalPending: (a: { id: number; summary: string; proposedBy: string; expiresAt: Date }): NotificationText => ({
    title: `Approval needed: action #${a.id}`,
    body: `${a.summary}. Proposed by ${short(a.proposedBy)}; a second member's signature applies it before ${day(a.expiresAt)}.`,
    link: "/admin",
  }),
} as const;

/** stake.ended, written by the SQL statement that ends the stakes (db/queries/notifications.server.ts). */
export const STAKE_ENDED_TEXT = { title: "Your stake ended", bodyAfterItem: " moved to another wallet, so its stake ended.", link: "/" };

/** The test a channel sends when the admin asks (`notifications test CHANNEL`, the tab's button): not an event of the outbox. */
export const TEST_NOTIFICATION: NotificationText = {
  title: "Test notification from Spooks",
  body: "The admin sent this test: the channel works.",
  link: "/",
};

// What the admin reads of a delivery and a channel (issue 33, item 7): words, not raw states ---------------

/** A delivery as the Notifications tab lists it. */
export type DeliveryView = {
  state: "pending" | "sending" | "delivered" | "retrying" | "failed" | "skipped";
  attempts: number;
  nextAttemptAt: Date | string;
  lastStatusCode: number | null;
  lastError: string | null;
};

const DAILY_LIMIT = /personal emails went to this wallet in the last 24 hours/;
const RATE_LIMIT = /rate limit/i;

/**
 * "250 accepted", "held (daily limit) until 06:12 UTC", "retrying at 06:30 UTC (SMTP 421 busy)", "failed: 404 …":
 * what happened to a delivery, in words, with its times on the one clock (`zone`: the reader's, or UTC).
 */
export function deliveryStateText(delivery: DeliveryView, zone: ClockZone = "local"): string {
  const { state, lastStatusCode: code, lastError: error } = delivery;
  const next = () => formatTime(delivery.nextAttemptAt, zone);
  switch (state) {
    case "delivered":
      return code === null ? "delivered" : `${code} accepted`;
    case "pending":
      return "waiting to be sent";
    case "sending":
      return "being sent now";
    case "retrying":
      if (error && DAILY_LIMIT.test(error)) return `held (daily limit) until ${next()}`;
      if (code === 429 || (error && RATE_LIMIT.test(error))) return `held (rate limit) until ${next()}`;
      return `retrying at ${next()}${error ? ` (${error})` : code !== null ? ` (${code})` : ""}`;
    case "failed":
      return `failed: ${error ?? (code !== null ? String(code) : "no answer")}`;
    case "skipped":
      return `not sent: ${error ?? "skipped"}`;
  }
}

/** A channel as the tab shows it: configured, disabled, and how many targets it can send to now. */
export type ChannelView = { channel: "discord" | "webhook" | "email"; configured: boolean; disabledAt: unknown; targets: number };

const NO_TARGET: Record<ChannelView["channel"], string> = {
  discord: "No target: set DISCORD_WEBHOOK_URL",
  webhook: "No target: add a webhook endpoint below",
  email: "No target yet: nobody has confirmed an email address",
};

/** "Active" only for a channel that can send now (issue 33, item 8); else why it cannot. */
export function channelStateText(channel: ChannelView): string {
  if (!channel.configured) return "Not configured";
  if (channel.disabledAt) return "Disabled";
  if (channel.targets === 0) return NO_TARGET[channel.channel];
  return "Active";
}
