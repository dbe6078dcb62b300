/**
 * The admin's boost schedule (issue 26): the schedules in force and to come, and a form whose "Preview" shows
 * the effect on today's stakes (points per day for the whole catalogue, before → after) before "Save"
 * records it (PUT /api/admin/boosts). A tab of its own; the rules are the server's.
 */
import { useState } from "react";
import type { BoostSchedulePreview, BoostSchedulesAnswer } from "../../api/boosts.ts";
import { formatNumber } from "../../domain/format.ts";
import { api, ApiError, apiPost } from "../../lib/api.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { Button } from "../ui/button.tsx";
import { Input, Label } from "../ui/input.tsx";

const RARITY_FIELDS = ["Common", "Rare", "Epic", "Legendary"] as const;

type Draft = { from: string; rarity: Record<(typeof RARITY_FIELDS)[number], string>; tenure: string; cap: string };

function nextHourLocal(): string {
  const next = new Date(Math.ceil((Date.now() + 1) / 3_600_000) * 3_600_000);
  return next.toISOString().slice(0, 16);
}

/** The body the API takes; the server names any field that breaks a rule. */
function bodyOf(draft: Draft) {
  const tenure = draft.tenure
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [days, percent] = part.split(":").map((value) => Number(value.trim()));
      return { days, percent };
    });
  return {
    effectiveFrom: new Date(`${draft.from}:00Z`).toISOString(),
    rarity: Object.fromEntries(RARITY_FIELDS.map((name) => [name, Number(draft.rarity[name])])),
    tenure,
    cap: Number(draft.cap),
  };
}

const rulesText = (s: BoostSchedulesAnswer["current"]) =>
  `${RARITY_FIELDS.map((name) => `${name} ${s.rarity[name]}%`).join(", ")}; tenure ${
    s.tenure.length ? s.tenure.map((step) => `${step.days}d ${step.percent}%`).join(", ") : "none"
  }; cap ${s.cap}%`;

/** "1 item", "2 items", "1,200 wallets". */
const counted = (count: number, noun: string) => `${formatNumber(count)} ${noun}${count === 1 ? "" : "s"}`;

export function BoostsTab() {
  const schedules = useApiQuery<BoostSchedulesAnswer>("/api/boosts", { staleTime: 0 });
  const [draft, setDraft] = useState<Draft>({
    from: nextHourLocal(),
    rarity: { Common: "100", Rare: "110", Epic: "130", Legendary: "150" },
    tenure: "7:110, 30:120",
    cap: "200",
  });
  const [preview, setPreview] = useState<BoostSchedulePreview | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  const failed = (error: unknown) => setMessage(error instanceof ApiError ? error.message : "Something went wrong");
  const change = (next: Partial<Draft>) => {
    setDraft((current) => ({ ...current, ...next }));
    setPreview(null);
  };
  const runPreview = async () => {
    setMessage(null);
    try {
      setPreview(await apiPost<BoostSchedulePreview>("/api/admin/boosts/preview", bodyOf(draft)));
    } catch (error) {
      failed(error);
    }
  };
  const save = async () => {
    setMessage(null);
    try {
      const saved = await api<{ version: number }>("/api/admin/boosts", { method: "PUT", body: bodyOf(draft) });
      setMessage(`Saved as version ${saved.version}`);
      setPreview(null);
      void schedules.refetch();
    } catch (error) {
      failed(error);
    }
  };

  return (
    <div className="grid gap-4" data-testid="boosts-tab">
      {schedules.data && (
        <div className="grid gap-1 text-sm text-zinc-300">
          <p>
            In force: {schedules.data.current.version === null ? "defaults" : `v${schedules.data.current.version}`} —{" "}
            {rulesText(schedules.data.current)}
          </p>
          {schedules.data.upcoming.map((s) => (
            <p key={s.version}>
              From {s.effectiveFrom}: v{s.version} — {rulesText(s)}
            </p>
          ))}
        </div>
      )}
      <form className="grid grid-cols-2 gap-3 sm:grid-cols-4" aria-label="New boost schedule" onSubmit={(event) => event.preventDefault()}>
        <div className="grid gap-1">
          <Label htmlFor="boost-from">From (UTC, whole hour)</Label>
          <Input id="boost-from" type="datetime-local" step={3600} value={draft.from} onChange={(e) => change({ from: e.target.value })} />
        </div>
        {RARITY_FIELDS.map((name) => (
          <div className="grid gap-1" key={name}>
            <Label htmlFor={`boost-${name}`}>{name} %</Label>
            <Input
              id={`boost-${name}`}
              inputMode="numeric"
              value={draft.rarity[name]}
              onChange={(e) => change({ rarity: { ...draft.rarity, [name]: e.target.value } })}
            />
          </div>
        ))}
        <div className="grid gap-1">
          <Label htmlFor="boost-tenure">Tenure (days:percent, …)</Label>
          <Input id="boost-tenure" value={draft.tenure} onChange={(e) => change({ tenure: e.target.value })} />
        </div>
        <div className="grid gap-1">
          <Label htmlFor="boost-cap">Cap %</Label>
          <Input id="boost-cap" inputMode="numeric" value={draft.cap} onChange={(e) => change({ cap: e.target.value })} />
        </div>
      </form>
      <div className="flex gap-2">
        <Button variant="secondary" onClick={() => void runPreview()}>
          Preview
        </Button>
        <Button onClick={() => void save()} disabled={preview === null}>
          Save
        </Button>
      </div>
      {message && (
        <p role="status" className="text-sm text-zinc-200">
          {message}
        </p>
      )}
      {preview && (
        <div className="grid gap-1 text-sm" data-testid="boosts-preview">
          <p>
            {counted(preview.items, "item")} staked in {counted(preview.wallets, "wallet")}: {formatNumber(preview.before.pointsPerDay)} →{" "}
            {formatNumber(preview.after.pointsPerDay)} points per day
          </p>
          {preview.byRarity.map((row) => (
            <p key={row.rarity} className="text-zinc-400">
              {row.rarity}: {counted(row.items, "item")}, {formatNumber(row.before)} → {formatNumber(row.after)} a day
            </p>
          ))}
        </div>
      )}
    </div>
  );
}
