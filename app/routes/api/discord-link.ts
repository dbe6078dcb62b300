/** POST /api/discord/link: the wallet's signature makes the link. DELETE: the signed unlink. */
import { linkDiscord, unlinkDiscord } from "../../api/discord.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { completeLink, unlink } from "../../utils/discord-link.server.ts";
import { discordOnly } from "../../utils/discord-routes.server.ts";
import type { Route } from "./+types/discord-link";

export const action = apiMethods<Route.ActionArgs>({
  POST: discordOnly(endpoint(linkDiscord, ({ body, context, request }) => completeLink(request, context, body.linkToken, body.signature))),
  DELETE: discordOnly(endpoint(unlinkDiscord, ({ body, context }) => unlink(context, body))),
});

export const loader = onlyMethods("POST", "DELETE");
