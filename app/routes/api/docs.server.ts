/**
 * The /api/docs page: Swagger UI rendering GET /api/openapi.json. A page of its own, outside the app:
 * its script and stylesheet come from the installed swagger-ui-dist through GET /api/docs/{asset}
 * (nothing from a CDN), so they load on this page only; our own stylesheet follows theirs (colours with
 * enough contrast). No inline script: the page runs under its own Content-Security-Policy
 * (server/security.ts), and its initializer is a file.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const SWAGGER_UI_VERSION = (require("swagger-ui-dist/package.json") as { version: string }).version;

/**
 * Starts Swagger UI on the page, with two accessibility repairs (axe, as for the app's pages): the
 * operation's path in its summary is plain text, not a link inside the summary's button (deep linking
 * still updates the address when an operation opens), and the servers list and the request body
 * editor get names.
 */
const INITIALIZER = `function pathWithoutLink(Original, system) {
  return function (props) {
    return system.React.createElement(Original, Object.assign({}, props, {
      operationProps: props.operationProps.set("isDeepLinkingEnabled", false),
    }));
  };
}

/** Names Swagger UI's unlabelled form fields (rendered at any time, so watched for). */
var UNNAMED = [
  ["select#servers", "Servers"],
  ["textarea.body-param__text", "Request body"],
];

function nameTheUnnamedFields(root) {
  new MutationObserver(function () {
    UNNAMED.forEach(function (pair) {
      root.querySelectorAll(pair[0] + ":not([aria-label])").forEach(function (field) {
        field.setAttribute("aria-label", pair[1]);
      });
    });
  }).observe(root, { childList: true, subtree: true });
}

window.addEventListener("load", function () {
  nameTheUnnamedFields(document.getElementById("swagger-ui"));
  window.ui = SwaggerUIBundle({
    url: "/api/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    displayOperationId: true,
    showExtensions: true,
    defaultModelsExpandDepth: 0,
    // No outside validator badge: the page talks to this site only.
    validatorUrl: null,
    plugins: [{ wrapComponents: { OperationSummaryPath: pathWithoutLink } }],
  });
});
`;

/**
 * Swagger UI's colours darkened to a contrast of at least 4.5:1 (WCAG AA) for its text: the method
 * badges, the version stamps, links, "in" of parameters, the Authorize, Execute and Cancel buttons, and the
 * examples' background (numbers are #d36363 in its "agate" theme).
 */
const OVERRIDES = `.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #4175aa; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #2e815b; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #9f651e; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #c83232; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #2d7f6d; }
.swagger-ui .info .title small { background: #6d737f; }
.swagger-ui .info .title small.version-stamp { background-color: #5a7e03; }
.swagger-ui .info a { color: #3569a5; }
.swagger-ui .btn.authorize { border-color: #2e815b; color: #2e815b; }
.swagger-ui .btn.authorize svg { color: #2e815b; }
.swagger-ui .btn.execute { background-color: #3569a5; border-color: #3569a5; }
.swagger-ui .btn.cancel { border-color: #c62828; color: #c62828; }
.swagger-ui .parameter__extension, .swagger-ui .parameter__in { color: #636363; }
.swagger-ui .opblock-body pre.microlight { background: #111 !important; }
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
  "docs.css": { type: "text/css; charset=utf-8", read: () => OVERRIDES },
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
<link rel="stylesheet" href="${assetUrl("docs.css")}">
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
