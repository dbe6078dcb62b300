/** POST /api/discord/account: the wallet's signature shows its owner which Discord account it is linked to (issue 32, item 4). */
import { getDiscordAccount } from "../../api/discord.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { linkedAccount } from "../../utils/discord-link.server.ts";
import { discordOnly } from "../../utils/discord-routes.server.ts";
import type { Route } from "./+types/discord-account";

export const action = apiMethods<Route.ActionArgs>({
  POST: discordOnly(endpoint(getDiscordAccount, ({ body, context }) => linkedAccount(context, body))),
});

export const loader = onlyMethods("POST");
