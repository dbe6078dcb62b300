/**
 * Steady HTTPS traffic through the stack's proxy, for `npm run test:deploy`: a few clients each sending one
 * request after another, every answer (or failure) recorded with its time, so a phase can say which requests
 * failed and when the first good answer came back.
 */
import https from "node:https";

export type Endpoint = { host: string; port: number; servername: string; ca: string };
export type Outcome = { startedAt: number; endedAt: number; status: number | null; error?: string; path: string };

/** One HTTPS GET to the site's name at `endpoint` (the name checked against Caddy's certificate). */
export function get(
  endpoint: Endpoint,
  path: string,
  agent?: https.Agent,
): Promise<{ status: number; body: Buffer; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      {
        host: endpoint.host,
        port: endpoint.port,
        servername: endpoint.servername,
        ca: endpoint.ca,
        headers: { host: endpoint.servername },
        path,
        agent,
        timeout: 15_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), headers: response.headers }));
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error("timed out after 15 s")));
    request.on("error", reject);
  });
}

export type Traffic = {
  outcomes: Outcome[];
  /** Requests that got no answer or a status outside `ok` (default: 2xx), started at or after `from`. */
  failures(from: number, to?: number, ok?: (status: number) => boolean): Outcome[];
  /** The first request started at or after `from` that answered 2xx. */
  firstSuccess(from: number): Outcome | undefined;
  stop(): Promise<void>;
};

const is2xx = (status: number) => status >= 200 && status < 300;

/** `clients` loops over `paths`, each waiting `pauseMs` between its requests. */
export function startTraffic(endpoint: Endpoint, paths: string[], { clients = 4, pauseMs = 25 } = {}): Traffic {
  const agent = new https.Agent({ keepAlive: true, maxSockets: clients });
  const outcomes: Outcome[] = [];
  let running = true;
  const loop = async (client: number) => {
    for (let i = client; running; i++) {
      const path = paths[i % paths.length];
      const startedAt = Date.now();
      try {
        const { status } = await get(endpoint, path, agent);
        outcomes.push({ startedAt, endedAt: Date.now(), status, path });
      } catch (error) {
        outcomes.push({ startedAt, endedAt: Date.now(), status: null, error: (error as Error).message, path });
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  const loops = Array.from({ length: clients }, (_, client) => loop(client));
  return {
    outcomes,
    failures: (from, to = Infinity, ok = is2xx) =>
      outcomes.filter((o) => o.startedAt >= from && o.startedAt <= to && (o.status === null || !ok(o.status))),
    firstSuccess: (from) =>
      outcomes.filter((o) => o.startedAt >= from && o.status !== null && is2xx(o.status)).sort((a, b) => a.startedAt - b.startedAt)[0],
    async stop() {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}
