/** GET /api/log/consistency?from=M&to=N: the consistency proof between two sizes, made from the log's own tiles. */
import { logConsistency } from "../../api/log.ts";
import { badRequest } from "../../domain/errors.ts";
import { consistencyProof } from "../../domain/tlog/merkle.ts";
import { toBase64 } from "../../domain/tlog/note.ts";
import { tileHashReader } from "../../domain/tlog/tiles.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { databaseTiles, latestCheckpoint } from "../../../db/queries/log.server.ts";
import type { Route } from "./+types/log-consistency";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(logConsistency, async ({ query, context }) => {
    const latest = (await latestCheckpoint(context.sql))?.size ?? 0;
    if (query.from > query.to) throw badRequest(`from (${query.from}) must not be above to (${query.to})`);
    if (query.to > latest) throw badRequest(`to (${query.to}) is beyond the latest checkpoint (${latest} entries)`);
    const hashes = await consistencyProof(tileHashReader(query.to, databaseTiles(context.sql)), query.from, query.to);
    return { hashes: hashes.map(toBase64) };
  }),
);

export const action = onlyMethods("GET");
