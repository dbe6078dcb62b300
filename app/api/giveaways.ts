/**
 * Giveaways: the public list and entries, signed entries that spend points on tickets, and the admin's
 * management (create, end or reactivate, change the image, draw the winner, delete, upload an image).
 */
import { z } from "zod";
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES } from "../domain/giveaways.ts";
import { IMAGE_URL_RULE, isGiveawayImageUrl } from "../domain/image-url.ts";
import { MAX_CLAIM_CONTACT } from "../domain/messages.ts";
import { createGiveawaySchema, MAX_TICKETS, MESSAGES } from "../domain/validation.ts";
import { EXAMPLE_REWARDS, rewardsSchema } from "./holdings.ts";
import { dateInput, formBody } from "./forms.ts";
import {
  addressParams,
  badAddressAnswer,
  rowById,
  defineRoute,
  errorBody,
  positiveIdSchema,
  signedFields,
  successTrue,
  logIndexField,
  timestamp,
  type ClientAnswer,
  type RequestBody,
  errorAnswer,
  pendingApprovalAnswer,
} from "./kit.ts";

const TAG = "Giveaways";

/** The examples' holder; the entry example's signature is this wallet's real signature of its message. */
const EXAMPLE_ADDRESS = "DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM";
const OTHER_ADDRESS = "D7xT6oNcq3iykfrW6akqVoaydBFXVyArP4";
const EXAMPLE_COMMITMENT = "9f2c4a1e6b0d8f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a";
const EXAMPLE_SEED = "3b8e1f0a9c2d4e6f8a0b2c4d6e8f0a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f";

const { params: giveawayParams, notFound } = rowById("Giveaway");

// Answers ------------------------------------------------------------------------------------------

export const giveawaySchema = z
  .object({
    id: z.number().int().min(1),
    title: z.string(),
    description: z.string(),
    imageUrl: z.string().meta({ description: "An uploaded image's path (`/uploads/…`) or an https:// URL." }),
    pointsCost: z.number().int().min(1).meta({ description: "Points per ticket." }),
    endDate: timestamp,
    active: z.boolean().meta({ description: "False once the admin ends it; open = active, not past endDate, no winner." }),
    winnerAddress: z.string().nullable().meta({ description: "The winner's address once drawn, else null." }),
    entriesCount: z.number().int().min(0),
    holdersCount: z.number().int().min(0).meta({ description: "The wallets that entered (one may have several entries)." }),
    ticketsCount: z.number().int().min(0),
    drawCommitment: z.string().meta({ description: "SHA-256 (hex) of the secret draw seed, published at creation." }),
    drawSeed: z.string().nullable().meta({ description: "The draw seed (hex), revealed once the winner is drawn; null before." }),
    drawVersion: z
      .union([z.literal(1), z.literal(2)])
      .meta({ description: "2 (operator-blind, every giveaway created since) or 1 (the older ones, which keep their rule)." }),
    winners: z.number().int().min(1).meta({ description: "How many winners the draw picks (version 1: one)." }),
    drawBlockHeight: z.number().int().min(0).nullable().meta({
      description: "Version 2: the block whose hash draws the winners, fixed when entries close; null while they are open.",
    }),
    drawBlockHash: z.string().nullable().meta({ description: "Version 2: that block's hash, read once 6 blocks sit on top of it." }),
    winnerAddresses: z.array(z.string()).meta({ description: "The winners in draw order; empty until drawn." }),
    drawProgress: z
      .object({
        blockCount: z.number().int().min(0).meta({ description: "The chain's block count as the indexer last read it." }),
        blocksToGo: z.number().int().min(0).meta({
          description: "Blocks still to be mined before the draw block has six on top (0: the indexer's next pass draws).",
        }),
        minutesToGo: z.number().int().min(0).meta({ description: "About how long that takes at the chain's block interval." }),
      })
      .nullable()
      .meta({
        description: "Version 2, entries closed and not drawn yet: how far the draw is ('{n} blocks to go, about {m} min'); else null.",
      }),
  })
  .meta({ id: "Giveaway" });

const giveawayExample = {
  id: 7,
  title: "Golden Spook",
  description: "One golden Spook for a lucky holder.",
  imageUrl: "/uploads/2f1c9a4e-7b1d-4c1e-9d3a-5e8f6a7b9c0d.png",
  pointsCost: 100,
  endDate: "2099-10-31T18:00:00.000Z",
  active: true,
  winnerAddress: null,
  entriesCount: 12,
  holdersCount: 9,
  ticketsCount: 40,
  drawCommitment: EXAMPLE_COMMITMENT,
  drawSeed: null,
  drawVersion: 2,
  winners: 1,
  drawBlockHeight: null,
  drawBlockHash: null,
  winnerAddresses: [],
  drawProgress: null,
};

export const giveawayEntrySchema = z
  .object({
    id: z.number().int().min(1).meta({ description: "Entry id; entries are drawn in ascending id." }),
    giveawayId: z.number().int().min(1),
    address: z.string(),
    tickets: z.number().int().min(1),
    enteredAt: timestamp,
    isWinner: z.boolean(),
  })
  .meta({ id: "GiveawayEntry" });

const entryExample = {
  id: 31,
  giveawayId: 7,
  address: EXAMPLE_ADDRESS,
  tickets: 3,
  enteredAt: "2026-10-20T09:15:00.000Z",
  isWinner: false,
};

export const userGiveawayEntrySchema = giveawayEntrySchema
  .extend({
    giveawayTitle: z.string(),
    pointsCost: z.number().int().min(1),
    endDate: timestamp,
    active: z.boolean(),
    winnerAddress: z.string().nullable().meta({ description: "The giveaway's (first) winner once drawn (a drawn giveaway is closed)." }),
    drawBlockHeight: z
      .number()
      .int()
      .min(0)
      .nullable()
      .meta({ description: "Set once a version-2 giveaway's entries closed for its draw." }),
    claimedAt: timestamp
      .nullable()
      .meta({ description: "When this wallet claimed its prize (a winner's entries); null before, and for others." }),
  })
  .meta({ id: "UserGiveawayEntry" });

export const drawResultSchema = z
  .object({
    version: z.literal(1),
    winner: z.object({
      address: z.string(),
      tickets: z.number().int().min(1).meta({ description: "All the tickets the winner holds in this giveaway." }),
    }),
    drawSeed: z.string().meta({ description: "The revealed seed (hex): SHA-256 of its bytes is drawCommitment." }),
    drawCommitment: z.string(),
    winningTicket: z.number().int().min(0).meta({
      description: "uint256(SHA-256(`spooks-draw:{drawSeed}:{totalTickets}`)) mod totalTickets, 0-based over the entries in id order.",
    }),
    totalTickets: z.number().int().min(1),
  })
  .meta({ id: "DrawResult" });

const HASH_EXAMPLE = "6a1f3b0e9d2c4b5a8f7e6d5c4b3a29180f1e2d3c4b5a69788796a5b4c3d2e1f0";

export const drawV2ResultSchema = z
  .object({
    version: z.literal(2),
    status: z.enum(["drawing", "drawn"]).meta({ description: "`drawing`: entries are closed, the draw waits for its block." }),
    blockHeight: z
      .number()
      .int()
      .min(0)
      .meta({ description: "The block whose hash draws the winners (`Drawing at block {blockHeight}`)." }),
    closedAt: z.iso.datetime().meta({
      description:
        "When entries closed and the draw block was fixed (ISO 8601, UTC). Check that block `blockHeight` was mined after it, in a " +
        "Dogecoin block explorer (mainnet: https://blockchair.com/dogecoin/block/{blockHeight}).",
    }),
    blockHash: z.string().nullable(),
    seed: z.string().nullable().meta({ description: "Revealed once drawn." }),
    winnerAddresses: z.array(z.string()).meta({ description: "In draw order; empty until drawn." }),
  })
  .meta({ id: "DrawV2Result" });

export const drawStatusSchema = z.enum(["open", "drawing", "drawn"]);

export const publishedDrawSchema = z
  .object({
    logIndex: logIndexField.meta({ description: "The index of the draw's entry in the public log (/log/); null before the draw." }),
    version: z.union([z.literal(1), z.literal(2)]),
    status: drawStatusSchema.meta({ description: "`open`: entries open; `drawing`: closed, waiting for the block; `drawn`." }),
    commitment: z.string().meta({ description: "hex(SHA-256(seed bytes)), published at creation." }),
    seed: z.string().nullable().meta({ description: "The 32-byte seed in lowercase hex; null until drawn." }),
    blockHeight: z
      .number()
      .int()
      .min(0)
      .nullable()
      .meta({
        description:
          "Version 2: fixed when entries close at the ord server's `/block-count` + 6 (+ 1 for giveaways closed before issue 23); " +
          "null before (and for version 1).",
      }),
    closedAt: z.iso
      .datetime()
      .nullable()
      .meta({
        description:
          "Version 2: when entries closed and the draw block was fixed (ISO 8601, UTC); null while open (and for version 1). Check " +
          "that block `blockHeight` was mined after it, in a Dogecoin block explorer (mainnet: " +
          "https://blockchair.com/dogecoin/block/{blockHeight}): nobody could know its hash when entries closed.",
      }),
    blockHash: z
      .string()
      .nullable()
      .meta({ description: "Version 2: the hash of that block, as the ord server prints it; null until drawn." }),
    winners: z.number().int().min(1).meta({ description: "How many winners the draw picks." }),
    entries: z.array(z.object({ address: z.string(), tickets: z.number().int().min(1) })).meta({
      description:
        "Version 2: one row per address with the sum of its tickets, in ascending byte order of the address, frozen when entries " +
        "close (while open: as they stand). Version 1: every entry row, in ascending entry id.",
    }),
    winnerAddresses: z.array(z.string()).meta({ description: "The winners in draw order; empty until drawn." }),
    simulatedChain: z.boolean().optional().meta({
      description: "True in demo mode: the draw block is the demo's simulated chain's, not a Dogecoin block (no explorer knows it).",
    }),
  })
  .meta({ id: "PublishedDraw" });

export const giveawayDeletedSchema = z.object({
  success: successTrue,
  refunded: z.number().int().min(0).meta({ description: "Entries whose points went back to their wallet (0 once a winner was drawn)." }),
});

// Request bodies -------------------------------------------------------------------------------------

/**
 * The admin form's rules (createGiveawaySchema, with its texts) behind a body whose end date is ISO text;
 * the image URL is an uploaded image's path or an https:// URL (app/domain/image-url.ts).
 */
export const createGiveawayBody = formBody(
  z.object(
    {
      ...createGiveawaySchema.shape,
      imageUrl: createGiveawaySchema.shape.imageUrl.refine(isGiveawayImageUrl, IMAGE_URL_RULE).meta({
        description: "An uploaded image's path (`/uploads/…`, from POST /api/upload-image) or an https:// URL.",
      }),
      pointsCost: createGiveawaySchema.shape.pointsCost.meta({ description: "Points per ticket; 100 when absent." }),
      endDate: dateInput(MESSAGES.missingFields).meta({ description: "When entries close (ISO 8601); in the future." }),
    },
    { error: "The body must be a JSON object" },
  ),
  createGiveawaySchema,
);

export const enterGiveawayBody = z.object({
  ...signedFields,
  giveawayId: positiveIdSchema("giveawayId"),
  tickets: z
    .number({ error: "tickets must be a number" })
    .int("tickets must be a whole number")
    .min(1, "Tickets must be at least 1")
    .max(MAX_TICKETS, `Tickets must be at most ${MAX_TICKETS}`),
});

export const claimPrizeBody = z.object({
  ...signedFields,
  contact: z
    .string({ error: "contact is required" })
    .trim()
    .min(1, "Say how the admin can reach you (contact)")
    .max(MAX_CLAIM_CONTACT, `The contact must be at most ${MAX_CLAIM_CONTACT} characters`)
    .refine(
      (text) => ![...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f),
      "The contact must be one line of text",
    )
    .meta({
      description: "How the admin reaches the winner (an e-mail, a Discord or Telegram name…): seen by the admin only, never public.",
    }),
});

export const setGiveawayActiveBody = z.object({ active: z.boolean({ error: "active must be true or false" }) });

export const setGiveawayImageBody = z.object({
  imageUrl: z
    .string({ error: "Please select an image to update." })
    .trim()
    .min(1, "Please select an image to update.")
    .refine(isGiveawayImageUrl, IMAGE_URL_RULE)
    .meta({ description: "An uploaded image's path (`/uploads/…`, from POST /api/upload-image) or an https:// URL." }),
});

export const uploadImageBody = z.object({
  image: z.string().meta({
    description: `The image file (${IMAGE_MEDIA_TYPES.join(", ")}; at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB), checked by its content.`,
    contentMediaType: "application/octet-stream",
  }),
});

// Routes ---------------------------------------------------------------------------------------------

export const listGiveaways = defineRoute({
  operationId: "listGiveaways",
  method: "GET",
  path: "/api/giveaways",
  tag: TAG,
  summary: "Every giveaway, newest first",
  description: "Each giveaway with its entry and ticket counts, its draw commitment, and, once drawn, its winner and seed.",
  auth: "none",
  responses: {
    200: { description: "The giveaways, newest first.", schema: z.array(giveawaySchema), example: [giveawayExample] },
  },
});

export const createGiveaway = defineRoute({
  operationId: "createGiveaway",
  method: "POST",
  path: "/api/giveaways",
  tag: TAG,
  summary: "Create a giveaway",
  description:
    "Creates an active giveaway and commits to its draw: the server draws a secret 32-byte seed and publishes only its SHA-256 " +
    "(`drawCommitment`); the seed is revealed at the draw. The end date must be in the future. Audited.",
  auth: "admin-session",
  requires: { permission: "giveaways", doing: "create giveaways" },
  body: {
    kind: "json",
    schema: createGiveawayBody,
    example: {
      title: "Golden Spook",
      description: "One golden Spook for a lucky holder.",
      imageUrl: "/uploads/2f1c9a4e-7b1d-4c1e-9d3a-5e8f6a7b9c0d.png",
      pointsCost: 100,
      endDate: "2099-10-31T18:00:00.000Z",
    },
  },
  responses: {
    201: {
      description: "The new giveaway.",
      schema: giveawaySchema,
      example: { ...giveawayExample, entriesCount: 0, holdersCount: 0, ticketsCount: 0 },
    },
    400: {
      description:
        "A field breaks its rule (the admin form's texts), the image URL is neither an uploaded image's path nor an https:// URL, or the body is not JSON.",
      schema: errorBody,
      example: { message: MESSAGES.endInFuture },
    },
  },
});

export const enterGiveaway = defineRoute({
  operationId: "enterGiveaway",
  method: "POST",
  path: "/api/giveaways/enter",
  tag: TAG,
  summary: "Spend points on tickets of an open giveaway",
  description:
    "Spends `pointsCost × tickets` of the wallet's points in one transaction that checks the balance under a row lock, so " +
    "concurrent entries never overspend. The giveaway must be open: active, before its end date, no winner drawn. The signed " +
    "message must name this giveaway and ticket count; each signature is accepted once. Answers the entry and the wallet's new rewards.",
  auth: "signature",
  rateLimit: "signed",
  signedMessage: "giveaway-entry",
  body: {
    kind: "json",
    schema: enterGiveawayBody,
    example: {
      address: EXAMPLE_ADDRESS,
      giveawayId: 7,
      tickets: 3,
      message: "Entering giveaway #7 with 3 ticket(s). Timestamp: 2026-10-20T09:15:00.000Z",
      signature: "H/2XG8bVWVYQ7077qlkx7Kwv2XzvN39P0jcGW9MzkfGdK4pK++OgVCWHqWmrlZdfFjugcFy0JJJrDv/tsP5hL+o=",
    },
  },
  responses: {
    200: {
      description: "The entry, and the wallet's rewards after the spend.",
      schema: z.object({ success: successTrue, entry: giveawayEntrySchema, rewards: rewardsSchema, logIndex: logIndexField }),
      example: {
        success: true,
        entry: entryExample,
        rewards: { ...EXAMPLE_REWARDS, unclaimedRewards: 934.5 },
      },
    },
    400: errorAnswer("A field breaks its rule, or the body is not JSON.", "Tickets must be at least 1"),
    404: notFound,
    409: errorAnswer(
      "The giveaway is closed (inactive, ended or drawn), or the wallet has too few points; nothing was spent.",
      "Not enough points: you need 300 points for 3 tickets, but you only have 120.",
    ),
  },
});

export const listEntriesOfAddress = defineRoute({
  operationId: "listEntriesOfAddress",
  method: "GET",
  path: "/api/giveaways/entries/user/{address}",
  tag: TAG,
  summary: "A wallet's entries, newest first",
  description: "Each entry with its giveaway's title, cost, end date, state and winner.",
  auth: "none",
  params: addressParams,
  responses: {
    200: {
      description: "The wallet's entries, newest first.",
      schema: z.array(userGiveawayEntrySchema),
      example: [
        {
          ...entryExample,
          giveawayTitle: "Golden Spook",
          pointsCost: 100,
          endDate: "2099-10-31T18:00:00.000Z",
          active: true,
          winnerAddress: null,
          drawBlockHeight: null,
          claimedAt: null,
        },
      ],
    },
    400: badAddressAnswer,
  },
});

export const getGiveaway = defineRoute({
  operationId: "getGiveaway",
  method: "GET",
  path: "/api/giveaways/{id}",
  tag: TAG,
  summary: "One giveaway",
  auth: "none",
  params: giveawayParams,
  responses: {
    200: { description: "The giveaway.", schema: giveawaySchema, example: giveawayExample },
    404: notFound,
  },
});

export const setGiveawayActive = defineRoute({
  operationId: "setGiveawayActive",
  method: "PATCH",
  path: "/api/giveaways/{id}",
  tag: TAG,
  summary: "End a giveaway, or make it active again",
  description: "`active: false` ends it now (no more entries, no draw); `active: true` reopens it until its end date. Audited.",
  auth: "admin-session",
  requires: { permission: "giveaways", doing: "end or activate giveaways" },
  params: giveawayParams,
  body: { kind: "json", schema: setGiveawayActiveBody, example: { active: false } },
  responses: {
    200: { description: "The giveaway after the change.", schema: giveawaySchema, example: { ...giveawayExample, active: false } },
    400: errorAnswer("`active` is not a boolean, or the body is not JSON.", "active must be true or false"),
    404: notFound,
  },
});

export const updateGiveaway = defineRoute({
  operationId: "updateGiveaway",
  method: "PUT",
  path: "/api/giveaways/{id}",
  tag: TAG,
  summary: "Edit every field of a giveaway nobody has entered",
  description:
    "Replaces its title, description, image, points cost and end date, with the create call's rules (its number of winners went " +
    "out with its draw commitment and never changes: a different one is refused with 409). Only while " +
    "it has no entries: holders entered on its terms, so afterwards only its image may change (PATCH /api/giveaways/{id}/image). " +
    "An https:// image URL must be on a host of the `IMAGE_HOSTS` setting (the page's Content-Security-Policy). Audited, with the " +
    "fields before → after.",
  auth: "admin-session",
  requires: { permission: "giveaways", doing: "edit giveaways" },
  params: giveawayParams,
  body: {
    kind: "json",
    schema: createGiveawayBody,
    example: {
      title: "Golden Spook",
      description: "One golden Spook for a lucky holder.",
      imageUrl: "/uploads/2f1c9a4e-7b1d-4c1e-9d3a-5e8f6a7b9c0d.png",
      pointsCost: 150,
      endDate: "2099-11-07T18:00:00.000Z",
    },
  },
  responses: {
    200: {
      description: "The giveaway after the change.",
      schema: giveawaySchema,
      example: { ...giveawayExample, entriesCount: 0, holdersCount: 0, ticketsCount: 0 },
    },
    400: {
      description:
        "A field breaks its rule (the admin form's texts), the image is on a host outside `IMAGE_HOSTS`, or the body is not JSON.",
      schema: errorBody,
      example: { message: MESSAGES.endInFuture },
    },
    404: notFound,
    409: errorAnswer(
      "Someone has entered it (only its image can change now), its entries are closed for its draw, or the body names another number of winners.",
      "This giveaway has 3 entries: only its image can change now",
    ),
  },
});

export const deleteGiveaway = defineRoute({
  operationId: "deleteGiveaway",
  method: "DELETE",
  path: "/api/giveaways/{id}",
  tag: TAG,
  summary: "Delete a giveaway and its entries",
  description: "Without a winner drawn, every entry's points go back to its wallet through the ledger. Audited.",
  auth: "admin-session",
  requires: { permission: "giveaways", doing: "delete giveaways" },
  params: giveawayParams,
  responses: {
    202: pendingApprovalAnswer,
    200: {
      description: "Deleted, with the count of entries refunded.",
      schema: giveawayDeletedSchema,
      example: { success: true, refunded: 12 },
    },
    404: notFound,
  },
});

export const listEntries = defineRoute({
  operationId: "listGiveawayEntries",
  method: "GET",
  path: "/api/giveaways/{id}/entries",
  tag: TAG,
  summary: "A giveaway's entries, in draw order",
  description: "Ascending entry id: the order the draw lays the ticket ranges in, so anyone can recompute the winner.",
  auth: "none",
  params: giveawayParams,
  responses: {
    200: {
      description: "The entries in ascending id.",
      schema: z.array(giveawayEntrySchema),
      example: [entryExample, { ...entryExample, id: 32, address: OTHER_ADDRESS, tickets: 1 }],
    },
    404: notFound,
  },
});

export const setGiveawayImage = defineRoute({
  operationId: "setGiveawayImage",
  method: "PATCH",
  path: "/api/giveaways/{id}/image",
  tag: TAG,
  summary: "Change a giveaway's image",
  description: "Audited.",
  auth: "admin-session",
  requires: { permission: "giveaways", doing: "change giveaway pictures" },
  params: giveawayParams,
  body: { kind: "json", schema: setGiveawayImageBody, example: { imageUrl: "/uploads/8d0e2c4a-1f3b-4d5e-8a7c-9b0d1e2f3a4b.webp" } },
  responses: {
    200: {
      description: "The giveaway after the change.",
      schema: giveawaySchema,
      example: { ...giveawayExample, imageUrl: "/uploads/8d0e2c4a-1f3b-4d5e-8a7c-9b0d1e2f3a4b.webp" },
    },
    400: errorAnswer(
      "No image URL, one that is neither an uploaded image's path nor an https:// URL, or a body that is not JSON.",
      "Please select an image to update.",
    ),
    404: notFound,
  },
});

export const drawGiveawayWinner = defineRoute({
  operationId: "drawGiveawayWinner",
  method: "POST",
  path: "/api/giveaways/{id}/select-winner",
  tag: TAG,
  summary: "Select the winners (version 2: close entries, draw at a block; version 1: draw now)",
  description:
    "Version 2 (every giveaway created since draw version 2): closes entries now and fixes the draw block at the ord server's " +
    "`/block-count` + 6 (`Drawing at block {H}`) and publishes when (`closedAt`); the indexer draws once 6 blocks sit on top of it, " +
    "with that block's hash (docs/fairness.md). Entries never close while the ord server is stalled (no new block for 10 minutes), " +
    "rewinding or stopped: then this answers 409 and entries stay open. Selecting again answers the same block. Version 1: reveals the seed committed at creation and marks the entry " +
    "holding the winning ticket uint256(SHA-256(`spooks-draw:{seed}:{totalTickets}`)) mod totalTickets over the entries in ascending " +
    "id. GET /api/giveaways/{id}/draw has everything to recompute either. Audited.",
  auth: "admin-session",
  requires: { permission: "giveaways", doing: "select winners" },
  params: giveawayParams,
  responses: {
    202: pendingApprovalAnswer,
    200: {
      description: "Version 2: the draw block (and the winners when it already had 6 on top). Version 1: the winner and what proves it.",
      schema: z.union([drawV2ResultSchema, drawResultSchema]),
      example: {
        version: 1,
        winner: { address: EXAMPLE_ADDRESS, tickets: 3 },
        drawSeed: EXAMPLE_SEED,
        drawCommitment: EXAMPLE_COMMITMENT,
        winningTicket: 2,
        totalTickets: 4,
      },
    },
    404: notFound,
    409: {
      description:
        "Winners are already drawn, the giveaway is inactive, (version 1) it has no entries, or (version 2) the ord server is not " +
        "healthy (stalled, rewinding or stopped), so entries stay open.",
      schema: errorBody,
      example: {
        message:
          "Entries stay open: the ord server is stalled (no new block for 12 minutes, block count 5412339). Entries close only while it " +
          "is healthy; try again later.",
      },
    },
    503: errorAnswer(
      "Version 2: the ord server did not answer its block count; entries stay open.",
      "The ord server did not answer: entries stay open, try again",
    ),
  },
});

export const getGiveawayDraw = defineRoute({
  operationId: "getGiveawayDraw",
  method: "GET",
  path: "/api/giveaways/{id}/draw",
  tag: TAG,
  summary: "Everything needed to recompute a giveaway's draw",
  description:
    "The commitment, the seed (once drawn), the draw block, when entries closed and the block's hash (version 2), the number of " +
    "winners, the entries in the " +
    "draw's order and the winners in draw order. The giveaway's 'Verify this draw' view and `spooks-admin giveaways verify` recompute " +
    "the draw from this alone; docs/fairness.md does it by hand with any SHA-256 tool.",
  auth: "none",
  params: giveawayParams,
  responses: {
    200: {
      description: "The draw as published.",
      schema: publishedDrawSchema,
      example: {
        version: 2,
        status: "drawn",
        commitment: EXAMPLE_COMMITMENT,
        seed: EXAMPLE_SEED,
        blockHeight: 5_412_345,
        closedAt: "2026-10-31T18:00:00.000Z",
        blockHash: HASH_EXAMPLE,
        winners: 1,
        entries: [
          { address: OTHER_ADDRESS, tickets: 1 },
          { address: EXAMPLE_ADDRESS, tickets: 3 },
        ],
        winnerAddresses: [EXAMPLE_ADDRESS],
        simulatedChain: false,
      },
    },
    404: notFound,
  },
});

export const claimPrize = defineRoute({
  operationId: "claimGiveawayPrize",
  method: "POST",
  path: "/api/giveaways/{id}/claim",
  tag: TAG,
  summary: "A winner claims the prize",
  description:
    "A winner of a drawn giveaway says how the admin can reach them, signed with the wallet: the message names the giveaway's " +
    "exact title and id, the winner's address and the contact, as the body gives them. Once per winner and giveaway; each " +
    "signature is accepted once, within 10 minutes of server time. The contact is stored for the admin only (GET " +
    "/api/giveaways/{id}/claims); no public answer carries it. Audited (`giveaway.claim`, without the contact).",
  auth: "signature",
  rateLimit: "signed",
  signedMessage: "giveaway-claim",
  params: giveawayParams,
  body: {
    kind: "json",
    schema: claimPrizeBody,
    example: {
      address: EXAMPLE_ADDRESS,
      contact: "spooky@example.com",
      message: `Claim Golden Spook (#7) for ${EXAMPLE_ADDRESS}. Contact: spooky@example.com. Timestamp: 2026-11-01T09:00:00.000Z`,
      signature: "H/2XG8bVWVYQ7077qlkx7Kwv2XzvN39P0jcGW9MzkfGdK4pK++OgVCWHqWmrlZdfFjugcFy0JJJrDv/tsP5hL+o=",
    },
  },
  responses: {
    200: {
      description: "Claimed.",
      schema: z.object({
        success: successTrue,
        claim: z.object({ giveawayId: z.number().int().min(1), address: z.string(), claimedAt: timestamp }),
        logIndex: logIndexField,
      }),
      example: { success: true, claim: { giveawayId: 7, address: EXAMPLE_ADDRESS, claimedAt: "2026-11-01T09:00:01.000Z" } },
    },
    400: errorAnswer(
      "A field breaks its rule (the contact: one line, 1-200 characters), or the body is not JSON.",
      "Say how the admin can reach you (contact)",
    ),
    403: errorAnswer("The address is not a winner of this giveaway.", "Only a winner of this giveaway can claim its prize"),
    404: notFound,
    409: errorAnswer(
      "The giveaway is not drawn yet, or this winner already claimed.",
      "This prize was already claimed on 2026-11-01T09:00:01.000Z",
    ),
  },
});

export const winnerClaimSchema = z.object({
  address: z.string(),
  place: z.number().int().min(1).meta({ description: "Draw order: 1 is the first winner." }),
  claimedAt: timestamp.nullable().meta({ description: "Null: this winner has not claimed." }),
  contact: z.string().nullable(),
  message: z.string().nullable().meta({ description: "The signed claim, as the wallet signed it." }),
  signature: z.string().nullable(),
});

export const giveawayClaimsSchema = z
  .object({
    giveawayId: z.number().int().min(1),
    title: z.string(),
    drawn: z.boolean(),
    claimed: z.number().int().min(0),
    unclaimed: z.number().int().min(0),
    winners: z.array(winnerClaimSchema).meta({ description: "Every winner in draw order, with their claim or none." }),
  })
  .meta({ id: "GiveawayClaims" });

export const listClaims = defineRoute({
  operationId: "listGiveawayClaims",
  method: "GET",
  path: "/api/giveaways/{id}/claims",
  tag: TAG,
  summary: "Who claimed a giveaway's prize, and how to reach them (admin)",
  description: "Every winner in draw order with their claim (contact, signed message, signature, time) or none yet.",
  auth: "admin-session",
  requires: { permission: "read", doing: "read prize claims" },
  params: giveawayParams,
  responses: {
    200: {
      description: "The winners and their claims.",
      schema: giveawayClaimsSchema,
      example: {
        giveawayId: 7,
        title: "Golden Spook",
        drawn: true,
        claimed: 1,
        unclaimed: 1,
        winners: [
          {
            address: EXAMPLE_ADDRESS,
            place: 1,
            claimedAt: "2026-11-01T09:00:01.000Z",
            contact: "spooky@example.com",
            message: `Claim Golden Spook (#7) for ${EXAMPLE_ADDRESS}. Contact: spooky@example.com. Timestamp: 2026-11-01T09:00:00.000Z`,
            signature: "H/2XG8bVWVYQ7077qlkx7Kwv2XzvN39P0jcGW9MzkfGdK4pK++OgVCWHqWmrlZdfFjugcFy0JJJrDv/tsP5hL+o=",
          },
          { address: OTHER_ADDRESS, place: 2, claimedAt: null, contact: null, message: null, signature: null },
        ],
      },
    },
    404: notFound,
  },
});

export const uploadImage = defineRoute({
  operationId: "uploadImage",
  method: "POST",
  path: "/api/upload-image",
  tag: TAG,
  summary: "Upload a giveaway image",
  description:
    "A multipart/form-data body with the file in the field `image`. Its type is read from its bytes, never from its name: PNG, " +
    "JPEG, GIF and WebP only, at most 5 MB. Saved under a generated name and served from `/uploads/`.",
  auth: "admin-session",
  requires: { permission: "giveaways", doing: "upload images" },
  body: { kind: "multipart", schema: uploadImageBody },
  responses: {
    200: {
      description: "Saved: `filePath` is where it is served, for a giveaway's imageUrl.",
      schema: z.object({ success: successTrue, filePath: z.string(), message: z.string() }),
      example: { success: true, filePath: "/uploads/2f1c9a4e-7b1d-4c1e-9d3a-5e8f6a7b9c0d.png", message: "Image uploaded successfully" },
    },
    400: errorAnswer(
      "The multipart body is malformed, has no file in the field `image`, or the file is empty.",
      "Send the image as multipart/form-data in the field 'image'",
    ),
    413: errorAnswer("The image is larger than 5 MB.", "Image is larger than 5 MB"),
    415: errorAnswer(
      "The body is not multipart/form-data, or the file is not a PNG, JPEG, GIF or WebP image.",
      "Only PNG, JPEG, GIF and WebP images are accepted",
    ),
  },
});

// Client types (app/lib/api.ts) ---------------------------------------------------------------------

export type Giveaway = ClientAnswer<typeof getGiveaway>;
export type GiveawayEntry = ClientAnswer<typeof listEntries>[number];
export type UserGiveawayEntry = ClientAnswer<typeof listEntriesOfAddress>[number];
export type EnterGiveawayResponse = ClientAnswer<typeof enterGiveaway>;
export type EnterGiveawayRequest = RequestBody<typeof enterGiveaway>;
export type DrawResult = ClientAnswer<typeof drawGiveawayWinner>;
export type PublishedDrawAnswer = ClientAnswer<typeof getGiveawayDraw>;
export type UploadImageResponse = ClientAnswer<typeof uploadImage>;
export type ClaimPrizeResponse = ClientAnswer<typeof claimPrize>;
export type GiveawayClaims = ClientAnswer<typeof listClaims>;
