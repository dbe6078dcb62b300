/** GET /api/admin/discord/commands (admin): the slash commands, and whether Discord's deliveries are answered (issue 37). */
import { getDiscordCommands } from "../../api/discord.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { siteOf } from "../../utils/csrf.server.ts";
import { commandsView } from "../../utils/discord-commands.server.ts";
import { discordOnly } from "../../utils/discord-routes.server.ts";
import type { Route } from "./+types/admin-discord-commands";

export const loader = discordOnly(
  apiRoute<Route.LoaderArgs>(
    endpoint(getDiscordCommands, ({ request, context }) => commandsView(context.config.discord, siteOf(request, context).origin)),
  ),
);

export const action = onlyMethods("GET");
