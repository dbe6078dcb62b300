/** GET /api/docs: the API reference for people (Swagger UI over GET /api/openapi.json). */
import { onlyMethods } from "../../utils/api.server.ts";
import { DOCS_PAGE } from "./docs.server.ts";

export const loader = () =>
  new Response(DOCS_PAGE, { headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" } });

export const action = onlyMethods("GET");
