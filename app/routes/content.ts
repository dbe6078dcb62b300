/**
 * GET /content/{inscriptionId}: a catalogue item's picture, fetched once from the ord server's own
 * /content/{id} and then served from the disk cache (app/utils/content-cache.server.ts). Inscriptions are
 * immutable, so the answer is cached by browsers for a year. 400 for a malformed id, 404 for an id outside
 * the catalogue, 502 when the ord server gives no usable image (never cached).
 */
import { isInscriptionId } from "../domain/collections.ts";
import { badRequest, notFound } from "../domain/errors.ts";
import { apiRoute, json, onlyMethods } from "../utils/api.server.ts";
import { contentCacheDir, ContentUnavailable, getContent } from "../utils/content-cache.server.ts";
import { itemsByInscriptionIds } from "../../db/queries/catalogue.server.ts";
import type { Route } from "./+types/content";

export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";

export const loader = apiRoute<Route.LoaderArgs>(async ({ params, context }) => {
  const inscriptionId = params.inscriptionId;
  // content/* (no id, or a deeper path) is this module too.
  if (inscriptionId === undefined) throw notFound("Not found");
  if (!isInscriptionId(inscriptionId)) throw badRequest("Malformed inscription id");
  const [item] = await itemsByInscriptionIds(context.sql, [inscriptionId]);
  if (!item) throw notFound("Not a catalogue item");
  const { config } = context;
  try {
    const { mediaType, bytes } = await getContent(
      {
        dir: contentCacheDir(config.dataDir),
        ordUrl: config.ordUrl,
        maxBytes: config.content.maxBytes,
        timeoutMs: config.content.timeoutMs,
      },
      inscriptionId,
    );
    return new Response(bytes, {
      headers: {
        "Content-Type": mediaType,
        "Content-Length": String(bytes.byteLength),
        "Cache-Control": IMMUTABLE_CACHE_CONTROL,
        // X-Content-Type-Options: nosniff comes with every response (server/security.ts).
      },
    });
  } catch (error) {
    if (error instanceof ContentUnavailable) return json({ message: error.message }, 502);
    throw error;
  }
});

export const action = onlyMethods("GET", "HEAD");
