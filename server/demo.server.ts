/**
 * Demo mode (no ORD_URL): two local wallets (a holder and the admin) kept in DATA_DIR, the synthetic
 * catalogue, and a simulated chain in which the demo holder owns a dozen items of each collection.
 */
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import fs from "node:fs";
import path from "node:path";
import type { DemoWallet } from "../app/context.ts";
import { addressOfPrivateKey, newPrivateKey } from "../app/domain/signature.ts";
import type { Sql } from "../db/client.server.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { countItems, importCatalogue } from "../db/queries/catalogue.server.ts";
import { demoOwners, startSimulatedChain, type SimulatedChain } from "../indexer/simulated-chain.server.ts";

export const DEMO_ITEMS_PER_COLLECTION = 12;

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

export async function startDemo(sql: Sql, dataDir: string): Promise<Demo> {
  const wallets = loadDemoWallets(dataDir);
  const [holder, admin] = wallets;
  const catalogue = demoCatalogue();
  if ((await countItems(sql)) === 0) await importCatalogue(sql, catalogue);
  const chain = await startSimulatedChain({
    owners: demoOwners(catalogue, holder.address, DEMO_ITEMS_PER_COLLECTION),
  });
  return { wallets, holder, admin, chain };
}
