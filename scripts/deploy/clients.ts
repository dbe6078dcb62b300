/**
 * Clients with addresses of their own, for the rate-limit proof of `npm run test:deploy`. Every request the host
 * sends reaches Caddy through docker's port proxy, from one address (the network's gateway); a client here is a
 * container on the stack's network, so Caddy sees its own address, as it sees a real client's.
 * It sends HTTPS requests to Caddy one after another and reports the statuses it got.
 */
import { docker } from "./docker.ts";

export type ClientRequest = { path: string; headers?: Record<string, string> };
/** Caddy on the stack's network: its service name, the site's name (SNI and Host) and the CA that signed it. */
export type ProxyOnNetwork = { network: string; host: string; servername: string; ca: string };

/** Plain CommonJS for `node -e` in the app's image: the proxy as JSON in CLIENT, the requests in REQUESTS. */
const CLIENT_SCRIPT = `
const https = require("node:https");
const { host, servername, ca } = JSON.parse(process.env.CLIENT);
const requests = JSON.parse(process.env.REQUESTS);
const send = ({ path, headers }) =>
  new Promise((resolve, reject) => {
    const request = https.get({ host, port: 443, servername, ca, path, headers: { ...headers, host: servername } }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode));
    });
    request.setTimeout(15000, () => request.destroy(new Error("timed out after 15 s")));
    request.on("error", reject);
  });
(async () => {
  const statuses = [];
  for (const request of requests) statuses.push(await send(request));
  process.stdout.write(JSON.stringify(statuses));
})().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
`;

export type Client = {
  address: string;
  /** Sends `requests` one after another from the client's address; the statuses, in order. */
  send(requests: ClientRequest[]): Promise<number[]>;
  stop(): Promise<void>;
};

/**
 * A client: a container of `image` (any image with node) idling on the proxy's network, so its address stays
 * its own while it lives (docker hands a removed container's address to the next one).
 */
export async function startClient(image: string, proxy: ProxyOnNetwork): Promise<Client> {
  const container = await docker(["run", "-d", "--rm", "--network", proxy.network, image, "node", "-e", "setInterval(() => {}, 1 << 30)"]);
  const address = await docker(["inspect", "--format", `{{(index .NetworkSettings.Networks "${proxy.network}").IPAddress}}`, container]);
  const settings = JSON.stringify({ host: proxy.host, servername: proxy.servername, ca: proxy.ca });
  return {
    address,
    async send(requests) {
      const out = await docker([
        "exec",
        "-e",
        `CLIENT=${settings}`,
        "-e",
        `REQUESTS=${JSON.stringify(requests)}`,
        container,
        "node",
        "-e",
        CLIENT_SCRIPT,
      ]);
      return JSON.parse(out) as number[];
    },
    async stop() {
      await docker(["rm", "-f", container]);
    },
  };
}

/** The networks a container is attached to (a compose service: its project's network). */
export async function networksOf(container: string): Promise<string[]> {
  const names = await docker(["inspect", "--format", "{{range $name, $_ := .NetworkSettings.Networks}}{{$name}} {{end}}", container]);
  return names.split(" ").filter(Boolean);
}
