/**
 * A wallet's points history (issue 18): what each ledger row is called and how it is explained, the same
 * for the API, its CSV and JSON exports, the history page and `spooks-admin points history`.
 */
import { COLLECTIONS } from "./collections.ts";
import { formatNumber, pointsDecimal } from "./format.ts";
import { UNITS_PER_POINT, unitsToPoints } from "./rewards.ts";
import { csvRecord, verbatim } from "./csv.ts";

/** Every cause of a change of balance, as the ledger names it (db/migrations/0001_init.sql). */
export const LEDGER_KINDS = [
  "accrual",
  "giveaway_entry",
  "giveaway_refund",
  "admin_add",
  "admin_clear",
  "negative_reset",
  "recalculation",
] as const;

export type LedgerKind = (typeof LEDGER_KINDS)[number];

export const LEDGER_KIND_LABELS: Record<LedgerKind, string> = {
  accrual: "Hourly accrual",
  giveaway_entry: "Giveaway entry",
  giveaway_refund: "Refund",
  admin_add: "Admin add",
  admin_clear: "Admin clear",
  negative_reset: "Negative balance reset",
  recalculation: "Recalculation",
};

/** Where a row's explanation comes from (migration 0011): written with it, rebuilt later, or lost. */
export type DetailsSource = "recorded" | "reconstructed" | "unknown";

export const HISTORY_DEFAULT_LIMIT = 50;
export const HISTORY_MAX_LIMIT = 500;
/** The two-decimal columns first (as before), then the exact ones: whole units, 1 point = 2,400 units (issue 32, item 12). */
export const CSV_HEADER = "at,kind,delta,balance_after,details,delta_units,balance_after_units";

/** A ledger row as the history query reads it (amounts in units). */
export type LedgerRow = {
  id: number;
  createdAt: Date;
  kind: LedgerKind;
  amount: number;
  balanceAfter: number;
  accrualHour: Date | null;
  stakedSpooks: number | null;
  stakedSpookSociety: number | null;
  tier: number | null;
  itemHourUnits: number | null;
  /** Accruals since issue 26: the boost schedule's version (null: the defaults), the items' rarity and combined percentages summed. */
  boostVersion?: number | null;
  rarityPercentSum?: number | null;
  boostPercentSum?: number | null;
  giveawayId: number | null;
  giveawayTitle: string | null;
  tickets: number | null;
  description: string | null;
  actor: string;
  detailsSource: DetailsSource;
};

export type EntryDetails = {
  summary: string;
  source: DetailsSource;
  hour?: Date;
  staked?: { spooks: number; spookSociety: number };
  tier?: number;
  dailyRatePerItem?: number;
  /** Accrual with boosts: the schedule, and the items' rarity and combined (rarity × tenure, capped) percentages summed. */
  boost?: { version: number | null; rarityPercentSum: number; boostPercentSum: number };
  giveawayId?: number;
  giveawayTitle?: string | null;
  tickets?: number;
  description?: string | null;
  by?: string;
};

export type HistoryEntry = {
  id: number;
  at: Date;
  kind: LedgerKind;
  delta: number;
  balanceAfter: number;
  details: EntryDetails;
  /** The same two values exactly, in units (1 point = 2,400 units): what sums to the balance without rounding. */
  deltaUnits: number;
  balanceAfterUnits: number;
};

const plural = (count: number, one: string, many = `${one}s`) => `${formatNumber(count)} ${count === 1 ? one : many}`;

/** `2026-11-25 14:00–15:00 UTC` */
export function hourLabel(hour: Date): string {
  const iso = hour.toISOString();
  const end = new Date(hour.getTime() + 3_600_000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}–${end.slice(11, 16)} UTC`;
}

function accrualDetails(row: LedgerRow, source: DetailsSource): EntryDetails {
  const hour = row.accrualHour ?? row.createdAt;
  if (row.stakedSpooks === null || row.stakedSpookSociety === null || row.tier === null || row.itemHourUnits === null) {
    return { summary: `Hour ${hourLabel(hour)}; what was staked is not known`, source, hour };
  }
  const dailyRatePerItem = (row.itemHourUnits * 24) / UNITS_PER_POINT;
  const staked = { spooks: row.stakedSpooks, spookSociety: row.stakedSpookSociety };
  const parts = [
    plural(staked.spooks, COLLECTIONS.spooks.displayName, COLLECTIONS.spooks.displayName),
    plural(staked.spookSociety, COLLECTIONS["spook-society"].displayName, COLLECTIONS["spook-society"].displayName),
  ];
  const items = staked.spooks + staked.spookSociety;
  const boosted =
    row.boostPercentSum !== undefined && row.boostPercentSum !== null && row.rarityPercentSum !== undefined && row.rarityPercentSum !== null
      ? { version: row.boostVersion ?? null, rarityPercentSum: Number(row.rarityPercentSum), boostPercentSum: Number(row.boostPercentSum) }
      : null;
  // The parts, when boosts changed anything: rarity on average, then tenure (and the cap) on top of it.
  const average = (sum: number) => `${formatNumber(Math.round((sum / items) * 100) / 100)}%`;
  const boostText =
    boosted && items > 0 && boosted.boostPercentSum !== 100 * items
      ? ` × boosts of schedule v${boosted.version ?? 0} (rarity ${average(boosted.rarityPercentSum)}, with tenure and cap ` +
        `${average(boosted.boostPercentSum)} on average) = ${formatNumber((dailyRatePerItem * boosted.boostPercentSum) / 100)} points a day`
      : "";
  return {
    summary: `Hour ${hourLabel(hour)}: ${parts.join(" and ")} staked, tier ${row.tier}, ${formatNumber(dailyRatePerItem)} points a day each${boostText}`,
    source,
    hour,
    staked,
    tier: row.tier,
    dailyRatePerItem,
    ...(boosted ? { boost: boosted } : {}),
  };
}

function giveawayDetails(row: LedgerRow, source: DetailsSource): EntryDetails {
  if (row.giveawayId === null || row.tickets === null) {
    return { summary: row.description ?? "Giveaway; which one is not known", source };
  }
  const named = `giveaway #${row.giveawayId}${row.giveawayTitle === null ? "" : ` "${row.giveawayTitle}"`}`;
  const tickets = plural(row.tickets, "ticket");
  const summary = row.kind === "giveaway_entry" ? `${tickets} in ${named}` : `Refund of ${tickets}: ${named} was deleted`;
  return { summary, source, giveawayId: row.giveawayId, giveawayTitle: row.giveawayTitle, tickets: row.tickets };
}

const BY: Record<string, string> = { cli: "the admin (CLI)", system: "the system" };

/** Who made an admin change, in words: `web:{address}` is the admin's wallet on the site. */
function byWhom(actor: string): string {
  return actor.startsWith("web:") ? "the admin" : (BY[actor] ?? actor);
}

function adminDetails(row: LedgerRow, source: DetailsSource): EntryDetails {
  const by = byWhom(row.actor);
  const text = row.description ? `: ${row.description}` : "";
  const summaries: Record<string, string> = {
    admin_add: `Added by ${by}${text}`,
    admin_clear: `Balance cleared to 0 by ${by}`,
    negative_reset: `Negative balance reset to 0 by ${by}`,
    recalculation: `Recalculation by ${by}${text}`,
  };
  return { summary: summaries[row.kind] ?? `${LEDGER_KIND_LABELS[row.kind]}${text}`, source, description: row.description, by };
}

/** The explanation of one ledger row. */
export function explain(row: LedgerRow): EntryDetails {
  if (row.kind === "accrual") return accrualDetails(row, row.detailsSource);
  if (row.kind === "giveaway_entry" || row.kind === "giveaway_refund") return giveawayDetails(row, row.detailsSource);
  return adminDetails(row, row.detailsSource);
}

export function historyEntry(row: LedgerRow): HistoryEntry {
  return {
    id: row.id,
    at: row.createdAt,
    kind: row.kind,
    delta: unitsToPoints(row.amount),
    balanceAfter: unitsToPoints(row.balanceAfter),
    details: explain(row),
    deltaUnits: Number(row.amount),
    balanceAfterUnits: Number(row.balanceAfter),
  };
}

/** One CSV line (with its line break) in the header's order. */
export function csvLine(entry: HistoryEntry): string {
  // Two decimals, as the page and the CLI show them (DECISIONS "Points"): 737.50, never 737.5.
  return csvRecord([
    entry.at.toISOString(),
    entry.kind,
    verbatim(pointsDecimal(entry.delta)),
    verbatim(pointsDecimal(entry.balanceAfter)),
    entry.details.summary,
    verbatim(String(entry.deltaUnits)),
    verbatim(String(entry.balanceAfterUnits)),
  ]);
}
