import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createOrdClient, mapConcurrent, OrdError, parseBlockCount, parseInscription, type OrdClient } from "./ord-client.server.ts";
import { startSimulatedChain, type FaultMode, type SimulatedChain } from "./simulated-chain.server.ts";
import { testAddress } from "./test-support.ts";

const ids = Array.from({ length: 40 }, (_, i) => `${i.toString(16).padStart(64, "0")}i0`);
const OWNER = testAddress("owner");

let chain: SimulatedChain;
let client: OrdClient;

beforeAll(async () => {
  chain = await startSimulatedChain({ owners: new Map(ids.map((id) => [id, OWNER])) });
  client = createOrdClient({ baseUrl: `${chain.url}/`, concurrency: 4, timeoutMs: 300, retries: 2, backoffMs: 5 });
});
afterEach(() => {
  chain.clearFaults();
  chain.setLatency(0);
});
afterAll(() => chain.close());

async function failure(promise: Promise<unknown>): Promise<OrdError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OrdError);
  return error as OrdError;
}

describe("ord client", () => {
  it("reads an inscription's owner and satpoint, and the tip height", async () => {
    expect(await client.inscription(ids[0])).toEqual({ inscriptionId: ids[0], address: OWNER, satpoint: chain.satpointOf(ids[0]) });
    expect(await client.blockCount()).toBe(chain.height());
  });

  it("a 404 is not_found and is not retried", async () => {
    chain.resetStats();
    expect((await failure(client.inscription(`${"e".repeat(64)}i0`))).reason).toBe("not_found");
    expect(chain.stats().requests).toBe(1);
  });

  it.each<[FaultMode, string]>([
    ["html", "html"],
    ["garbage", "unparseable"],
    ["invalid-address", "invalid"],
    ["bad-satpoint", "invalid"],
    ["wrong-id", "invalid"],
  ])("a %s answer is refused as %s, without retrying", async (mode, reason) => {
    chain.resetStats();
    chain.failNext(mode);
    expect((await failure(client.inscription(ids[1]))).reason).toBe(reason);
    expect(chain.stats().requests).toBe(1);
  });

  it.each<[FaultMode, string]>([
    ["server-error", "http"],
    ["timeout", "timeout"],
    ["reset", "network"],
  ])("a %s is retried with backoff, then reported as %s", async (mode, reason) => {
    chain.resetStats();
    chain.failNext(mode, { times: 3 });
    expect((await failure(client.inscription(ids[2]))).reason).toBe(reason);
    expect(chain.stats().requests).toBe(3);
  });

  it("a transient 500 or timeout is retried and the answer still comes through", async () => {
    chain.failNext("server-error");
    chain.failNext("timeout", { inscriptionId: ids[3] });
    expect((await client.inscription(ids[3])).address).toBe(OWNER);
  });

  it("an unreadable block count is refused", async () => {
    chain.failNext("garbage", { route: "block-count" });
    expect((await failure(client.blockCount())).reason).toBe("unparseable");
    chain.failNext("html", { route: "block-count" });
    expect((await failure(client.blockCount())).reason).toBe("html");
  });

  it("an unreachable server is a network failure", async () => {
    const nowhere = createOrdClient({ baseUrl: "http://127.0.0.1:1", retries: 0, timeoutMs: 500 });
    expect((await failure(nowhere.blockCount())).reason).toBe("network");
  });

  it("reads many inscriptions with at most `concurrency` requests in flight, each result once", async () => {
    chain.setLatency(20);
    chain.resetStats();
    chain.failNext("server-error", { inscriptionId: ids[5], times: 10 });
    const seen = new Map<string, boolean>();
    for await (const { item, result } of client.inscriptions(ids.map((inscriptionId) => ({ inscriptionId })))) {
      seen.set(item.inscriptionId, result.ok);
    }
    expect(seen.size).toBe(ids.length);
    expect(seen.get(ids[5])).toBe(false);
    expect([...seen.values()].filter(Boolean)).toHaveLength(ids.length - 1);
    expect(chain.stats().maxInFlight).toBeLessThanOrEqual(4);
    expect(chain.stats().maxInFlight).toBeGreaterThan(1);
  });

  it("an aborted read stops at once", async () => {
    chain.failNext("timeout");
    const controller = new AbortController();
    const pending = client.inscription(ids[6], controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect((await failure(pending)).reason).toBe("aborted");
  });
});

describe("answer parsing", () => {
  const satpoint = `${"1".repeat(64)}:0:0`;
  it("accepts extra fields and checks the required ones", () => {
    const body = JSON.stringify({ inscription_id: ids[0], address: OWNER, satpoint, number: 7, content: "AAAA" });
    expect(parseInscription(ids[0], body, "application/json").address).toBe(OWNER);
    expect(() => parseInscription(ids[0], JSON.stringify({ inscription_id: ids[0], address: "", satpoint }))).toThrow(/address/);
    expect(() => parseInscription(ids[0], JSON.stringify({ inscription_id: ids[0], address: OWNER }))).toThrow(/satpoint/);
    expect(() => parseInscription(ids[0], "  <html>")).toThrow(/HTML/);
  });

  it("reads a plain-text height", () => {
    expect(parseBlockCount("5012345\n")).toBe(5012345);
    expect(() => parseBlockCount("-1")).toThrow();
    expect(() => parseBlockCount("")).toThrow();
  });

  it("mapConcurrent yields every result once, whatever the order they finish in", async () => {
    const delays = [30, 5, 20, 1, 10];
    const out: number[] = [];
    for await (const value of mapConcurrent(delays, 2, (ms) => new Promise<number>((r) => setTimeout(() => r(ms), ms)))) out.push(value);
    expect(out.sort((a, b) => a - b)).toEqual([...delays].sort((a, b) => a - b));
    const none: number[] = [];
    for await (const value of mapConcurrent([] as number[], 2, async (x) => x)) none.push(value);
    expect(none).toEqual([]);
  });
});
