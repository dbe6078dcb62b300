/** GET /api/docs/{asset}: the /api/docs page's script and stylesheet, our stylesheet and initializer; any other name is 404. */
import { json, onlyMethods } from "../../utils/api.server.ts";
import { docsAsset } from "./docs.server.ts";
import type { Route } from "./+types/docs-asset";

export const loader = ({ params }: Route.LoaderArgs) => {
  const asset = docsAsset(params.asset);
  if (!asset) return json({ message: "Not found" }, 404);
  return new Response(asset.body, { headers: { "Content-Type": asset.type, "Cache-Control": "public, max-age=86400" } });
};

export const action = onlyMethods("GET");
