/** An ord client for draws, from the configuration (the web's "Select Winner", the CLI, the indexer's pass). */
import type { Config } from "../app/utils/env.server.ts";
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
