/** GET /api/log: the public log's verifier key, witnesses, quorum and size. */
import { logInfo } from "../../api/log.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { latestCheckpoint, logOrigin, logSizes, logVerifierKey } from "../../../db/queries/log.server.ts";
import type { Route } from "./+types/log-info";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(logInfo, async ({ context }) => {
    const [sizes, checkpoint, origin, verifierKey] = await Promise.all([
      logSizes(context.sql),
      latestCheckpoint(context.sql),
      logOrigin(context.sql),
      logVerifierKey(context.sql),
    ]);
    return {
      origin,
      verifierKey,
      witnesses: context.config.log.witnesses.map((witness) => witness.key),
      quorum: context.config.log.quorum,
      entries: sizes.sequenced,
      checkpointSize: checkpoint?.size ?? 0,
    };
  }),
);

export const action = onlyMethods("GET");
