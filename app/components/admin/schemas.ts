/**
 * The admin panel's forms: one zod schema per form, shared by the page (conform's client validation) and
 * the route action (the server's parse). Each form carries an `intent` literal naming it. The field rules
 * are the domain's (app/domain/validation.ts), never re-derived here.
 */
import type { SubmissionResult } from "@conform-to/react";
import { z } from "zod";
import {
  addPointsSchema,
  addressSchema,
  clearReasonSchema,
  createGiveawaySchema,
  createProposalSchema,
  MESSAGES,
} from "../../domain/validation.ts";
import { IMAGE_URL_RULE, imageHostProblem, isGiveawayImageUrl } from "../../domain/image-url.ts";

export const ADMIN_MESSAGES = {
  noAddress: "Please select a user address first",
  noImage: "Please select an image to update.",
} as const;

const intent = <const I extends string>(name: I) => z.object({ intent: z.literal(name) });

const recordId = (what: string) =>
  z.coerce
    .number({ error: `${what} not found` })
    .int(`${what} not found`)
    .positive(`${what} not found`);

const selectedAddress = z.string({ error: ADMIN_MESSAGES.noAddress }).trim().min(1, ADMIN_MESSAGES.noAddress).pipe(addressSchema);

export const addPointsFormSchema = addPointsSchema.extend({
  intent: z.literal("add-points"),
  address: selectedAddress,
});

export const clearPointsFormSchema = intent("clear-points").extend({ address: selectedAddress, reason: clearReasonSchema });
export const recalculatePointsFormSchema = intent("recalculate-points");
export const resetNegativeFormSchema = intent("reset-negative-balances");

export const createGiveawayFormSchema = intent("create-giveaway").and(
  createGiveawaySchema.refine((giveaway) => isGiveawayImageUrl(giveaway.imageUrl), { message: IMAGE_URL_RULE, path: ["imageUrl"] }),
);

/** Every field of a giveaway nobody has entered yet (the create form's rules), by its id. */
export const editGiveawayFormSchema = intent("edit-giveaway")
  .extend({ giveawayId: recordId("Giveaway") })
  .and(createGiveawaySchema.refine((giveaway) => isGiveawayImageUrl(giveaway.imageUrl), { message: IMAGE_URL_RULE, path: ["imageUrl"] }));

export const toggleGiveawayFormSchema = intent("toggle-giveaway").extend({
  giveawayId: recordId("Giveaway"),
  active: z.enum(["true", "false"]).transform((value) => value === "true"),
});

export const updateImageFormSchema = intent("update-image").extend({
  giveawayId: recordId("Giveaway"),
  imageUrl: z.string({ error: ADMIN_MESSAGES.noImage }).trim().min(1, ADMIN_MESSAGES.noImage).refine(isGiveawayImageUrl, IMAGE_URL_RULE),
});

export const selectWinnerFormSchema = intent("select-winner").extend({ giveawayId: recordId("Giveaway") });
export const deleteGiveawayFormSchema = intent("delete-giveaway").extend({ giveawayId: recordId("Giveaway") });

export const createProposalFormSchema = intent("create-proposal").and(createProposalSchema);
/** The proposal form's field constraints (conform cannot read them through the schema's transform). */
export const createProposalConstraintSchema = intent("create-proposal").and(createProposalSchema.in);
export const deleteProposalFormSchema = intent("delete-proposal").extend({ proposalId: recordId("Proposal") });
export const startProposalFormSchema = intent("start-proposal").extend({ proposalId: recordId("Proposal") });

export const ADMIN_FORMS = {
  "add-points": addPointsFormSchema,
  "clear-points": clearPointsFormSchema,
  "recalculate-points": recalculatePointsFormSchema,
  "reset-negative-balances": resetNegativeFormSchema,
  "create-giveaway": createGiveawayFormSchema,
  "toggle-giveaway": toggleGiveawayFormSchema,
  "update-image": updateImageFormSchema,
  "select-winner": selectWinnerFormSchema,
  "delete-giveaway": deleteGiveawayFormSchema,
  "create-proposal": createProposalFormSchema,
  "delete-proposal": deleteProposalFormSchema,
  "start-proposal": startProposalFormSchema,
  "edit-giveaway": editGiveawayFormSchema,
} as const;

/** The forms with a giveaway picture URL: refused as typed when the page could not show it (IMAGE_HOSTS). */
const PICTURE_FORMS: ReadonlySet<string> = new Set(["create-giveaway", "update-image", "edit-giveaway"]);

/**
 * A form's schema; with `pictureOrigins` (the root loader's, or the server's config) a giveaway picture URL on
 * another host is a field error of `imageUrl` naming IMAGE_HOSTS, on the page as typed and in the action.
 */
export function adminFormSchema<I extends AdminIntent>(intentName: I, pictureOrigins?: readonly string[]): (typeof ADMIN_FORMS)[I] {
  const schema = ADMIN_FORMS[intentName];
  if (!pictureOrigins || !PICTURE_FORMS.has(intentName)) return schema;
  return schema.superRefine((value: unknown, ctx) => {
    const imageUrl = (value as { imageUrl?: unknown } | null)?.imageUrl;
    const problem = typeof imageUrl === "string" ? imageHostProblem(imageUrl, pictureOrigins) : null;
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: ["imageUrl"] });
  }) as (typeof ADMIN_FORMS)[I];
}

export type AdminIntent = keyof typeof ADMIN_FORMS;

export type AdminToast = { title: string; description?: string; variant: "success" | "destructive" };

/** What the admin route's action answers to every form. */
export type AdminActionData = {
  intent: AdminIntent | null;
  ok: boolean;
  result?: SubmissionResult<string[]>;
  toast?: AdminToast;
  /** The session is missing, expired or not the admin's: sign in again. */
  unauthorized?: boolean;
};

export function isAdminIntent(value: unknown): value is AdminIntent {
  return typeof value === "string" && Object.hasOwn(ADMIN_FORMS, value);
}

/** The toast title the spec gives a validation message (section 5). */
const VALIDATION_TITLES: Record<string, string> = {
  [MESSAGES.missingFields]: "Missing Fields",
  [MESSAGES.positivePoints]: "Invalid amount",
  [MESSAGES.needMoreOptions]: "Need More Options",
  [MESSAGES.startInFuture]: "Invalid Start Date",
  [MESSAGES.endAfterStart]: "Invalid End Date",
  [MESSAGES.endInFuture]: "Invalid End Date",
  [ADMIN_MESSAGES.noAddress]: "No address selected",
  [ADMIN_MESSAGES.noImage]: "Missing Information",
};

export function validationTitle(message: string): string {
  return VALIDATION_TITLES[message] ?? "Invalid input";
}
