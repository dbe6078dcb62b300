/** An ord client for draws, from the configuration (the web's "Select Winner", the CLI, the indexer's pass). */
import type { Config } from "../app/utils/env.server.ts";
import type { DrawChain } from "./draws.server.ts";
import { createOrdClient, OrdError } from "./ord-client.server.ts";

export async function withDrawChain<T>(
  config: Pick<Config, "indexer"> & { ordUrl?: string },
  work: (chain: DrawChain) => Promise<T>,
): Promise<T> {
  if (!config.ordUrl) throw new OrdError("network", "ORD_URL is not set: version-2 draws read the ord server's blocks");
  const { timeoutMs, retries, chain } = config.indexer;
  const client = createOrdClient({ baseUrl: config.ordUrl, chain, timeoutMs, retries, concurrency: 2 });
  try {
    return await work(client);
  } finally {
    client.close();
  }
}
