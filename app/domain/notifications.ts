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
