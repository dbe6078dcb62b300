/**
 * The notification events (issue 24; docs/notifications.md): their names, used everywhere (payloads,
 * preferences, docs), and who each goes to. Personal events go to one address; the others to everyone.
 */
export const NOTIFICATION_EVENTS = [
  "giveaway.opened",
  "giveaway.closing_soon",
  "giveaway.drawn",
  "giveaway.won",
  "proposal.opened",
  "proposal.closing_soon",
  "proposal.closed",
  "stake.ended",
  "points.adjusted",
] as const;

export type NotificationEventName = (typeof NOTIFICATION_EVENTS)[number];

export const PERSONAL_EVENTS: ReadonlySet<NotificationEventName> = new Set(["giveaway.won", "stake.ended", "points.adjusted"]);

export function isPersonalEvent(event: NotificationEventName): boolean {
  return PERSONAL_EVENTS.has(event);
}

export function isNotificationEvent(value: unknown): value is NotificationEventName {
  return typeof value === "string" && (NOTIFICATION_EVENTS as readonly string[]).includes(value);
}

/** Who an event goes to, in words (the docs and the admin's tab). */
export const EVENT_AUDIENCE: Record<NotificationEventName, "everyone" | "one address"> = Object.fromEntries(
  NOTIFICATION_EVENTS.map((event) => [event, PERSONAL_EVENTS.has(event) ? "one address" : "everyone"]),
) as Record<NotificationEventName, "everyone" | "one address">;

/** How long before a giveaway's or proposal's end its `*.closing_soon` goes out. */
export const CLOSING_SOON_MS = 24 * 3_600_000;

/** A proposal that closed longer ago than this is not announced (an upgrade never announces old history). */
export const CLOSED_CATCH_UP_MS = 7 * 24 * 3_600_000;

/** What an event says: its title and body (plain text, public facts only) and a path of the site. */
export type NotificationText = { title: string; body: string; link: string };

const points = (value: number) => `${value.toLocaleString("en-US", { maximumFractionDigits: 2 })} point${value === 1 ? "" : "s"}`;
const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;
const day = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

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
  giveawayWon: (g: { id: number; title: string }): NotificationText => ({
    title: `You won: ${g.title}`,
    body: `Your ticket won the giveaway "${g.title}". The admin will be in touch.`,
    link: `/giveaways/${g.id}/verify`,
  }),
  proposalOpened: (p: { id: number; title: string; endDate: Date }): NotificationText => ({
    title: `Vote open: ${p.title}`,
    body: `Voting is open until ${day(p.endDate)}.`,
    link: "/governance",
  }),
  proposalClosingSoon: (p: { id: number; title: string; endDate: Date }): NotificationText => ({
    title: `Vote closing soon: ${p.title}`,
    body: `Voting closes at ${day(p.endDate)}.`,
    link: "/governance",
  }),
  proposalClosed: (p: { id: number; title: string; options: readonly { text: string; votes: number }[] }): NotificationText => {
    const total = p.options.reduce((sum, option) => sum + option.votes, 0);
    const top = Math.max(0, ...p.options.map((option) => option.votes));
    const leaders = p.options.filter((option) => option.votes === top);
    const result =
      total === 0
        ? "No votes were cast."
        : leaders.length > 1
          ? `A tie between ${leaders.map((option) => `"${option.text}"`).join(" and ")} with ${top.toLocaleString("en-US")} votes each.`
          : `"${leaders[0].text}" won with ${top.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} votes.`;
    return { title: `Vote closed: ${p.title}`, body: result, link: "/governance" };
  },
  pointsAdjusted: (a: { points: number; description: string | null; balance: number }): NotificationText => ({
    title: a.points >= 0 ? `You received ${points(a.points)}` : `${points(-a.points)} removed from your balance`,
    body: `${a.description ? `${a.description}. ` : ""}Your balance is now ${points(a.balance)}.`,
    link: "/rewards/history",
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
