/**
 * Server side of the end-to-end tests: a fresh database (PGlite or Postgres, see tests/support), a slice
 * of the demo catalogue, a simulated chain that says who owns what, one real indexer sync pass to write
 * ownership, and the real production build served over HTTP. Test wallets come from fixed labels.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import fs from "node:fs";
import path from "node:path";
import type { CatalogueItem } from "../../../app/domain/catalogue.ts";
import { addressOfPrivateKey } from "../../../app/domain/signature.ts";
import { demoCatalogue } from "../../../db/demo-catalogue.ts";
import { importCatalogue } from "../../../db/queries/catalogue.server.ts";
import { createGiveaway, type Giveaway } from "../../../db/queries/giveaways.server.ts";
import { addPoints } from "../../../db/queries/points.server.ts";
import { runDrawPass, selectWinners } from "../../../indexer/draws.server.ts";
import { createOrdClient } from "../../../indexer/ord-client.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../../indexer/simulated-chain.server.ts";
import { syncOnce } from "../../../indexer/sync.server.ts";
import { indexerConfig } from "../../../indexer/test-support.ts";
import { startTestServer, type TestServer } from "../../support/app-server.ts";
import { createTestDatabase, type TestDatabase } from "../../support/test-database.ts";

export type TestWallet = { label: string; privateKeyHex: string; address: string };

/** A wallet whose key is derived from `label` (the same on every run). */
export function testWallet(label: string): TestWallet {
  const privateKeyHex = bytesToHex(sha256(new TextEncoder().encode(`spooks-e2e:${label}`)));
  return { label, privateKeyHex, address: addressOfPrivateKey(sha256(new TextEncoder().encode(`spooks-e2e:${label}`))) };
}

export type E2eWorld = {
  url: string;
  /** The runtime role's connection (as the app's), and `owner` for what only the schema's owner may do. */
  db: TestDatabase;
  server: TestServer;
  chain: SimulatedChain;
  holder: TestWallet;
  admin: TestWallet;
  /** Owns the catalogue items the holder does not. */
  other: TestWallet;
  /** The catalogue slice in the database (per collection, in number order). */
  items: CatalogueItem[];
  /** The items the holder owns at the start. */
  holderItems: CatalogueItem[];
  /** One indexer sync pass against the simulated chain (what the scheduled indexer does every minute). */
  sync(): Promise<void>;
  /** The indexer's draw pass against the simulated chain (it follows every sync pass). */
  drawPass(): Promise<void>;
  /** Draws a version-2 giveaway now: selects its winners, mines 13 blocks, runs the draw pass; its winners. */
  draw(giveawayId: number): Promise<string[]>;
  addPoints(address: string, points: number): Promise<void>;
  createGiveaway(input: {
    title: string;
    description: string;
    pointsCost: number;
    endDate: Date;
    imageUrl?: string;
    winners?: number;
  }): Promise<Giveaway>;
  /** Writes a file into the server's uploads folder; answers its /uploads/… path. */
  upload(name: string, content: string | Buffer): string;
  close(): Promise<void>;
};

export type E2eWorldOptions = {
  /** Catalogue items imported per collection (default 24). */
  perCollection?: number;
  /** Items of each collection the holder owns (default 6). */
  holderOwns?: number;
  /** Serve the holder and admin as demo wallets (GET /api/demo/wallets), as demo mode does. */
  demo?: boolean;
  /** More settings for the web server (e.g. TRUST_PROXY, PUBLIC_URL). */
  env?: Record<string, string>;
};

export async function startE2eWorld({
  perCollection = 24,
  holderOwns = 6,
  demo = false,
  env = {},
}: E2eWorldOptions = {}): Promise<E2eWorld> {
  const holder = testWallet("holder");
  const admin = testWallet("admin");
  const other = testWallet("other");

  const catalogue = demoCatalogue();
  const items = (["spooks", "spook-society"] as const).flatMap((collection) =>
    catalogue.filter((item) => item.collection === collection && item.number <= perCollection),
  );
  const holderItems = items.filter((item) => item.number <= holderOwns);
  const owners = new Map(items.map((item) => [item.inscriptionId, item.number <= holderOwns ? holder.address : other.address]));

  const db = await createTestDatabase();
  const closers: (() => Promise<unknown>)[] = [() => db.close()];
  const close = async () => {
    for (const closer of closers) await closer().catch(() => {});
  };
  try {
    await importCatalogue(db.sql, items);
    const chain = await startSimulatedChain({ owners });
    closers.unshift(() => chain.close());
    const sync = async () => {
      await syncOnce({
        sql: db.sql,
        ordUrl: chain.url,
        config: indexerConfig({ concurrency: 8 }),
        source: "cli",
        wait: true,
      });
    };
    await sync();
    const withClient = async <T>(work: (client: ReturnType<typeof createOrdClient>) => Promise<T>) => {
      const client = createOrdClient({ baseUrl: chain.url, retries: 0 });
      try {
        return await work(client);
      } finally {
        client.close();
      }
    };
    const drawPass = () => withClient((client) => runDrawPass({ sql: db.sql, chain: client })).then(() => {});
    const draw = async (giveawayId: number) => {
      await withClient((client) => selectWinners(db.sql, client, giveawayId, { kind: "system" }));
      chain.mine(13); // the draw block (block count + 6) and six on top
      await drawPass();
      const [row] = await db.sql<{ winners: string[] }[]>`
        select coalesce(array_agg(address order by k), '{}') as winners from giveaway_winners where giveaway_id = ${giveawayId}`;
      return row.winners;
    };

    const server = await startTestServer({
      sql: db.sql,
      adminAddress: admin.address,
      demoWallets: demo
        ? [
            { label: "Demo holder", address: holder.address, privateKeyHex: holder.privateKeyHex },
            { label: "Demo admin", address: admin.address, privateKeyHex: admin.privateKeyHex },
          ]
        : [],
      // Demo mode is "no ORD_URL"; the test server sets one unless told otherwise.
      env: { ...(demo ? { ORD_URL: "" } : {}), ...env },
    });
    closers.unshift(() => server.close());
    // As `npm start` does in demo mode (server/start.ts): the web server's ord server is the simulated chain.
    if (demo) server.context.config.ordUrl = chain.url;

    return {
      url: server.url,
      db,
      server,
      chain,
      holder,
      admin,
      other,
      items,
      holderItems,
      sync,
      drawPass,
      draw,
      async addPoints(address, points) {
        await addPoints(db.sql, { address, points, description: "e2e seed", actor: { kind: "system" } });
      },
      createGiveaway: ({ imageUrl = "/uploads/missing.png", ...input }) =>
        createGiveaway(db.sql, { ...input, imageUrl }, { kind: "system" }),
      upload(name, content) {
        const dir = server.context.config.uploadDir;
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, name), content);
        return `/uploads/${name}`;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A small spooky SVG, for giveaway images in tests and screenshots. */
export function spookySvg(label: string, hue = 270): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="hsl(${hue} 70% 35%)"/><stop offset="1" stop-color="hsl(${(hue + 40) % 360} 60% 12%)"/>
  </linearGradient></defs>
  <rect width="400" height="300" fill="url(#g)"/>
  <circle cx="320" cy="60" r="28" fill="#fef3c7" opacity="0.85"/>
  <path d="M150 250V140a50 50 0 0 1 100 0v110l-17-14-16 14-17-14-17 14-16-14z" fill="#f5f3ff" opacity="0.95"/>
  <circle cx="182" cy="140" r="8" fill="#1e1b4b"/><circle cx="218" cy="140" r="8" fill="#1e1b4b"/>
  <text x="200" y="288" font-family="sans-serif" font-size="20" fill="#ede9fe" text-anchor="middle">${label}</text>
</svg>`;
}
