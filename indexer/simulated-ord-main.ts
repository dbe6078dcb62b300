/**
 * The simulated ord server as a program of its own (compiled to build/node/simulated-ord.js): the compose
 * profile "simulated" runs it as the stack's ord server for trials and `npm run test:deploy`. It serves the
 * demo catalogue's items, of which SIMULATED_HOLDER_ADDRESS owns the first SIMULATED_HOLDER_ITEMS (default 12)
 * of each collection; the rest go to a few fixed other holders. The chain lives in memory: a restart begins it
 * again at genesis with the same owners.
 */
import { chainAddressKind, ORD_CHAINS, type OrdChain } from "../app/domain/address.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { demoOwners, startSimulatedChain } from "./simulated-chain.server.ts";

function settings(env: NodeJS.ProcessEnv) {
  const chain = (env.ORD_CHAIN ?? "mainnet") as OrdChain;
  if (!ORD_CHAINS.includes(chain)) throw new Error(`ORD_CHAIN must be one of ${ORD_CHAINS.join(", ")}`);
  const holder = env.SIMULATED_HOLDER_ADDRESS ?? "";
  const kind = chainAddressKind(holder, chain);
  if (kind !== "p2pkh" && kind !== "p2sh") throw new Error(`SIMULATED_HOLDER_ADDRESS must be a P2PKH or P2SH address of ${chain}`);
  const items = Number(env.SIMULATED_HOLDER_ITEMS ?? 12);
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(items) || items < 0) throw new Error("SIMULATED_HOLDER_ITEMS must be a whole number");
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("PORT must be a port number");
  return { chain, holder, items, port, host: env.HOST ?? "0.0.0.0" };
}

async function main() {
  const { chain, holder, items, port, host } = settings(process.env);
  const server = await startSimulatedChain({ owners: demoOwners(demoCatalogue(), holder, items), chain, port, host });
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGTERM", stop).once("SIGINT", stop);
  console.log(JSON.stringify({ msg: "simulated ord server listening", url: server.url, chain, holder, items }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
