/** GET /discord/callback?code=&state=: Discord's answer; on to /discord/linked with a link token, or with what went wrong. */
import { redirect } from "react-router";
import { finishAuthorization } from "../utils/discord-link.server.ts";
import { pageData } from "../utils/pages.server.ts";
import type { Route } from "./+types/discord-callback";

export async function loader({ request, context }: Route.LoaderArgs) {
  if (!context.config.discord) return new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return redirect(await pageData(() => finishAuthorization(request, context)), { headers: { "Cache-Control": "no-store" } });
}
