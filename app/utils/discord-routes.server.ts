/**
 * The feature switch of every Discord route: 404 before anything else when DISCORD_* is unset. Wraps a
 * loader, or a method's handler inside `apiMethods` (so another method still answers 405); the handler's
 * contract (`route`) stays on it.
 */
import { json } from "./api.server.ts";

type Args = { context: { config: { discord?: unknown } } };

export function discordOnly<A extends Args, R, H extends (args: A) => R>(handler: H & ((args: A) => R)): H {
  const wrapped = (args: A) => (args.context.config.discord ? handler(args) : json({ message: "Not found" }, 404));
  return Object.assign(wrapped, handler);
}
