/**
 * The /api/docs page: Swagger UI rendering GET /api/openapi.json. A page of its own, outside the app:
 * its script and stylesheet come from the installed swagger-ui-dist through GET /api/docs/{asset}
 * (nothing from a CDN), so they load on this page only. No inline script: the page runs under its own
 * Content-Security-Policy (server/security.ts), and its initializer is a file.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const SWAGGER_UI_VERSION = (require("swagger-ui-dist/package.json") as { version: string }).version;

/** Starts Swagger UI on the page. */
const INITIALIZER = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/api/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    displayOperationId: true,
    showExtensions: true,
    defaultModelsExpandDepth: 0,
    // No outside validator badge: the page talks to this site only.
    validatorUrl: null,
  });
});
`;

/** A file of swagger-ui-dist, without its source map comment (the maps are not served). */
function swaggerUiFile(file: string): () => string {
  return () =>
    readFileSync(require.resolve(`swagger-ui-dist/${file}`), "utf8").replace(/\n?\/[/*]# sourceMappingURL=\S+(?: \*\/)?\s*$/, "\n");
}

type Asset = { type: string; read: () => string };

const ASSETS: Record<string, Asset> = {
  "swagger-ui-bundle.js": { type: "text/javascript; charset=utf-8", read: swaggerUiFile("swagger-ui-bundle.js") },
  "swagger-ui.css": { type: "text/css; charset=utf-8", read: swaggerUiFile("swagger-ui.css") },
  "docs.js": { type: "text/javascript; charset=utf-8", read: () => INITIALIZER },
};

/** An asset's address, versioned so a new swagger-ui-dist is fetched anew. */
function assetUrl(name: string): string {
  return `/api/docs/${name}?v=${SWAGGER_UI_VERSION}`;
}

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Spooks API</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${assetUrl("swagger-ui.css")}">
</head>
<body>
<main id="swagger-ui"><p>Loading the API reference… (it needs JavaScript; the document itself is <a href="/api/openapi.json">/api/openapi.json</a>)</p></main>
<script src="${assetUrl("swagger-ui-bundle.js")}"></script>
<script src="${assetUrl("docs.js")}"></script>
</body>
</html>
`;

const loaded = new Map<string, { type: string; body: string }>();

/** The asset called `name`, read once; undefined for any other name. */
export function docsAsset(name: string): { type: string; body: string } | undefined {
  if (!Object.hasOwn(ASSETS, name)) return undefined;
  let asset = loaded.get(name);
  if (!asset) {
    asset = { type: ASSETS[name].type, body: ASSETS[name].read() };
    loaded.set(name, asset);
  }
  return asset;
}
