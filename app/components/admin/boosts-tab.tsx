/**
 * The admin's boost schedule (issue 26; issue 33, item 7): every schedule (in force, upcoming with "Cancel",
 * past) in one table, and a form with each field's rule beside it, a row per tenure step, and errors under the
 * field they are about, in plain words. "Preview" shows the effect on today's stakes (points per day for the
 * whole catalogue, before → after) before "Save" records it (PUT /api/admin/boosts). The rules are the
 * server's; the page checks them first with the same domain rules so a mistake is named before any request.
 */
import { useState } from "react";
import type { BoostSchedulePreview, BoostSchedulesAnswer } from "../../api/boosts.ts";
import { BOOST_MAX, BOOST_MIN, BOOST_STEP, boostRulesText, MAX_TENURE_DAYS, MAX_TENURE_STEPS } from "../../domain/boosts.ts";
import { countOf, formatNumber } from "../../domain/format.ts";
import { api, ApiError, apiPost, isPendingApproval, type PendingApproval } from "../../lib/api.ts";
import { approvalRequestedText } from "./approval-requested.ts";
import { useAdminRole } from "./role-context.tsx";
import { useApiQuery } from "../../lib/queries.ts";
import { DateText } from "../governance/date-text.tsx";
import { ConfirmDialog } from "../ui/alert-dialog.tsx";
import { Button } from "../ui/button.tsx";
import { Input, Label } from "../ui/input.tsx";
import { AdminTable } from "./admin-table.tsx";

const RARITY_FIELDS = ["Common", "Rare", "Epic", "Legendary"] as const;
const PERCENT_HINT = `Steps of ${BOOST_STEP}, ${BOOST_MIN}-${BOOST_MAX}`;

type TenureRow = { days: string; percent: string };
type Draft = { from: string; rarity: Record<(typeof RARITY_FIELDS)[number], string>; tenure: TenureRow[]; cap: string };
/** Field → its error in plain words: "from", "rarity.Epic", "tenure.0.days", "cap". */
type Errors = Record<string, string>;
type Schedule = BoostSchedulesAnswer["current"];

/** The next whole hour in UTC, as the datetime-local input holds it ("2026-12-01T06:00"). */
function nextHourUtc(): string {
  const next = new Date(Math.ceil((Date.now() + 1) / 3_600_000) * 3_600_000);
  return next.toISOString().slice(0, 16);
}

const isPercent = (text: string) => /^\d+$/.test(text.trim()) && isPercentValue(Number(text));
const isPercentValue = (value: number) => value >= BOOST_MIN && value <= BOOST_MAX && value % BOOST_STEP === 0;
const percentError = (what: string) => `${what} must be a whole number from ${BOOST_MIN} to ${BOOST_MAX}, in steps of ${BOOST_STEP}.`;

/** What is wrong with the draft, field by field, in the words the admin reads under each field. */
export function draftErrors(draft: Draft, now: Date = new Date()): Errors {
  const errors: Errors = {};
  const from = new Date(`${draft.from}:00Z`);
  if (!draft.from || Number.isNaN(from.getTime())) errors.from = "Pick the day and hour it starts (UTC).";
  else if (from.getUTCMinutes() !== 0) errors.from = "It starts on a whole hour: set the minutes to 00.";
  else if (from.getTime() < now.getTime()) errors.from = "It cannot start in the past: pick a later hour.";
  for (const name of RARITY_FIELDS) if (!isPercent(draft.rarity[name])) errors[`rarity.${name}`] = percentError(name);
  draft.tenure.forEach((row, i) => {
    const days = Number(row.days);
    if (!/^\d+$/.test(row.days.trim()) || days < 1 || days > MAX_TENURE_DAYS) {
      errors[`tenure.${i}.days`] = `Days must be a whole number from 1 to ${formatNumber(MAX_TENURE_DAYS)}.`;
    } else if (i > 0 && days <= Number(draft.tenure[i - 1].days)) {
      errors[`tenure.${i}.days`] = `Each step needs more days than the one above (more than ${draft.tenure[i - 1].days}).`;
    }
    if (!isPercent(row.percent)) errors[`tenure.${i}.percent`] = percentError("The percent");
  });
  if (!isPercent(draft.cap)) errors.cap = percentError("The cap");
  return errors;
}

/** The server's message as a field error: "rarity.Rare must be …" → { "rarity.Rare": "Rare must be …" }. */
export function serverFieldError(message: string): Errors {
  const match = /^(effectiveFrom|rarity\.(\w+)|tenure\[(\d+)\]\.(days|percent)|cap)\b(.*)$/.exec(message);
  if (!match) return {};
  const [, field, rarity, index, part, rest] = match;
  if (field === "effectiveFrom") return { from: `The start${rest}` };
  if (rarity) return { [`rarity.${rarity}`]: `${rarity}${rest}` };
  if (index !== undefined) return { [`tenure.${index}.${part}`]: `The ${part === "days" ? "days" : "percent"}${rest}` };
  return { cap: `The cap${rest}` };
}

/** The body the API takes. */
function bodyOf(draft: Draft) {
  return {
    effectiveFrom: new Date(`${draft.from}:00Z`).toISOString(),
    rarity: Object.fromEntries(RARITY_FIELDS.map((name) => [name, Number(draft.rarity[name])])),
    tenure: draft.tenure.map((row) => ({ days: Number(row.days), percent: Number(row.percent) })),
    cap: Number(draft.cap),
  };
}

function FieldError({ id, error }: { id: string; error?: string }) {
  return error ? (
    <p id={id} role="alert" className="text-xs text-red-300" data-field-error={id}>
      {error}
    </p>
  ) : null;
}

function PercentField({
  id,
  label,
  value,
  error,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  error?: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="grid content-start gap-1">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        type="number"
        inputMode="numeric"
        min={BOOST_MIN}
        max={BOOST_MAX}
        step={BOOST_STEP}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
        onChange={(event) => onChange(event.target.value)}
      />
      <p id={`${id}-hint`} className="text-xs text-zinc-400">
        {PERCENT_HINT}
      </p>
      <FieldError id={`${id}-error`} error={error} />
    </div>
  );
}

/** `onCancel` null: the member's role may not change boosts, so no Cancel is offered. */
function SchedulesTable({ data, onCancel }: { data: BoostSchedulesAnswer; onCancel: ((schedule: Schedule) => void) | null }) {
  const rows: { schedule: Schedule; state: "In force" | "Upcoming" | "Past" }[] = [
    ...data.upcoming.map((schedule) => ({ schedule, state: "Upcoming" as const })).reverse(),
    { schedule: data.current, state: "In force" as const },
    ...data.history.map((schedule) => ({ schedule, state: "Past" as const })),
  ];
  return (
    <AdminTable
      caption="Boost schedules, latest start first"
      columns={["Version", "From", "State", "Rules", ""]}
      className="min-w-[40rem]"
      testId="boost-schedules"
    >
      {rows.map(({ schedule, state }) => (
        <tr key={`${schedule.version ?? "defaults"}`} data-testid="boost-schedule-row" data-state={state}>
          <td className="px-4 py-3 text-zinc-200">{schedule.version === null ? "defaults" : `v${schedule.version}`}</td>
          <td className="px-4 py-3 whitespace-nowrap text-zinc-300">
            {schedule.effectiveFrom ? <DateText value={schedule.effectiveFrom} withTime /> : "always"}
          </td>
          <td className="px-4 py-3 text-zinc-200">{state}</td>
          <td className="px-4 py-3 text-zinc-300">{boostRulesText(schedule)}</td>
          <td className="px-4 py-3 text-right">
            {state === "Upcoming" && onCancel && (
              <Button size="sm" variant="outline" onClick={() => onCancel(schedule)}>
                Cancel v{schedule.version}
              </Button>
            )}
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}

export function BoostsTab() {
  const schedules = useApiQuery<BoostSchedulesAnswer>("/api/boosts", { staleTime: 0 });
  const [draft, setDraft] = useState<Draft>({
    from: nextHourUtc(),
    rarity: { Common: "100", Rare: "110", Epic: "130", Legendary: "150" },
    tenure: [
      { days: "7", percent: "110" },
      { days: "30", percent: "120" },
    ],
    cap: "200",
  });
  const [preview, setPreview] = useState<BoostSchedulePreview | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [cancelling, setCancelling] = useState<Schedule | null>(null);
  const mayChange = useAdminRole().can("boosts");

  const failed = (error: unknown) => {
    const text = error instanceof ApiError ? error.message : "Something went wrong";
    const field = serverFieldError(text);
    setErrors(field);
    setMessage(Object.keys(field).length ? null : text);
  };
  const change = (next: Partial<Draft>) => {
    setDraft((current) => ({ ...current, ...next }));
    setPreview(null);
    setErrors({});
  };
  const setTenure = (index: number, row: Partial<TenureRow>) =>
    change({ tenure: draft.tenure.map((current, i) => (i === index ? { ...current, ...row } : current)) });
  /** Checks the draft first: a mistake is named under its field before anything is sent. */
  const checked = (): boolean => {
    const found = draftErrors(draft);
    setErrors(found);
    return Object.keys(found).length === 0;
  };
  const runPreview = async () => {
    setMessage(null);
    if (!checked()) return;
    try {
      setPreview(await apiPost<BoostSchedulePreview>("/api/admin/boosts/preview", bodyOf(draft)));
    } catch (error) {
      failed(error);
    }
  };
  const save = async () => {
    setMessage(null);
    if (!checked()) return;
    try {
      const saved = await api<{ version: number } | PendingApproval>("/api/admin/boosts", { method: "PUT", body: bodyOf(draft) });
      setMessage(
        isPendingApproval(saved)
          ? approvalRequestedText(saved)
          : `Saved as version ${saved.version}. Holders are told in the bell and on every channel.`,
      );
      setPreview(null);
      void schedules.refetch();
    } catch (error) {
      failed(error);
    }
  };
  const cancel = async (schedule: Schedule) => {
    setMessage(null);
    try {
      const cancelled = await api<unknown>(`/api/admin/boosts/${schedule.version}`, { method: "DELETE" });
      setMessage(
        isPendingApproval(cancelled) ? approvalRequestedText(cancelled) : `Version ${schedule.version} cancelled: it will not start.`,
      );
      void schedules.refetch();
    } catch (error) {
      failed(error);
    }
  };

  return (
    <div className="grid gap-4" data-testid="boosts-tab">
      {schedules.data && (
        <>
          <p className="text-sm text-zinc-300" data-testid="boosts-in-force">
            In force: {schedules.data.current.version === null ? "defaults" : `v${schedules.data.current.version}`}:{" "}
            {boostRulesText(schedules.data.current)}
          </p>
          <SchedulesTable data={schedules.data} onCancel={mayChange ? setCancelling : null} />
        </>
      )}
      <form
        className="grid gap-4"
        aria-label="New boost schedule"
        noValidate
        onSubmit={(event) => event.preventDefault()}
        hidden={!mayChange}
      >
        <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
          <div className="col-span-2 grid content-start gap-1 sm:col-span-1">
            <Label htmlFor="boost-from">From (UTC, whole hour)</Label>
            <Input
              id="boost-from"
              type="datetime-local"
              step={3600}
              value={draft.from}
              aria-invalid={errors.from ? true : undefined}
              onChange={(event) => change({ from: event.target.value })}
            />
            <FieldError id="boost-from-error" error={errors.from} />
          </div>
          {RARITY_FIELDS.map((name) => (
            <PercentField
              key={name}
              id={`boost-${name}`}
              label={`${name} %`}
              value={draft.rarity[name]}
              error={errors[`rarity.${name}`]}
              onChange={(value) => change({ rarity: { ...draft.rarity, [name]: value } })}
            />
          ))}
          <PercentField id="boost-cap" label="Cap %" value={draft.cap} error={errors.cap} onChange={(value) => change({ cap: value })} />
        </div>
        <fieldset className="grid gap-2">
          <legend className="mb-1 text-sm font-medium text-zinc-300">Tenure steps (days staked without a break → percent)</legend>
          {draft.tenure.length === 0 && <p className="text-xs text-zinc-400">No tenure steps: tenure adds nothing.</p>}
          {draft.tenure.map((row, i) => (
            <div key={i} className="grid grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto] items-start gap-2" data-testid="tenure-row">
              <div className="grid gap-1">
                <Label htmlFor={`tenure-${i}-days`}>Step {i + 1}: days</Label>
                <Input
                  id={`tenure-${i}-days`}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={MAX_TENURE_DAYS}
                  value={row.days}
                  aria-invalid={errors[`tenure.${i}.days`] ? true : undefined}
                  onChange={(event) => setTenure(i, { days: event.target.value })}
                />
                <FieldError id={`tenure-${i}-days-error`} error={errors[`tenure.${i}.days`]} />
              </div>
              <PercentField
                id={`tenure-${i}-percent`}
                label={`Step ${i + 1}: percent`}
                value={row.percent}
                error={errors[`tenure.${i}.percent`]}
                onChange={(value) => setTenure(i, { percent: value })}
              />
              <Button
                size="sm"
                variant="ghost"
                className="mt-6"
                aria-label={`Remove step ${i + 1}`}
                onClick={() => change({ tenure: draft.tenure.filter((_, index) => index !== i) })}
              >
                Remove
              </Button>
            </div>
          ))}
          {draft.tenure.length < MAX_TENURE_STEPS && (
            <div>
              <Button
                size="sm"
                variant="outline"
                onClick={() => {
                  const last = draft.tenure.at(-1);
                  change({ tenure: [...draft.tenure, { days: String(last ? Number(last.days) + 30 : 7), percent: "110" }] });
                }}
              >
                Add a tenure step
              </Button>
            </div>
          )}
        </fieldset>
      </form>
      <div className="flex gap-2" hidden={!mayChange}>
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
            {countOf(preview.items, "item")} staked in {countOf(preview.wallets, "wallet")}: {formatNumber(preview.before.pointsPerDay)} →{" "}
            {formatNumber(preview.after.pointsPerDay)} points per day
          </p>
          {preview.byRarity.map((row) => (
            <p key={row.rarity} className="text-zinc-400">
              {row.rarity}: {countOf(row.items, "item")}, {formatNumber(row.before)} → {formatNumber(row.after)} a day
            </p>
          ))}
        </div>
      )}
      <ConfirmDialog
        open={cancelling !== null}
        onOpenChange={(open) => !open && setCancelling(null)}
        title={cancelling ? `Cancel boost schedule v${cancelling.version}?` : ""}
        description={
          cancelling ? (
            <>
              It was to start <DateText value={cancelling.effectiveFrom} withTime />: it never will, and holders are told.
            </>
          ) : (
            ""
          )
        }
        confirmLabel="Cancel the schedule"
        cancelLabel="Keep it"
        destructive
        onConfirm={() => {
          if (cancelling) void cancel(cancelling);
          setCancelling(null);
        }}
      />
    </div>
  );
}
