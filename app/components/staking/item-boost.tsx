/**
 * Why a staked item earns what it earns (issue 26, item 3): its daily rate with its parts ("150/day ×
 * Legendary 150% × 30 days 120% = 270/day") and its next tenure step with a countdown. A component of its
 * own, so the item card only places it.
 */
import { useEffect, useState } from "react";
import { describeItemRate } from "../../domain/boosts.ts";
import type { WalletItem } from "../../lib/api.ts";

/** "2d 4h", "3h 12m", "5m": the time left until `at`. */
export function countdown(at: Date, now: Date): string {
  const minutes = Math.max(0, Math.ceil((at.getTime() - now.getTime()) / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${minutes % 60}m`;
  return `${minutes}m`;
}

/** The parts of a staked item's rate, as the card shows them. */
export function itemRateText(item: WalletItem): string | null {
  if (!item.boost || item.perDay === null) return null;
  return describeItemRate(
    {
      baseDaily: item.rewardRate,
      rarityPercent: item.boost.rarityPercent,
      tenurePercent: item.boost.tenurePercent,
      tenureDays: item.boost.tenureDays,
      combinedPercent: item.boost.combinedPercent,
      perDay: item.perDay,
      nextStep: null,
    },
    item.rarityLabel,
  );
}

function useMinuteClock(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function ItemBoost({ item }: { item: WalletItem }) {
  const now = useMinuteClock();
  const text = itemRateText(item);
  if (!text || !item.boost) return null;
  const boosted = item.perDay !== item.rewardRate;
  const next = item.boost.nextStep;
  if (!boosted && !next) return null;
  return (
    <div className="grid gap-0.5 text-[11px] text-zinc-400" data-testid="item-boost">
      {boosted && <p data-testid="item-rate-parts">{text}</p>}
      {next && (
        <p data-testid="item-next-step">
          Next: {next.days} days {next.percent}% in {countdown(new Date(next.at), now)}
        </p>
      )}
    </div>
  );
}
