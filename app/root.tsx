import { isRouteErrorResponse, Links, Meta, Outlet, Scripts, ScrollRestoration } from "react-router";
import type { Route } from "./+types/root";
import { pictureOrigins } from "./domain/image-hosts.ts";
import { useNonce } from "./lib/nonce.ts";
import { headerTeam } from "./utils/pages.server.ts";
import "./app.css";

export const links: Route.LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

/** Settings the pages need (read with useRouteLoaderData("root")): the item pictures' outside hosts, the admin team. */
export async function loader({ context }: Route.LoaderArgs) {
  return {
    itemImageUrls: context.config.itemImageUrls,
    // The collections whose pictures this install has in public/collection_images (the first source tried).
    localImageCollections: context.localImageCollections ?? [],
    // The team's addresses are public (the owner's was built into the spec's page; /admin's data lists them all):
    // the header links to /admin for each member's wallet.
    teamAddresses: await headerTeam(context.sql, context.config.adminAddress),
    // Where a giveaway picture URL may point (the CSP's img-src): the admin form refuses others as typed.
    pictureOrigins: pictureOrigins(context.config),
  };
}

/** Settings do not change while the server runs: never reloaded after an action. */
export const shouldRevalidate = () => false;

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce(); // the CSP nonce on the server, "" in the browser (see app/lib/nonce.ts)
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        {/* Stylesheets and preloads need no nonce (style-src allows inline, script-src 'self'): "" on both sides. */}
        <Links nonce="" />
      </head>
      <body className="min-h-screen bg-zinc-950 text-zinc-100 antialiased">
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const title = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : "Something went wrong";
  const detail = isRouteErrorResponse(error) && typeof error.data === "string" ? error.data : "An unexpected error occurred.";
  return (
    <main className="mx-auto max-w-xl p-8">
      <h1 className="text-2xl font-bold">{title}</h1>
      <p className="mt-2 text-zinc-400">{detail}</p>
    </main>
  );
}
