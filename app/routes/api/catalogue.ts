/** GET /api/catalogue: every catalogue item's inscription id (the vote verifier's list of what counts as an item). */
import { catalogue } from "../../api/holdings.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { catalogueInscriptionIds } from "../../../db/queries/catalogue.server.ts";
import type { Route } from "./+types/catalogue";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(catalogue, async ({ context }) => ({ inscriptionIds: await catalogueInscriptionIds(context.sql) })),
);

export const action = onlyMethods("GET");
