/** Display helpers shared by pages and the CLI. */
const US_NUMBER = new Intl.NumberFormat("en-US");
const US_NUMBER_2DP = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatNumber(value: number): string {
  return US_NUMBER.format(value);
}

/** Whole points, US-English separators (DECISIONS: pages show whole points). */
export function formatPoints(points: number): string {
  return US_NUMBER.format(Math.floor(points));
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
