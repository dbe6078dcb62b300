/** Boost schedules (issue 26): public to read, the admin's to set. */
import { z } from "zod";
import { BOOST_MAX, BOOST_MIN, BOOST_STEP, MAX_TENURE_DAYS, MAX_TENURE_STEPS } from "../domain/boosts.ts";
import { defineRoute, errorAnswer, pendingApprovalAnswer, rowIdParam, timestamp, type ClientAnswer } from "./kit.ts";

const TAG = "Boosts";

const RARITY_NAMES = ["Common", "Rare", "Epic", "Legendary"] as const;

const percentRule = `a whole multiple of ${BOOST_STEP} from ${BOOST_MIN} to ${BOOST_MAX} (percent)`;
const isPercent = (value: unknown) =>
  typeof value === "number" && Number.isInteger(value) && value >= BOOST_MIN && value <= BOOST_MAX && value % BOOST_STEP === 0;
const isDays = (value: unknown) => typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_TENURE_DAYS;

const percent = (field: string) =>
  z.number({ error: `${field} must be ${percentRule}` }).meta({ description: `Percent: ${percentRule}.`, examples: [150] });

/** The body of PUT /api/admin/boosts; every rule's message names its field. */
export const boostScheduleBody = z
  .object({
    effectiveFrom: z
      .string({ error: "effectiveFrom must be an ISO 8601 date and time" })
      .refine((text) => z.iso.datetime({ offset: true }).safeParse(text).success, "effectiveFrom must be an ISO 8601 date and time")
      .transform((text) => new Date(text))
      .refine((date) => date.getTime() % 3_600_000 === 0, "effectiveFrom must be a whole hour (minutes, seconds and milliseconds 0)")
      .meta({ description: "When it starts: a whole hour, not in the past (ISO 8601).", examples: ["2026-12-01T00:00:00Z"] }),
    rarity: z
      .object(
        {
          Common: percent("rarity.Common"),
          Rare: percent("rarity.Rare"),
          Epic: percent("rarity.Epic"),
          Legendary: percent("rarity.Legendary"),
        },
        { error: "rarity must be { Common, Rare, Epic, Legendary } (percent)" },
      )
      .meta({ description: "Percent by rarity." }),
    tenure: z
      .array(z.unknown(), { error: "tenure must be an array of { days, percent }" })
      .max(MAX_TENURE_STEPS, `tenure has at most ${MAX_TENURE_STEPS} steps`)
      .meta({ description: "Tenure steps `{ days, percent }`, ascending days (empty: no tenure boost)." }),
    cap: percent("cap").meta({ description: `The most the combined rarity × tenure percentage may reach: ${percentRule}.` }),
  })
  .superRefine((body, ctx) => {
    for (const name of RARITY_NAMES) {
      if (!isPercent(body.rarity[name]))
        ctx.addIssue({ code: "custom", path: ["rarity", name], message: `rarity.${name} must be ${percentRule}` });
    }
    body.tenure.forEach((raw, i) => {
      if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
        ctx.addIssue({ code: "custom", path: ["tenure", i], message: `tenure[${i}] must be { days, percent }` });
        return;
      }
      const step = raw as { days?: unknown; percent?: unknown };
      const previous = body.tenure[i - 1] as { days?: unknown } | undefined;
      if (!isDays(step.days)) {
        ctx.addIssue({
          code: "custom",
          path: ["tenure", i, "days"],
          message: `tenure[${i}].days must be a whole number from 1 to ${MAX_TENURE_DAYS}`,
        });
      } else if (previous && isDays(previous.days) && (step.days as number) <= (previous.days as number)) {
        ctx.addIssue({
          code: "custom",
          path: ["tenure", i, "days"],
          message: `tenure[${i}].days must be more than tenure[${i - 1}].days (ascending days)`,
        });
      }
      if (!isPercent(step.percent))
        ctx.addIssue({ code: "custom", path: ["tenure", i, "percent"], message: `tenure[${i}].percent must be ${percentRule}` });
    });
    if (!isPercent(body.cap)) ctx.addIssue({ code: "custom", path: ["cap"], message: `cap must be ${percentRule}` });
  })
  .transform((body) => ({
    ...body,
    tenure: (body.tenure as { days: number; percent: number }[]).map(({ days, percent }) => ({ days, percent })),
  }));

export const boostScheduleSchema = z
  .object({
    version: z
      .number()
      .int()
      .min(1)
      .nullable()
      .meta({ description: "The schedule's version; null for the built-in defaults (none was ever set)." }),
    effectiveFrom: timestamp.nullable().meta({ description: "When it starts (null for the defaults)." }),
    rarity: z.object({ Common: z.number().int(), Rare: z.number().int(), Epic: z.number().int(), Legendary: z.number().int() }),
    tenure: z.array(z.object({ days: z.number().int(), percent: z.number().int() })),
    cap: z.number().int(),
    createdAt: timestamp.nullable(),
  })
  .meta({ id: "BoostSchedule" });

export const boostSchedulesSchema = z.object({
  current: boostScheduleSchema.meta({ description: "The schedule in force now." }),
  upcoming: z.array(boostScheduleSchema).meta({ description: "Schedules that start later, soonest first." }),
  history: z.array(boostScheduleSchema).meta({ description: "Schedules in force before the current one, newest first." }),
});

const EXAMPLE = {
  version: 2,
  effectiveFrom: "2026-12-01T00:00:00.000Z",
  rarity: { Common: 100, Rare: 110, Epic: 130, Legendary: 150 },
  tenure: [
    { days: 7, percent: 110 },
    { days: 30, percent: 120 },
  ],
  cap: 200,
  createdAt: "2026-11-20T10:00:00.000Z",
};
const DEFAULTS = {
  version: null,
  effectiveFrom: null,
  rarity: { Common: 100, Rare: 100, Epic: 100, Legendary: 100 },
  tenure: [],
  cap: 300,
  createdAt: null,
};

export const getBoosts = defineRoute({
  operationId: "getBoosts",
  method: "GET",
  path: "/api/boosts",
  tag: TAG,
  summary: "The boost schedules: current, upcoming and past",
  description:
    "An item's hourly credit is R × rarity% × tenure% / 10,000 / 24 points (R its wallet's tier rate), the combined percentage at most " +
    "`cap`. Tenure counts from the open stake's start; a step applies from the first whole hour after its threshold.",
  auth: "none",
  responses: {
    200: {
      description: "The schedules.",
      schema: boostSchedulesSchema,
      example: { current: DEFAULTS, upcoming: [EXAMPLE], history: [] },
    },
  },
});

export const setBoosts = defineRoute({
  operationId: "setBoosts",
  method: "PUT",
  path: "/api/admin/boosts",
  tag: TAG,
  summary: "Set a boost schedule from a whole hour",
  description:
    "A new version, in force from `effectiveFrom` (a whole hour, not in the past, after the last credited hour): a schedule never " +
    "changes an hour already credited. Audited with the schedule it replaces → this one.",
  auth: "admin-session",
  requires: { permission: "boosts", doing: "change the boosts" },
  body: {
    kind: "json",
    schema: boostScheduleBody,
    example: { effectiveFrom: EXAMPLE.effectiveFrom, rarity: EXAMPLE.rarity, tenure: EXAMPLE.tenure, cap: EXAMPLE.cap },
  },
  responses: {
    202: pendingApprovalAnswer,
    201: { description: "Recorded; its version.", schema: boostScheduleSchema, example: EXAMPLE },
    400: {
      description: "A field breaks its rule (the message names it).",
      schema: z.object({ message: z.string() }),
      example: { message: `rarity.Rare must be ${percentRule}` },
    },
    409: {
      description: "An hour at or after effectiveFrom is already credited.",
      schema: z.object({ message: z.string() }),
      example: { message: "The hour 2026-12-01T00:00:00.000Z is already credited; a schedule starts after the last credited hour" },
    },
  },
});

export type BoostSchedulesAnswer = ClientAnswer<typeof getBoosts>;
export type BoostScheduleAnswer = ClientAnswer<typeof setBoosts>;

export const schedulePreviewSchema = z
  .object({
    at: timestamp.meta({ description: "The hour the preview is for: tenure is counted to it (the schedule's effectiveFrom)." }),
    wallets: z.number().int().min(0),
    items: z.number().int().min(0).meta({ description: "Items staked now." }),
    before: z.object({
      pointsPerDay: z.number().meta({ description: "Points per day for every item staked now, under the schedule in force then." }),
      version: z.number().int().nullable(),
    }),
    after: z.object({ pointsPerDay: z.number().meta({ description: "The same under the schedule previewed." }) }),
    byRarity: z.array(z.object({ rarity: z.string(), items: z.number().int(), before: z.number(), after: z.number() })),
  })
  .meta({ id: "BoostSchedulePreview" });

export const previewBoosts = defineRoute({
  operationId: "previewBoosts",
  method: "POST",
  path: "/api/admin/boosts/preview",
  tag: TAG,
  summary: "What a boost schedule would change, before it is saved",
  description:
    "Points per day for the whole catalogue at today's stakes (tenure counted to effectiveFrom), under the schedule in force then → " +
    "under this one. Records nothing; the body is PUT /api/admin/boosts's.",
  auth: "admin-session",
  requires: { permission: "boosts", doing: "preview boosts" },
  body: {
    kind: "json",
    schema: boostScheduleBody,
    example: { effectiveFrom: EXAMPLE.effectiveFrom, rarity: EXAMPLE.rarity, tenure: EXAMPLE.tenure, cap: EXAMPLE.cap },
  },
  responses: {
    200: {
      description: "The preview.",
      schema: schedulePreviewSchema,
      example: {
        at: EXAMPLE.effectiveFrom,
        wallets: 40,
        items: 300,
        before: { pointsPerDay: 36000, version: null },
        after: { pointsPerDay: 41250 },
        byRarity: [{ rarity: "Common", items: 250, before: 30000, after: 33000 }],
      },
    },
  },
});

export type BoostSchedulePreview = ClientAnswer<typeof previewBoosts>;

export const cancelBoosts = defineRoute({
  operationId: "cancelBoosts",
  method: "DELETE",
  path: "/api/admin/boosts/{version}",
  tag: TAG,
  summary: "Cancel an upcoming boost schedule",
  description:
    "A schedule that has not started never comes into force: GET /api/boosts and the accrual leave it out. A started one cannot be " +
    "cancelled (set a new schedule instead). Audited, and announced to holders (`boosts.scheduled`, subject `{version}:cancelled`).",
  auth: "admin-session",
  requires: { permission: "boosts", doing: "cancel boosts" },
  params: z.object({ version: rowIdParam("Boost schedule") }),
  responses: {
    202: pendingApprovalAnswer,
    200: { description: "Cancelled; the schedule it was.", schema: boostScheduleSchema, example: EXAMPLE },
    404: errorAnswer("No such schedule.", "There is no boost schedule version 9"),
    409: errorAnswer(
      "It has started, or is already cancelled.",
      "Boost schedule version 2 started at 2026-12-01T00:00:00.000Z: only an upcoming one can be cancelled",
    ),
  },
});
