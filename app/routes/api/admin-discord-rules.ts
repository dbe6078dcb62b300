/** GET /api/admin/discord/rules (admin): the rules and the server's roles. PUT: replace them (checked against Discord first). */
import { getDiscordRules, putDiscordRules } from "../../api/discord.ts";
import { apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import { answerOrPending, DISCORD_RULES } from "../../utils/approvals.server.ts";
import { readRules } from "../../utils/discord-admin.server.ts";
import { discordOnly } from "../../utils/discord-routes.server.ts";
import type { Route } from "./+types/admin-discord-rules";

export const loader = discordOnly(apiRoute<Route.LoaderArgs>(endpoint(getDiscordRules, ({ context }) => readRules(context))));

export const action = apiMethods<Route.ActionArgs>({
  PUT: discordOnly(endpoint(putDiscordRules, ({ body, actor, context }) => answerOrPending(context, actor, DISCORD_RULES, body))),
});
