/** GET /api/admin/notifications/channel-posts (admin): demo mode's Discord channel posts, newest first. */
import { listChannelPosts } from "../../api/notifications.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import type { Route } from "./+types/admin-channel-posts";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listChannelPosts, ({ context }) => (context.demoChannelPosts?.() ?? []).slice(0, 100)),
);

export const action = onlyMethods("GET");
