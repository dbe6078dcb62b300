/** GET /api/wallet-doginals/{address}: the catalogue items the indexer says the address owns (`_t` ignored). */
import { walletDoginals } from "../../api/holdings.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { walletItems } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/wallet-doginals";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(walletDoginals, ({ params, context }) => walletItems(context.sql, params.address)),
);

export const action = onlyMethods("GET");
