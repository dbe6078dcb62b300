/**
 * GET /discord/link?address=: off to Discord's authorize page with a single-use state bound to the address and to
 * this browser (its HttpOnly SameSite=Lax cookie, set here; 10 minutes). Limited per IP (RATE_LIMIT_DISCORD_LINK_PER_MIN).
 * Without an address (the `/link` slash command's button, a shared link): the staking page's Discord card, where the
 * holder connects the wallet that is to be linked.
 */
import { redirect } from "react-router";
import { isDogecoinAddress } from "../domain/address.ts";
import { DISCORD_SECTION_ID } from "../domain/discord.ts";
import { startLink } from "../utils/discord-link.server.ts";
import { pageData } from "../utils/pages.server.ts";
import type { Route } from "./+types/discord-link";

export async function loader({ request, context }: Route.LoaderArgs) {
  if (!context.config.discord) return new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const asked = new URL(request.url).searchParams.get("address");
  if (asked === null) return redirect(`/#${DISCORD_SECTION_ID}`);
  const address = asked.trim();
  if (!isDogecoinAddress(address)) return redirect("/discord/linked?error=address");
  const { url, setCookie } = await pageData(() => startLink(request, context, address));
  return redirect(url, { headers: { "Cache-Control": "no-store", "Set-Cookie": setCookie } });
}
