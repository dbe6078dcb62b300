/**
 * Demo mode (no ORD_URL): two local wallets (a holder and the admin) kept in DATA_DIR, the synthetic
 * catalogue, and a simulated chain in which the demo holder owns a dozen items of each collection.
 */
import { DEMO_BLOCK_MS } from "../app/domain/giveaways.ts";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import fs from "node:fs";
import path from "node:path";
import type { DemoWallet } from "../app/context.ts";
import { addressOfPrivateKey, newPrivateKey } from "../app/domain/signature.ts";
import type { Sql } from "../db/client.server.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { countItems, importCatalogue } from "../db/queries/catalogue.server.ts";
import { addPoints } from "../db/queries/points.server.ts";
import { createGiveaway } from "../db/queries/giveaways.server.ts";
import { createProposal } from "../db/queries/proposals.server.ts";
import { createSchedule } from "../db/queries/boosts.server.ts";
import { HOUR_MS, now } from "../app/domain/clock.ts";
import { saveImageUpload } from "../app/utils/uploads.server.ts";
import { demoOwners, startSimulatedChain, type SimulatedChain } from "../indexer/simulated-chain.server.ts";

export const DEMO_ITEMS_PER_COLLECTION = 12;
/** The demo chain mines a block this often, so a demo giveaway's draw block gets its 6 confirmations in about a minute. */
export const DEMO_BLOCK_INTERVAL_MS = DEMO_BLOCK_MS;

type StoredKeys = { holder: string; admin: string };

/** The demo wallets, generated once per DATA_DIR (never shipped in the repo). */
export function loadDemoWallets(dataDir: string): DemoWallet[] {
  const file = path.join(dataDir, "demo-wallets.json");
  let keys: StoredKeys;
  try {
    keys = JSON.parse(fs.readFileSync(file, "utf8")) as StoredKeys;
    hexToBytes(keys.holder);
    hexToBytes(keys.admin);
  } catch {
    keys = { holder: bytesToHex(newPrivateKey()), admin: bytesToHex(newPrivateKey()) };
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  }
  return [
    { label: "Demo holder", address: addressOfPrivateKey(hexToBytes(keys.holder)), privateKeyHex: keys.holder },
    { label: "Demo admin", address: addressOfPrivateKey(hexToBytes(keys.admin)), privateKeyHex: keys.admin },
  ];
}

export type Demo = { wallets: DemoWallet[]; holder: DemoWallet; admin: DemoWallet; chain: SimulatedChain };

export type DemoFolders = {
  dataDir: string;
  uploadDir: string;
  /** Where the site's static files are (`public/` in a checkout, the build's `client/`): the first that has the picture. */
  staticDirs: string[];
};

export async function startDemo(sql: Sql, { dataDir, uploadDir, staticDirs }: DemoFolders): Promise<Demo> {
  const wallets = loadDemoWallets(dataDir);
  const [holder, admin] = wallets;
  const catalogue = demoCatalogue();
  if ((await countItems(sql)) === 0) {
    await importCatalogue(sql, catalogue);
    const picture = await uploadDemoPicture(uploadDir, staticDirs);
    await seedDemoActivity(sql, holder.address, catalogue, picture);
  }
  const chain = await startSimulatedChain({
    owners: demoOwners(catalogue, holder.address, DEMO_ITEMS_PER_COLLECTION),
    mineEveryMs: DEMO_BLOCK_INTERVAL_MS,
  });
  return { wallets, holder, admin, chain };
}

const DEMO_STAKED_ITEMS = 3;
const DEMO_PICTURE = "demo/giveaway.png";

/** The demo giveaway's picture, saved as an upload is: a giveaway's picture comes from /uploads/ or https. */
async function uploadDemoPicture(uploadDir: string, staticDirs: string[]): Promise<string> {
  const file = staticDirs.map((dir) => path.join(dir, DEMO_PICTURE)).find((candidate) => fs.existsSync(candidate));
  if (!file) throw new Error(`the demo picture ${DEMO_PICTURE} is in none of ${staticDirs.join(", ")}`);
  return (await saveImageUpload(uploadDir, fs.readFileSync(file))).filePath;
}
const SYSTEM = { kind: "system" } as const;

/**
 * A fresh demo starts with something to click: the holder has welcome points and a few items staked
 * since three hours ago (the indexer credits those hours at start), a giveaway is open and a proposal
 * opens a minute after start (its voting power snapshot is taken then).
 */
async function seedDemoActivity(
  sql: Sql,
  holder: string,
  catalogue: { inscriptionId: string; rarity: string }[],
  imageUrl: string,
): Promise<void> {
  const start = now();
  const hour = Math.floor(start.getTime() / HOUR_MS) * HOUR_MS;
  const stakedSince = new Date(hour - 3 * HOUR_MS);
  const staked = catalogue.slice(0, DEMO_STAKED_ITEMS).map((item) => item.inscriptionId);
  await sql`
    insert into stakes (item_id, address, started_at)
    select id, ${holder}, ${stakedSince} from items where inscription_id = any(${staked})`;
  // Boosts in force, and a Legendary staked 34 days ago: its card shows the boost's parts, and unstaking it warns
  // of the tenure it resets (issue 33, item 1). Only hours since the catch-up limit are credited.
  const boostsFrom = new Date(hour - 40 * 24 * HOUR_MS);
  await createSchedule(
    sql,
    {
      effectiveFrom: boostsFrom,
      rarity: { Common: 100, Rare: 110, Epic: 130, Legendary: 150 },
      tenure: [
        { days: 7, percent: 110 },
        { days: 30, percent: 120 },
      ],
      cap: 200,
    },
    SYSTEM,
    boostsFrom,
  );
  const veteran = catalogue
    .slice(0, DEMO_ITEMS_PER_COLLECTION)
    .find((item, index) => index >= DEMO_STAKED_ITEMS && item.rarity === "Legendary");
  if (veteran) {
    await sql`
      insert into stakes (item_id, address, started_at)
      select id, ${holder}, ${new Date(hour - 34 * 24 * HOUR_MS)} from items where inscription_id = ${veteran.inscriptionId}`;
  }
  await addPoints(sql, { address: holder, points: 1000, description: "Demo welcome points", actor: SYSTEM });
  await createGiveaway(
    sql,
    {
      title: "Haunted Hoodie",
      description: "A glow-in-the-dark Spooks hoodie, shipped anywhere. One winner, drawn fairly from all tickets.",
      imageUrl,
      pointsCost: 100,
      endDate: new Date(start.getTime() + 7 * 24 * HOUR_MS),
    },
    SYSTEM,
  );
  await createProposal(
    sql,
    {
      title: "Pick the next Spooky event",
      description: "The treasury can fund one event this season: a costume contest, a haunted scavenger hunt, or a pixel-art jam.",
      startDate: new Date(start.getTime() + 60_000),
      endDate: new Date(start.getTime() + 3 * 24 * HOUR_MS),
      voteType: "multiple_choice",
      options: ["Costume contest", "Scavenger hunt", "Pixel-art jam"],
      createdBy: "system",
    },
    SYSTEM,
  );
}
