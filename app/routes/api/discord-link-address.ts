/** GET /api/discord/link/{address}: linked or not, and the holder roles held (never which account: POST /api/discord/account). */
import { getDiscordLink } from "../../api/discord.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { linkStatus } from "../../utils/discord-link.server.ts";
import { discordOnly } from "../../utils/discord-routes.server.ts";
import type { Route } from "./+types/discord-link-address";

export const loader = discordOnly(
  apiRoute<Route.LoaderArgs>(endpoint(getDiscordLink, ({ params, context }) => linkStatus(context, params.address))),
);

export const action = onlyMethods("GET");
