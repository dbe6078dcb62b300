/** GET /api/wallet-doginals/{address}: the catalogue items the indexer says the address owns (`_t` ignored). */
import { addressParam, apiRoute, onlyMethods } from "../../utils/api.server.ts";
import { walletItems } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/wallet-doginals";

export const loader = apiRoute<Route.LoaderArgs>(({ params, context }) =>
  walletItems(context.sql, addressParam(params.address)),
);

export const action = onlyMethods("GET");
