/** Request body schemas of the /api routes (the admin forms' rules come from app/domain/validation.ts). */
import { z } from "zod";
import { isInscriptionId } from "../domain/collections.ts";
import { addressSchema, MAX_TICKETS } from "../domain/validation.ts";
import { MAX_ID } from "../../db/queries/input.server.ts";

export const MAX_BULK_ITEMS = 2000;

const inscriptionIdSchema = z
  .string({ error: "inscriptionId must be a string" })
  .trim()
  .toLowerCase()
  .refine(isInscriptionId, "Invalid inscription id");

export const positiveIdSchema = (what: string) =>
  z
    .number({ error: `${what} must be a number` })
    .int(`${what} must be a whole number`)
    .min(1, `${what} must be at least 1`)
    .max(MAX_ID, `${what} is too large`);

const signed = {
  address: addressSchema,
  signature: z.string({ error: "signature is required" }).min(1, "signature is required").max(200, "signature is too long"),
  message: z.string({ error: "message is required" }).min(1, "message is required").max(100_000, "message is too long"),
};

export const stakeBodySchema = z.object({
  ...signed,
  inscriptionId: inscriptionIdSchema,
  doginalId: z.union([z.number(), z.string().max(200)]).optional(),
});

export const bulkStakeBodySchema = z.object({
  ...signed,
  inscriptionIds: z
    .array(inscriptionIdSchema, { error: "inscriptionIds must be a list" })
    .min(1, "inscriptionIds must not be empty")
    .max(MAX_BULK_ITEMS, `At most ${MAX_BULK_ITEMS} items at once`)
    .refine((ids) => new Set(ids).size === ids.length, "inscriptionIds must not repeat an item"),
});

export const verifyHoldingsBodySchema = z.object({
  address: addressSchema,
  inscriptionIds: z.array(z.string().max(200), { error: "inscriptionIds must be a list" }).max(10_000).optional(),
});

export const enterBodySchema = z.object({
  ...signed,
  giveawayId: positiveIdSchema("giveawayId"),
  tickets: z
    .number({ error: "tickets must be a number" })
    .int("tickets must be a whole number")
    .min(1, "Tickets must be at least 1")
    .max(MAX_TICKETS, `Tickets must be at most ${MAX_TICKETS}`),
});

export const voteBodySchema = z.object({ ...signed, optionId: positiveIdSchema("optionId") });

export const signInBodySchema = z.object(signed);

export const setActiveBodySchema = z.object({ active: z.boolean({ error: "active must be true or false" }) });

export const imageBodySchema = z.object({
  imageUrl: z.string({ error: "Please select an image to update." }).trim().min(1, "Please select an image to update."),
});

export const clearPointsBodySchema = z.object({ address: addressSchema });

/** Any JSON object (the service validates the fields with the shared admin-form rules). */
export const objectBodySchema = z.record(z.string(), z.unknown(), { error: "The body must be a JSON object" });
