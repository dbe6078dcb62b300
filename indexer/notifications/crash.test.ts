/**
 * Nothing lost, nothing sent twice (issue 24 item 1): the worker, a process of its own, is killed (SIGKILL) while
 * a receiver holds one of its deliveries unanswered; a new worker takes over once the claim's lease runs out.
 * Every delivery ends delivered, the receiver acts on each exactly once (it keys on `webhook-id`, the same on the
 * repeated attempt), and only the interrupted one was sent a second time.
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { notify } from "../../db/queries/notifications.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let server: http.Server;
let receiverUrl = "";
const EVENTS = 12;
const HOLD_AT = 5;
/** Every request by webhook-id, in order; `applied`: the ids acted on (once each). */
const requests: string[] = [];
const applied = new Set<string>();
let held: (() => void) | undefined;
let onHold: (() => void) | undefined;
const children: ChildProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      requests.push(id);
      if (requests.length === HOLD_AT) {
        // Hold this one: the worker is killed while it waits for the answer.
        held = () => res.destroy();
        onHold?.();
        return;
      }
      applied.add(id); // idempotent on webhook-id
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await db.close();
});

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "indexer/notifications/testing/crash-worker.ts"], {
    env: { ...process.env, DATABASE_URL: db.url, RECEIVER_URL: receiverUrl, LEASE_MS: "1500" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return child;
}

it("a worker killed mid-delivery loses nothing and repeats nothing", { timeout: 90_000 }, async () => {
  await notify(
    db.sql,
    Array.from({ length: EVENTS }, (_, index) => ({
      event: "giveaway.opened" as const,
      subject: `crash-${index}`,
      title: `Event ${index}`,
      body: "b",
      link: "/rewards",
    })),
  );
  const first = startWorker();
  await new Promise<void>((resolve) => (onHold = resolve));
  const exited = new Promise((resolve) => first.once("exit", resolve));
  first.kill("SIGKILL");
  await exited;
  held?.();
  const interrupted = requests[HOLD_AT - 1];
  const [state] = await db.sql<{ state: string }[]>`select state from notification_deliveries where id = ${Number(interrupted.slice(4))}`;
  expect(state.state).toBe("sending"); // claimed, sent, never recorded

  startWorker();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [{ open }] = await db.sql<
      { open: number }[]
    >`select count(*)::int as open from notification_deliveries where state <> 'delivered'`;
    const [{ total }] = await db.sql<{ total: number }[]>`select count(*)::int as total from notification_deliveries`;
    if (total === EVENTS && open === 0) break;
    if (Date.now() > deadline) throw new Error(`not all delivered: ${open} of ${total} open`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const ids = (await db.sql<{ id: number }[]>`select id from notification_deliveries order by id`).map((row) => `msg_${row.id}`);
  expect([...applied].sort()).toEqual([...ids].sort());
  // Sent twice: only the interrupted one, with the same webhook-id.
  const repeated = requests.filter((id, index) => requests.indexOf(id) !== index);
  expect(repeated).toEqual([interrupted]);
  expect(requests).toHaveLength(EVENTS + 1);
});
