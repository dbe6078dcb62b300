/**
 * Input rules shared by the web admin's forms and actions and by the CLI, with the spec's texts
 * (product-spec section 5). A schema's first issue message is what a person is shown.
 */
import { z } from "zod";
import { isDogecoinAddress } from "./address.ts";
import { now } from "./clock.ts";
import { DEFAULT_POINTS_COST, DEFAULT_WINNERS, MAX_WINNERS } from "./giveaways.ts";
import { MIN_MULTIPLE_CHOICE_OPTIONS, normalizeOptions, QUORUM_KINDS, VOTE_TYPES } from "./governance.ts";

// In the browser zod must not probe for eval (`new Function`, when its first object schema is built):
// the page's Content-Security-Policy forbids it, and even a caught attempt is reported as a violation.
// This is the first module to build zod schemas in the page; its interpreted parser is fast enough there.
if (typeof document !== "undefined") z.config({ jitless: true });

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 5000;
export const MAX_POINTS = 1_000_000_000;
export const MAX_TICKETS = 1_000_000;

export const MESSAGES = {
  missingFields: "Please fill out all required fields",
  positivePoints: "Please enter a positive number of points",
  needMoreOptions: "Multiple choice proposals require at least two options",
  startInFuture: "Start date must be in the future",
  endAfterStart: "End date must be after start date",
  endInFuture: "End date must be in the future",
  invalidAddress: "Invalid Dogecoin address",
} as const;

export const DEFAULT_ADJUSTMENT_DESCRIPTION = "Manual adjustment by admin";

export const addressSchema = z.string({ error: MESSAGES.invalidAddress }).trim().refine(isDogecoinAddress, MESSAGES.invalidAddress);

const requiredText = (max: number, label: string) =>
  z.string({ error: MESSAGES.missingFields }).trim().min(1, MESSAGES.missingFields).max(max, `${label} must be at most ${max} characters`);

const date = z.coerce.date({ error: MESSAGES.missingFields });

export const addPointsSchema = z.object({
  address: addressSchema,
  amount: z.coerce
    .number({ error: MESSAGES.positivePoints })
    .refine((n) => Number.isFinite(n) && n > 0, MESSAGES.positivePoints)
    .refine((n) => n <= MAX_POINTS, `Amount must be at most ${MAX_POINTS}`)
    // n * 100 is not exact in binary (1.15 * 100 = 114.999…): compare with n rounded to 2 decimals instead.
    .refine((n) => Number(n.toFixed(2)) === n, "Amount can have at most 2 decimals"),
  description: z
    .string()
    .trim()
    .max(500)
    .optional()
    .transform((text) => text || DEFAULT_ADJUSTMENT_DESCRIPTION),
});

/** Why the admin cleared a wallet's points (optional): the ledger row's description and the audit row's reason. */
export const DEFAULT_CLEAR_DESCRIPTION = "Cleared by admin";
export const clearReasonSchema = z
  .string({ error: "The reason must be text" })
  .trim()
  .max(500, "The reason can be at most 500 characters")
  .optional()
  .transform((text) => text || undefined);

export const createGiveawaySchema = z
  .object({
    title: requiredText(TITLE_MAX, "Title"),
    description: requiredText(DESCRIPTION_MAX, "Description"),
    // Where it may point (app/domain/image-url.ts) is judged once the CLI has turned a file into its /uploads/ path.
    imageUrl: requiredText(2000, "Image URL"),
    pointsCost: z.coerce
      .number()
      .int("Points cost must be a whole number")
      .min(1, "Points cost must be at least 1")
      .max(MAX_POINTS, `Points cost must be at most ${MAX_POINTS}`)
      .default(DEFAULT_POINTS_COST),
    endDate: date,
    winners: z.coerce
      .number()
      .int("Winners must be a whole number")
      .min(1, "Winners must be at least 1")
      .max(MAX_WINNERS, `Winners must be at most ${MAX_WINNERS}`)
      .default(DEFAULT_WINNERS),
  })
  .refine((g) => g.endDate.getTime() > now().getTime(), { message: MESSAGES.endInFuture, path: ["endDate"] });

/** A proposal's quorum: `{ kind: "power", value }` (voting power) or `{ kind: "percent", value }` (of the power staked at its start). */
export const quorumSchema = z
  .object(
    {
      kind: z.enum(QUORUM_KINDS, { error: 'quorum.kind must be "power" or "percent"' }),
      value: z
        .number({ error: "quorum.value must be a whole number" })
        .int("quorum.value must be a whole number")
        .min(1, "quorum.value must be at least 1")
        .max(1_000_000_000, "quorum.value is too large"),
    },
    { error: 'quorum must be null, { kind: "power", value } or { kind: "percent", value }' },
  )
  .refine((quorum) => quorum.kind !== "percent" || quorum.value <= 100, "quorum.value must be at most 100 for a percent quorum")
  .meta({
    id: "Quorum",
    description: "Null: none. power: at least `value` voting power cast; percent: at least `value`% of the power staked at the start.",
  });

export const createProposalSchema = z
  .object({
    title: requiredText(TITLE_MAX, "Title"),
    description: requiredText(DESCRIPTION_MAX, "Description"),
    startDate: date,
    endDate: date,
    voteType: z.enum(VOTE_TYPES),
    options: z
      .array(z.string().max(TITLE_MAX, `Options must be at most ${TITLE_MAX} characters`))
      .max(20)
      .default([]),
    allowVoteChange: z
      .boolean({ error: "allowVoteChange must be true or false" })
      .default(false)
      .meta({ description: "Whether a wallet may vote again, its later signed vote replacing the earlier one (default false: 409)." }),
    quorum: quorumSchema.nullable().default(null),
  })
  .transform((p) => ({ ...p, options: normalizeOptions(p.voteType, p.options) }))
  .superRefine((p, ctx) => {
    if (p.options.length < MIN_MULTIPLE_CHOICE_OPTIONS) {
      ctx.addIssue({ code: "custom", message: MESSAGES.needMoreOptions, path: ["options"] });
    }
    if (p.startDate.getTime() < now().getTime()) {
      ctx.addIssue({ code: "custom", message: MESSAGES.startInFuture, path: ["startDate"] });
    }
    if (p.endDate.getTime() <= p.startDate.getTime()) {
      ctx.addIssue({ code: "custom", message: MESSAGES.endAfterStart, path: ["endDate"] });
    }
  });

/** The first message of a failed parse, for a 400 `{ message }` or a CLI error line. */
export function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? "Invalid input";
}
