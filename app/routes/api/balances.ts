/** GET /api/balances: every wallet's balance, a page at a time (what `log verify` compares the public log with). */
import { BALANCES_PAGE_MAX, balances } from "../../api/log.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { balancesPage } from "../../../db/queries/log.server.ts";
import type { Route } from "./+types/balances";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(balances, async ({ query, context }) => balancesPage(context.sql, query.after ?? null, query.limit ?? BALANCES_PAGE_MAX)),
);

export const action = onlyMethods("GET");
