/**
 * What every loader and action receives as `context` (server/app.ts builds it). Tests build their own,
 * with their own database, so nothing here is a process-wide singleton.
 */
import type { Sql } from "../db/client.server.ts";
import type { Config } from "./utils/env.server.ts";
import type { Logger } from "./utils/logger.server.ts";

export type DemoWallet = { label: string; address: string; privateKeyHex: string };

export type IndexerHandle = {
  /** Present when the indexer runs in this process (npm start); /api/health reads the database anyway. */
  running: boolean;
};

export type AppContext = {
  sql: Sql;
  config: Config & { adminAddress: string };
  /** Demo mode only: the built-in wallets (holder, admin) the page offers when MyDoge is absent. */
  demoWallets: DemoWallet[];
  /**
   * The collections with a `collection_images/{collection}/` folder among the site's static files (server/app.ts
   * looks once at start): only those pictures are tried there, so no page asks for a file the install lacks.
   */
  localImageCollections?: string[];
  /** Demo mode: what its Discord double's announcements channel received, newest first (the admin's tab shows it). */
  demoChannelPosts?: () => { at: Date; title: string; description: string; url: string | null; event: string }[];
  /** This request's Content-Security-Policy nonce (server/security.ts), for the page's inline scripts. */
  cspNonce?: string;
};

/** What loaders, actions and app/entry.server.tsx receive: the app's context, with this request's own parts. */
declare module "react-router" {
  interface AppLoadContext extends AppContext {
    /** This request's logger: its lines carry the request's id (`reqId`), as its request line does (server/request-log.ts). */
    logger: Logger;
    /** The client's IP address as Express reads it (`req.ip`: the socket's, or X-Forwarded-For as far as TRUST_PROXY trusts it). */
    clientIp?: string;
  }
}
