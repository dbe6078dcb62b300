/** The feature switch of every Discord route: 404 before anything else when DISCORD_* is unset. */
import { json } from "./api.server.ts";

type Args = { context: { config: { discord?: unknown } } };

export function discordOnly<A extends Args, R>(handler: (args: A) => R): (args: A) => R | Response {
  return (args) => (args.context.config.discord ? handler(args) : json({ message: "Not found" }, 404));
}
