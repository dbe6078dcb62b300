/** Display helpers shared by pages and the CLI. */
const US_NUMBER = new Intl.NumberFormat("en-US");
const US_NUMBER_2DP = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatNumber(value: number): string {
  return US_NUMBER.format(value);
}

/**
 * Whole points, US-English separators, rounded DOWN (DECISIONS "Points": a whole-point display never shows
 * points not yet had; 737.5 is '737'). Pages show it with `formatPointsExact` on hover and focus
 * (app/components/ui/points-figure.tsx).
 */
export function formatPoints(points: number): string {
  return US_NUMBER.format(Math.floor(points));
}

/**
 * Points to exactly two decimals, US-English separators ('1,234.50', '4.17'): the exact value behind a
 * whole-point display, and what the points history, the CLI and sentences (toasts) show.
 */
export function formatPointsExact(points: number): string {
  return US_NUMBER_2DP.format(Math.round(points * 100) / 100);
}

/** A signed change to two decimals ('+4.17', '-200.00', '0.00'). */
export function formatPointsDelta(points: number): string {
  const rounded = Math.round(points * 100) / 100;
  return `${rounded > 0 ? "+" : ""}${formatPointsExact(rounded)}`;
}

/** Points to two decimals without separators ('1234.50'), for files read by programs (the CSV). */
export function pointsDecimal(points: number): string {
  return (Math.round(points * 100) / 100).toFixed(2);
}

/** A koinu balance (1 DOGE = 100,000,000 koinu) as DOGE to 2 decimals. */
export function formatDoge(koinu: number | string): string {
  return US_NUMBER_2DP.format(Number(koinu) / 100_000_000);
}

/** First `head` and last `tail` characters joined by an ellipsis (4+4 in the header, 6+4 for winners). */
export function shortenAddress(address: string, head = 4, tail = 4): string {
  if (address.length <= head + tail + 3) return address;
  return `${address.slice(0, head)}...${address.slice(-tail)}`;
}

/** 'Nd Nh', 'Nh Nm', 'Nm', or 'Ended' once the end has passed. */
export function timeRemaining(endDate: Date, at: Date): string {
  const ms = endDate.getTime() - at.getTime();
  if (!(ms > 0)) return "Ended";
  const totalMinutes = Math.floor(ms / 60_000);
  const days = Math.floor(totalMinutes / 1440);
  const hours = Math.floor((totalMinutes % 1440) / 60);
  const minutes = totalMinutes % 60;
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  return `${minutes}m`;
}

/** Description preview: 150 characters plus '...' when longer. */
export function previewText(text: string, limit = 150): string {
  return text.length > limit ? `${text.slice(0, limit)}...` : text;
}

/**
 * "1 entry", "3 entries", "1,024 tickets": a count with its noun, singular or plural as the count asks (the
 * plural defaults to the noun + "s").
 */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${US_NUMBER.format(count)} ${count === 1 ? singular : plural}`;
}

// One clock (issue 33, item 5) ---------------------------------------------------------------------------
//
// Every time of day a person reads carries its zone: the reader's local time with its abbreviation
// ("07:00 GMT+1", "07:00 CET", "07:00 UTC" in a UTC browser), or UTC marked UTC where no reader's zone is
// known (emails, notifications, channel posts, the server's first render). 24-hour clock, dates as the spec's
// 'MMM d, yyyy'. Pages use these through app/components/ui/time.tsx, which renders UTC until hydrated.

/** Where a time is read: the reader's own zone ("local") or UTC. Tests may name an IANA zone. */
export type ClockZone = "local" | "utc" | { timeZone: string };

const zoneOf = (zone: ClockZone): string | undefined => (zone === "utc" ? "UTC" : zone === "local" ? undefined : zone.timeZone);

const clockFormats = new Map<string, { time: Intl.DateTimeFormat; day: Intl.DateTimeFormat }>();

function clockFormat(zone: ClockZone) {
  const timeZone = zoneOf(zone);
  const key = timeZone ?? "";
  let found = clockFormats.get(key);
  if (!found) {
    found = {
      time: new Intl.DateTimeFormat("en-US", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short", timeZone }),
      day: new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric", timeZone }),
    };
    // The reader's zone may change between renders (tests move it); only fixed zones are kept.
    if (timeZone) clockFormats.set(key, found);
  }
  return found;
}

const asDate = (at: Date | string | number) => (at instanceof Date ? at : new Date(at));

/** "07:00 GMT+1", "06:00 UTC": a time of day with its zone. */
export function formatTime(at: Date | string | number, zone: ClockZone = "local"): string {
  const parts = clockFormat(zone).time.formatToParts(asDate(at));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("hour")}:${part("minute")} ${part("timeZoneName")}`;
}

/** "Dec 1, 2026" (the spec's 'MMM d, yyyy'), the day in that zone. */
export function formatDate(at: Date | string | number, zone: ClockZone = "local"): string {
  return clockFormat(zone).day.format(asDate(at));
}

/** "Dec 1, 2026, 07:00 GMT+1": the one date-and-time format of the site, the admin, the bell and the emails. */
export function formatDateTime(at: Date | string | number, zone: ClockZone = "local"): string {
  return `${formatDate(at, zone)}, ${formatTime(at, zone)}`;
}
