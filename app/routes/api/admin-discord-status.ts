/** GET /api/admin/discord/status (admin): linked members, the last sweep, the problems to fix. */
import { getDiscordStatus } from "../../api/discord.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { discordStatus } from "../../utils/discord-admin.server.ts";
import { discordOnly } from "../../utils/discord-routes.server.ts";
import type { Route } from "./+types/admin-discord-status";

export const loader = discordOnly(apiRoute<Route.LoaderArgs>(endpoint(getDiscordStatus, ({ context }) => discordStatus(context.sql))));

export const action = onlyMethods("GET");
