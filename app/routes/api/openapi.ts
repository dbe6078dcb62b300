/** GET /api/openapi.json: the OpenAPI 3.1 document of /api, generated from the contract (app/api/). */
import { openApiDocument } from "../../api/openapi.server.ts";
import { json, onlyMethods } from "../../utils/api.server.ts";
import type { Route } from "./+types/openapi";

// Built once per process (per rate-limit setting): it states this server's configured limits.
export const loader = ({ context }: Route.LoaderArgs) =>
  json(openApiDocument(context.config.rateLimits), 200, { "Cache-Control": "no-cache" });

export const action = onlyMethods("GET");
