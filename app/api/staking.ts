/**
 * Staking: soft staking (the items never leave the wallet), each call proven by the owner's signature of
 * a message naming exactly the items acted on. Stakes are the indexer's ownership: only the current owner
 * stakes, and a stake ends when the item moves.
 */
import { z } from "zod";
import {
  defineRoute,
  errorBody,
  inscriptionIdSchema,
  signedFields,
  successTrue,
  logIndexField,
  type ClientAnswer,
  type RequestBody,
} from "./kit.ts";
import { EXAMPLE_REWARDS, rewardsSchema } from "./holdings.ts";

const TAG = "Staking";

export const MAX_BULK_ITEMS = 2000;

const EXAMPLE_ADDRESS = "DHy2eGMWsFUmjur4GVeafrioGdHj7HGDyj";
const EXAMPLE_IDS = [`${"a1".repeat(32)}i0`, `${"b2".repeat(32)}i0`, `${"c3".repeat(32)}i0`];

export const stakeBody = z.object({
  ...signedFields,
  inscriptionId: inscriptionIdSchema,
  doginalId: z
    .union([z.number(), z.string().max(200)])
    .optional()
    .meta({ description: "The page's own id for the item: accepted and not used (the inscription id names the item)." }),
});

export const bulkStakeBody = z.object({
  ...signedFields,
  inscriptionIds: z
    .array(inscriptionIdSchema, { error: "inscriptionIds must be a list" })
    .min(1, "inscriptionIds must not be empty")
    .max(MAX_BULK_ITEMS, `At most ${MAX_BULK_ITEMS} items at once`)
    .refine((ids) => new Set(ids).size === ids.length, "inscriptionIds must not repeat an item")
    .meta({ description: `1 to ${MAX_BULK_ITEMS} items, none twice, in the order the signed message lists their names.` }),
});

export const stakeAnswerSchema = z
  .object({
    success: successTrue,
    alreadyStaked: z
      .literal(true)
      .optional()
      .meta({ description: "Present when the item already was in the asked state (staked, or not staked): nothing changed." }),
    rewards: rewardsSchema.meta({ description: "The wallet's rewards after the change." }),
    logIndex: logIndexField,
  })
  .meta({ id: "StakeAnswer" });

export const bulkStakeAnswerSchema = z
  .object({
    success: successTrue,
    count: z.number().int().min(0).meta({ description: "Items whose state changed." }),
    alreadyStaked: z.number().int().min(0).meta({ description: "Items already in the asked state (left as they were)." }),
    rewards: rewardsSchema.meta({ description: "The wallet's rewards after the change." }),
    logIndex: logIndexField,
  })
  .meta({ id: "BulkStakeAnswer" });

const SIGNED_RULES =
  "The message must be signed by `address` with its timestamp within 10 minutes of server time; each signature is " +
  "accepted once (a replay is 401). The signature and the message are checked before anything is looked up.";

const notOwned = (action: string) => ({
  description: `An item is not the address's to ${action} (per the indexer's ownership); nothing changed.`,
  schema: errorBody,
  example: { message: `Spooks #5 is not owned by ${EXAMPLE_ADDRESS}` },
});

const unknownItem = {
  description: "An inscription id is not a catalogue item; nothing changed.",
  schema: errorBody,
  example: { message: `Unknown inscription ${EXAMPLE_IDS[0]}` },
};

const singleRefused = {
  description:
    "The signature is not the address's, the message is not this action's or names another item, is older than " +
    "10 minutes, or was used before.",
  schema: errorBody,
  example: { message: "The signed message names Spook #6, not Spooks #5" },
};

const bulkRefused = {
  description:
    "The signature is not the address's, the message is not this action's bulk message, does not list exactly the " +
    "items sent in the order sent, is older than 10 minutes, or was used before.",
  schema: errorBody,
  example: { message: "The signed message does not list exactly the items sent, in the order sent" },
};

const stakedAnswer = (description: string) => ({
  description,
  schema: stakeAnswerSchema,
  example: { success: true, rewards: EXAMPLE_REWARDS },
});

export const stakeItem = defineRoute({
  operationId: "stakeItem",
  method: "POST",
  path: "/api/stake",
  tag: TAG,
  summary: "Stake one item the wallet owns",
  description:
    "Starts earning Spook Points for one item the address owns. Idempotent: an item the address already stakes " +
    "answers 200 with `alreadyStaked: true` and changes nothing. A stake a previous owner left open ends " +
    `(transferred) as this one begins. ${SIGNED_RULES}`,
  auth: "signature",
  rateLimit: "signed",
  signedMessage: "stake",
  body: {
    kind: "json",
    schema: stakeBody,
    example: {
      address: EXAMPLE_ADDRESS,
      inscriptionId: EXAMPLE_IDS[0],
      message: "Staking Spook #5 for Spook Points. Timestamp: 2026-10-31T18:00:00.000Z",
      signature: "H1oxNroEjHSVUnZGb5p1LXVBY2YkTT3iYPmeUtkEOK2cJ5OQhGnPBhpkXJ/l/PafXfHQ54IRiHzpcbrq5mJ3ar0=",
    },
  },
  responses: {
    200: stakedAnswer("Staked (or already staked), with the wallet's fresh rewards."),
    401: singleRefused,
    403: notOwned("stake"),
    404: unknownItem,
  },
});

export const unstakeItem = defineRoute({
  operationId: "unstakeItem",
  method: "POST",
  path: "/api/unstake",
  tag: TAG,
  summary: "End the stake of one item",
  description:
    "Ends the address's stake on one item; the points it earned stay. Idempotent: an item not staked answers 200 " +
    `with \`alreadyStaked: true\` and changes nothing (refused, 403, only when the address neither stakes nor owns it). ${SIGNED_RULES}`,
  auth: "signature",
  rateLimit: "signed",
  signedMessage: "unstake",
  body: {
    kind: "json",
    schema: stakeBody,
    example: {
      address: EXAMPLE_ADDRESS,
      inscriptionId: EXAMPLE_IDS[0],
      message: "Unstaking Spook #5 from SPOOK Points. Timestamp: 2026-10-31T18:00:00.000Z",
      signature: "H5D4KA5OOOlGETsp10SxuWsN5094Xr0czJYpy3B5QBZaTYEGdBpNpkE5V4mKmGyxp8Wo8sCyLHkdCrHZIdWvXoc=",
    },
  },
  responses: {
    200: stakedAnswer("Unstaked (or was not staked), with the wallet's fresh rewards."),
    401: singleRefused,
    403: notOwned("unstake"),
    404: unknownItem,
  },
});

const BULK_RULES =
  `Up to ${MAX_BULK_ITEMS} items in one transaction: all or nothing, so one item that is not the address's ` +
  `refuses the whole call and nothing changes. ${SIGNED_RULES}`;

export const stakeItems = defineRoute({
  operationId: "stakeItems",
  method: "POST",
  path: "/api/stake/bulk",
  tag: TAG,
  summary: "Stake many items with one signature",
  description: `Stakes every listed item the address owns; those it already stakes are counted in \`alreadyStaked\`. ${BULK_RULES}`,
  auth: "signature",
  rateLimit: "signed",
  signedMessage: "bulk-stake",
  body: {
    kind: "json",
    schema: bulkStakeBody,
    example: {
      address: EXAMPLE_ADDRESS,
      inscriptionIds: EXAMPLE_IDS,
      message: "Staking 3 Spooks for Spook Points: Spooks #5, Spooks #12, Spook Society #3. Timestamp: 2026-10-31T18:00:00.000Z",
      signature: "H80uwA5Qmgnola1hdcNge/qznQL/OcmXrcpZxmleWYKcf/u658JeGSMz6ZNToLzootUBMtUS3Nw6mObJCi0JOhw=",
    },
  },
  responses: {
    200: {
      description: "The items are staked; the counts say how many changed.",
      schema: bulkStakeAnswerSchema,
      example: { success: true, count: 2, alreadyStaked: 1, rewards: EXAMPLE_REWARDS },
    },
    401: bulkRefused,
    403: notOwned("stake"),
    404: unknownItem,
  },
});

export const unstakeItems = defineRoute({
  operationId: "unstakeItems",
  method: "POST",
  path: "/api/unstake/bulk",
  tag: TAG,
  summary: "End the stakes of many items with one signature",
  description: `Ends the address's stakes on the listed items; those not staked are counted in \`alreadyStaked\`. ${BULK_RULES}`,
  auth: "signature",
  rateLimit: "signed",
  signedMessage: "bulk-unstake",
  body: {
    kind: "json",
    schema: bulkStakeBody,
    example: {
      address: EXAMPLE_ADDRESS,
      inscriptionIds: EXAMPLE_IDS,
      message: "Unstaking 3 Spooks from SPOOK Points: Spooks #5, Spooks #12, Spook Society #3. Timestamp: 2026-10-31T18:00:00.000Z",
      signature: "H1rph031bRbkImQsvnI3Sf/VPM1YKD5+GhLp3WpvRM+5JYZi3Ly9AFyzWHb0MKEHGeS4Q7ao4KjAKxJCbrhvhz4=",
    },
  },
  responses: {
    200: {
      description: "The stakes are ended; the counts say how many changed.",
      schema: bulkStakeAnswerSchema,
      example: { success: true, count: 3, alreadyStaked: 0, rewards: EXAMPLE_REWARDS },
    },
    401: bulkRefused,
    403: notOwned("unstake"),
    404: unknownItem,
  },
});

export type StakeRequest = RequestBody<typeof stakeItem>;
export type BulkStakeRequest = RequestBody<typeof stakeItems>;
export type StakeResponse = ClientAnswer<typeof stakeItem>;
export type BulkStakeResponse = ClientAnswer<typeof stakeItems>;
