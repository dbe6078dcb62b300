/**
 * "Boosts" beside Reward Multipliers (issue 33, item 3): the rarity and tenure percentages in force, and every
 * upcoming schedule with when it starts ("From 07:00 UTC: Legendary 150%, …"), so a holder learns of a change
 * before it comes. Reads GET /api/boosts, which the stake previews use too.
 */
import type { BoostSchedulesAnswer } from "../../api/boosts.ts";
import { BOOST_MAX, boostRulesText, DEFAULT_BOOSTS, type BoostRules } from "../../domain/boosts.ts";
import { RARITIES } from "../../domain/collections.ts";
import { paths } from "../../lib/api.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { DateText } from "../governance/date-text.tsx";
import { Card, CardContent, CardHeader, CardTitle } from "../ui/card.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";

/** The schedules (current, upcoming, history), read again every few minutes: a schedule may be saved meanwhile. */
export function useBoostSchedules() {
  return useApiQuery<BoostSchedulesAnswer>(paths.boosts(), { staleTime: 60_000, refetchInterval: 5 * 60_000 });
}

/** The rules in force now, or null while they are not known (the previews wait for them). */
export function useBoostRules(): BoostRules | null {
  const { data } = useBoostSchedules();
  return data ? { rarity: data.current.rarity, tenure: data.current.tenure, cap: data.current.cap } : null;
}

type Schedule = BoostSchedulesAnswer["current"];

function RulesTable({ rules, caption }: { rules: Schedule; caption: string }) {
  return (
    <table className="w-full text-sm whitespace-nowrap">
      <caption className="sr-only">{caption}</caption>
      <tbody>
        {RARITIES.map((rarity) => (
          <tr key={rarity} className="border-t border-zinc-800 first:border-t-0">
            <th scope="row" className="py-1.5 text-left font-normal text-zinc-300">
              {rarity}
            </th>
            <td className="py-1.5 text-right font-semibold">{rules.rarity[rarity]}%</td>
          </tr>
        ))}
        {rules.tenure.map((step) => (
          <tr key={step.days} className="border-t border-zinc-800">
            <th scope="row" className="py-1.5 text-left font-normal text-zinc-300">
              Staked {step.days} {step.days === 1 ? "day" : "days"}
            </th>
            <td className="py-1.5 text-right font-semibold">{step.percent}%</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function BoostsCard() {
  const schedules = useBoostSchedules();
  const current = schedules.data?.current;
  return (
    <Card data-testid="boosts-card">
      <CardHeader>
        <CardTitle className="text-base">Boosts</CardTitle>
      </CardHeader>
      <CardContent className="grid gap-3">
        {schedules.isError && !schedules.data ? (
          <LoadFailed what="the boosts" error={schedules.error} onRetry={schedules.refetch} retrying={schedules.isFetching} />
        ) : !current ? (
          <Skeleton className="h-24 w-full" />
        ) : (
          <>
            <p className="text-xs text-zinc-400">
              Each staked Spook earns its tier&apos;s rate × its rarity % × its tenure % (days staked without a break)
              {current.cap < BOOST_MAX ? `, at most ${current.cap}%` : ""}.
            </p>
            <RulesTable rules={current} caption="Boost percentages in force" />
            {sameAsDefaults(current) && <p className="text-xs text-zinc-400">No boosts are in force: every Spook earns 100%.</p>}
            {(schedules.data?.upcoming ?? []).map((upcoming) => (
              <p
                key={upcoming.version}
                className="rounded-lg border border-amber-500/30 bg-amber-500/10 px-3 py-2 text-xs text-amber-100"
                data-testid="boosts-upcoming"
              >
                From <DateText value={upcoming.effectiveFrom} withTime />: {boostRulesText(upcoming)}.
              </p>
            ))}
          </>
        )}
      </CardContent>
    </Card>
  );
}

function sameAsDefaults(rules: BoostRules): boolean {
  return RARITIES.every((rarity) => rules.rarity[rarity] === DEFAULT_BOOSTS.rarity[rarity]) && rules.tenure.length === 0;
}
