/** GET /discord/link?address=: off to Discord's authorize page with a single-use state bound to the address (10 minutes). */
import { redirect } from "react-router";
import { isDogecoinAddress } from "../domain/address.ts";
import { startLink } from "../utils/discord-link.server.ts";
import { pageData } from "../utils/pages.server.ts";
import type { Route } from "./+types/discord-link";

export async function loader({ request, context }: Route.LoaderArgs) {
  if (!context.config.discord) return new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const address = new URL(request.url).searchParams.get("address")?.trim() ?? "";
  if (!isDogecoinAddress(address)) return redirect("/discord/linked?error=address");
  return redirect(await pageData(() => startLink(request, context, address)), { headers: { "Cache-Control": "no-store" } });
}
