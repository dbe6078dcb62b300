/**
 * POST /api/discord/interactions: Discord delivers slash commands here (issue 37). Discord's signature is its
 * authentication: no cookie, no Origin check, and its own rate limit (server/rate-limits.ts). 404 without
 * DISCORD_PUBLIC_KEY.
 */
import { discordInteraction } from "../../api/discord.ts";
import { apiMethods, onlyMethods } from "../../utils/api.server.ts";
import { handleInteraction } from "../../utils/discord-interactions.server.ts";
import type { Route } from "./+types/discord-interactions";

export const action = apiMethods<Route.ActionArgs>({
  POST: Object.assign(({ request, context }: Route.ActionArgs) => handleInteraction(request, context), { route: discordInteraction }),
});

export const loader = onlyMethods("POST");
