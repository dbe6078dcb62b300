/**
 * Demo safety (issue 20, item 3): the demo wallets' keys go only to a client on the server's own machine.
 * Behind a proxy that TRUST_PROXY names, the client is the one the proxy forwards for, so a LAN browser
 * reaching a local proxy gets 403; a forwarded-for header from an untrusted peer changes nothing.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { newWallet, useApi } from "./support.ts";

const ctx = useApi();
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function demoServer(env: Record<string, string>): Promise<TestServer> {
  const holder = newWallet();
  const server = await startTestServer({
    sql: ctx.sql,
    adminAddress: ctx.admin.address,
    demoWallets: [{ label: "Demo holder", address: holder.address, privateKeyHex: Buffer.from(holder.key).toString("hex") }],
    env: { ORD_URL: "", ...env },
  });
  servers.push(server);
  return server;
}

const wallets = (server: TestServer, headers: Record<string, string> = {}) => fetch(`${server.url}/api/demo/wallets`, { headers });

describe("GET /api/demo/wallets", () => {
  it("answers a loopback client with the keys, and anyone a trusted proxy forwards for with 403 JSON", async () => {
    const server = await demoServer({ TRUST_PROXY: "loopback" });
    const local = await wallets(server);
    expect(local.status).toBe(200);
    expect(((await local.json()) as { wallets: unknown[] }).wallets).toHaveLength(1);
    for (const forwardedFor of ["192.168.1.20", "127.0.0.1, 10.0.0.5", "2001:db8::7"]) {
      const remote = await wallets(server, { "x-forwarded-for": forwardedFor });
      expect(remote.status, forwardedFor).toBe(403);
      const body = (await remote.json()) as { message: string; wallets?: unknown };
      expect(body.message).toMatch(/only to a browser on the server's own machine/);
      expect(body.wallets).toBeUndefined();
    }
    // A local proxy forwarding a loopback client (a browser on the server's own machine) is still served.
    expect((await wallets(server, { "x-forwarded-for": "127.0.0.1" })).status).toBe(200);
  });

  it("without TRUST_PROXY a forwarded-for header is not believed either way: the socket's loopback address decides", async () => {
    const server = await demoServer({});
    expect((await wallets(server, { "x-forwarded-for": "192.168.1.20" })).status).toBe(200);
  });
});
