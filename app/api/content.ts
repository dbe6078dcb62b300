/**
 * GET /content/{inscriptionId}: a catalogue item's picture, the ord server's content checked and cached by
 * this server (app/routes/content.ts). Outside /api (pages use it as an <img> source), in the contract all
 * the same: its refusals are JSON with a `message` like every other answer.
 */
import { z } from "zod";
import { isInscriptionId } from "../domain/collections.ts";
import { defineRoute, errorAnswer } from "./kit.ts";

const IMAGE_MEDIA_TYPE = "image/*";

export const getContent = defineRoute({
  operationId: "getItemPicture",
  method: "GET",
  path: "/content/{inscriptionId}",
  tag: "Holdings and rewards",
  summary: "A catalogue item's picture (PNG, JPEG, GIF or WebP), from the ord server, cached",
  description:
    "Fetched once from the ord server's /content/{id}, kept only when its bytes are a PNG, JPEG, GIF or WebP image no larger " +
    "than CONTENT_MAX_BYTES, then served from this server's disk with `Cache-Control: public, max-age=31536000, immutable`. " +
    "A failure (not an image, too large, the ord server's 404 or 5xx) is remembered per id for 5 minutes (30 s when the ord " +
    "server did not answer or answered 5xx), so asking again does not fetch again.",
  auth: "none",
  rateLimit: "content",
  params: z.object({
    inscriptionId: z
      .string()
      .refine(isInscriptionId, "Malformed inscription id")
      .meta({ description: "The item's inscription id (64 lower-case hex digits, `i`, the index).", examples: [`${"a1".repeat(32)}i0`] }),
  }),
  responses: {
    200: {
      description: "The picture's bytes, with its media type (sniffed from the bytes, never svg).",
      mediaType: IMAGE_MEDIA_TYPE,
      schema: z.string().meta({ format: "binary" }),
      example: "(the picture's bytes)",
    },
    400: errorAnswer("A malformed inscription id.", "Malformed inscription id"),
    404: errorAnswer("Not a catalogue item.", "Not a catalogue item"),
    502: errorAnswer(
      "The ord server gave no usable picture: no answer, an error status, too large, or not an image.",
      "The inscription's content is not a PNG, JPEG, GIF or WebP image",
    ),
  },
});
