/** POST /api/admin/discord/commands/test (admin): run a slash command as a test member and see its answer (issue 37). */
import { testDiscordCommand } from "../../api/discord.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { testCommand } from "../../utils/discord-interactions.server.ts";
import { discordOnly } from "../../utils/discord-routes.server.ts";
import type { Route } from "./+types/admin-discord-commands-test";

export const action = apiMethods<Route.ActionArgs>({
  POST: discordOnly(endpoint(testDiscordCommand, ({ body, request, context }) => testCommand(context, request, body))),
});

export const loader = onlyMethods("POST");
