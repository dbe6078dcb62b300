/**
 * The bit of Discord's markdown our slash-command answers use (app/domain/discord-commands.ts), read into parts
 * the admin's preview renders as Discord would: **bold**, `code`, timestamps `<t:UNIX:R|t|f>` in the reader's
 * own zone, and [masked](https://links). Anything else stays text.
 */
export type MarkdownPart =
  | { kind: "text"; text: string }
  | { kind: "bold"; text: string }
  | { kind: "code"; text: string }
  | { kind: "time"; text: string; iso: string }
  | { kind: "link"; text: string; href: string };

const TOKEN = /\*\*(.+?)\*\*|`([^`]+)`|<t:(-?\d{1,13})(?::([tTdDfFR]))?>|\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g;

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400],
  ["month", 30 * 86_400],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
  ["second", 1],
];

/** "in 23 minutes", "5 hours ago": what Discord shows for `<t:…:R>`. */
export function relativeText(at: Date, now: Date): string {
  const seconds = Math.round((at.getTime() - now.getTime()) / 1000);
  const [unit, size] = UNITS.find(([, length]) => Math.abs(seconds) >= length) ?? UNITS[UNITS.length - 1];
  return new Intl.RelativeTimeFormat("en", { numeric: "always" }).format(Math.round(seconds / size), unit);
}

function timeText(at: Date, style: string, now: Date): string {
  if (style === "R") return relativeText(at, now);
  if (style === "t") return at.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit" });
  if (style === "T") return at.toLocaleTimeString("en-US");
  if (style === "d" || style === "D") return at.toLocaleDateString("en-US", { dateStyle: style === "d" ? "short" : "long" });
  return at.toLocaleString("en-US", { dateStyle: style === "F" ? "full" : "long", timeStyle: "short" });
}

export function discordMarkdown(text: string, now: Date = new Date()): MarkdownPart[] {
  const parts: MarkdownPart[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (match.index > last) parts.push({ kind: "text", text: text.slice(last, match.index) });
    const [, bold, code, unix, style, label, href] = match;
    if (bold !== undefined) parts.push({ kind: "bold", text: bold });
    else if (code !== undefined) parts.push({ kind: "code", text: code });
    else if (unix !== undefined) {
      const at = new Date(Number(unix) * 1000);
      parts.push({ kind: "time", text: timeText(at, style ?? "f", now), iso: at.toISOString() });
    } else parts.push({ kind: "link", text: label, href });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ kind: "text", text: text.slice(last) });
  return parts;
}
