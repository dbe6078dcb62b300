/**
 * After a run of failed connections (the server down or restarting), a pool connects again within half a second of
 * the server answering: postgres.js's own wait between attempts grows to 10-20 s after a dozen failures, which
 * left requests waiting seconds after a PostgreSQL restart (tests/faults/database-restart.test.ts under load).
 * A loopback port stands for the restarting server: nothing listens on it, then a proxy to PGlite does.
 */
import net from "node:net";
import { afterAll, expect, it } from "vitest";
import { createSql, reconnectDelaySeconds } from "./client.server.ts";
import { connectionUrl, serveOverSocket } from "./pglite-socket.server.ts";
import { freshPGlite } from "./testing/fresh-pglite.ts";

const toClose: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of toClose.reverse()) await close();
});

it("reconnects within half a second of the server's return, however many attempts failed before", async () => {
  const db = await freshPGlite();
  const served = await serveOverSocket(db);
  const proxy = net.createServer((client) => {
    const server = net.connect(served.port, "127.0.0.1");
    client.pipe(server).pipe(client);
    client.on("error", () => server.destroy());
    server.on("error", () => client.destroy());
  });
  const listen = (port: number) => new Promise<void>((resolve) => proxy.listen(port, "127.0.0.1", resolve));
  // A port of our own, then nothing listening on it: the server is down (connections refused).
  await listen(0);
  const port = (proxy.address() as net.AddressInfo).port;
  await new Promise((resolve) => proxy.close(resolve));
  const sql = createSql(connectionUrl(port, served.password), { max: 1 });
  toClose.push(
    () => db.close(),
    () => served.stop(),
    () => new Promise((resolve) => proxy.close(resolve)),
    () => sql.end({ timeout: 1 }),
  );

  for (let failures = 0; failures < 12; failures++) await expect(sql`select 1`).rejects.toMatchObject({ code: "ECONNREFUSED" });
  await listen(port); // the server is back
  const started = performance.now();
  expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  // postgres.js's default after 12 failures: (0.5-1) × 20 s.
  expect(performance.now() - started).toBeLessThan(reconnectDelaySeconds(12) * 1000 + 1000);
  expect(reconnectDelaySeconds(1_000)).toBe(0.5);
});
