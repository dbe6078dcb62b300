/** GET /api/log/proof/{index}?size=N: an entry's inclusion proof, made from the log's own tiles. */
import { logProof } from "../../api/log.ts";
import { badRequest } from "../../domain/errors.ts";
import { inclusionProof } from "../../domain/tlog/merkle.ts";
import { toBase64 } from "../../domain/tlog/note.ts";
import { tileHashReader } from "../../domain/tlog/tiles.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { databaseTiles, latestCheckpoint } from "../../../db/queries/log.server.ts";
import type { Route } from "./+types/log-proof";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(logProof, async ({ params, query, context }) => {
    const latest = (await latestCheckpoint(context.sql))?.size ?? 0;
    const size = query.size ?? latest;
    if (size > latest) throw badRequest(`size ${size} is beyond the latest checkpoint (${latest} entries)`);
    if (params.index >= size) throw badRequest(`index ${params.index} is not below size ${size}`);
    const hashes = await inclusionProof(tileHashReader(size, databaseTiles(context.sql)), params.index, size);
    return { index: params.index, size, hashes: hashes.map(toBase64) };
  }),
);

export const action = onlyMethods("GET");
