/** GET /api/discord/pending/{linkToken}: the pending link the wallet is asked to sign. */
import { getPendingLink } from "../../api/discord.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { pendingLink } from "../../utils/discord-link.server.ts";
import { discordOnly } from "../../utils/discord-routes.server.ts";
import type { Route } from "./+types/discord-pending";

export const loader = discordOnly(
  apiRoute<Route.LoaderArgs>(endpoint(getPendingLink, ({ params, context, request }) => pendingLink(request, context, params.linkToken))),
);

export const action = onlyMethods("GET");
