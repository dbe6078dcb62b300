/** POST /api/admin/discord/preview (admin): who would gain or lose a role under these rules. */
import { previewDiscordRules } from "../../api/discord.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { previewRules } from "../../utils/discord-admin.server.ts";
import { discordOnly } from "../../utils/discord-routes.server.ts";
import type { Route } from "./+types/admin-discord-preview";

export const action = apiMethods<Route.ActionArgs>({
  POST: discordOnly(endpoint(previewDiscordRules, ({ body, context }) => previewRules(context.sql, body))),
});

export const loader = onlyMethods("POST");
