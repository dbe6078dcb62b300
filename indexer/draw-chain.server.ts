/** An ord client for draws, from the configuration (the web's "Select Winner", the CLI, the indexer's pass). */
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../app/utils/env.server.ts";
import { processIsAlive } from "../app/utils/process-alive.server.ts";
import type { DrawChain } from "./draws.server.ts";
import { createOrdClient, OrdError } from "./ord-client.server.ts";

const noOrdServer = () => Promise.reject(new OrdError("network", "ORD_URL is not set: version-2 draws read the ord server's blocks"));
const NO_ORD_SERVER: DrawChain = { status: noOrdServer, blockCount: noOrdServer, blockHash: noOrdServer };

export async function withDrawChain<T>(
  config: Pick<Config, "indexer"> & { ordUrl?: string },
  work: (chain: DrawChain) => Promise<T>,
): Promise<T> {
  // Without an ord server a draw that needs none (version 1) still runs; one that reads a block fails there.
  if (!config.ordUrl) return work(NO_ORD_SERVER);
  const { timeoutMs, retries, chain } = config.indexer;
  const client = createOrdClient({ baseUrl: config.ordUrl, chain, timeoutMs, retries, concurrency: 2 });
  try {
    return await work(client);
  } finally {
    client.close();
  }
}

/** Where a demo `npm start` publishes its simulated chain's URL, so the CLI on the same DATA_DIR draws on it. */
export function demoChainFile(dataDir: string): string {
  return path.join(dataDir, "demo-chain.json");
}

/** Publishes the running demo's chain (removed by the returned cleanup, at shutdown). */
export function publishDemoChain(dataDir: string, url: string): () => Promise<void> {
  const file = demoChainFile(dataDir);
  fs.writeFileSync(file, JSON.stringify({ url, pid: process.pid }), { mode: 0o600 });
  return async () => fs.rmSync(file, { force: true });
}

/** The URL a running demo published in `dataDir`, or undefined when none runs (no file, or its process is gone). */
export function readDemoChainUrl(dataDir: string): string | undefined {
  let published: { url?: unknown; pid?: unknown };
  try {
    published = JSON.parse(fs.readFileSync(demoChainFile(dataDir), "utf8")) as typeof published;
  } catch {
    return undefined;
  }
  if (typeof published.url !== "string" || typeof published.pid !== "number" || !processIsAlive(published.pid)) return undefined;
  return published.url;
}
