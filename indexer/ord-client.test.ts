import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import { encodeChainAddress, encodeWitnessAddress, hash160 } from "../app/domain/address.ts";
import {
  createBatchSizer,
  createOrdClient,
  mapConcurrent,
  OrdError,
  parseBlockCount,
  parseInscription,
  parseStatus,
  parseValidation,
  type OrdClient,
} from "./ord-client.server.ts";
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
  chain.setNodeLatency(0);
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
  it("a server before reorg recovery: its `reorg detected` is read as an unrecoverable reorg", async () => {
    const old = await startSimulatedChain({ owners: new Map([[ids[0], OWNER]]), reorgRecovery: false });
    const oldClient = createOrdClient({ baseUrl: old.url, retries: 0 });
    try {
      expect(await oldClient.status()).toBe("ok");
      old.beginRollback(3);
      expect(await oldClient.status()).toBe("unrecoverable");
    } finally {
      oldClient.close();
      await old.close();
    }
  });

  it("reads an inscription's owner and satpoint, and the tip height", async () => {
    expect(await client.inscription(ids[0])).toEqual({
      inscriptionId: ids[0],
      address: OWNER,
      kind: "p2pkh",
      satpoint: chain.satpointOf(ids[0]),
    });
    expect(await client.blockCount()).toBe(chain.height() + 1);
    expect(await client.status()).toBe("ok");
  });

  it("a 404 is not_found and is not retried", async () => {
    chain.resetStats();
    expect((await failure(client.inscription(`${"e".repeat(64)}i0`))).reason).toBe("not_found");
    expect(chain.stats().requests).toBe(1);
  });

  it("only an empty 404 means a missing route: every 404 with a body is about an id, named when the text names one", async () => {
    const kinds: [FaultMode, string | undefined][] = [
      ["not-found", ids[7]], // inscription … current transaction not found
      ["output-not-found", ids[7]], // inscription … current transaction output not found
      ["delegate-not-found", ids[7]], // delegate … not found
      ["proxy-not-found", undefined], // 404 page not found
    ];
    for (const [mode, named] of kinds) {
      chain.failNext(mode);
      const error = await failure(client.inscription(ids[7]));
      expect([error.reason, error.status, error.inscriptionId], mode).toEqual(["not_found", 404, named]);
    }
    chain.failNext("no-route");
    expect((await failure(client.inscription(ids[7]))).reason).toBe("unsupported");
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

  it("validates (item, owner) pairs in batches, and splits a batch refused for an unknown id so the others are answered", async () => {
    const other = testAddress("someone-else");
    const unknown = `${"e".repeat(64)}i0`;
    const pairs = [
      ...ids.slice(0, 9).map((inscriptionId, i) => ({ inscriptionId, address: i === 4 ? other : OWNER })),
      { inscriptionId: unknown, address: OWNER },
    ];
    const batched = createOrdClient({ baseUrl: chain.url, validateBatchSize: 4, retries: 0 });
    chain.resetStats();
    const outcome = await batched.validateAll(pairs);
    expect([...outcome.confirmed].sort()).toEqual(
      ids
        .slice(0, 9)
        .filter((_, i) => i !== 4)
        .sort(),
    );
    expect([...outcome.refuted]).toEqual([ids[4]]);
    expect([...outcome.unanswered]).toEqual([unknown]);
    // 3 batches (4 + 4 + 2); the last one refused for the id its 404 names, then asked again without it.
    expect(chain.stats().byRoute.validate).toBe(4);
    batched.close();
  });

  it("a validate 404 naming an id (any of wonky-ord's) leaves that id alone unanswered; one naming nothing, its batch", async () => {
    const batched = createOrdClient({ baseUrl: chain.url, validateBatchSize: 10, retries: 0 });
    const pairs = ids.slice(0, 10).map((inscriptionId) => ({ inscriptionId, address: OWNER }));
    for (const mode of ["not-found", "output-not-found"] as const) {
      chain.failNext(mode, { route: "validate", inscriptionId: ids[6] });
      const outcome = await batched.validateAll(pairs);
      expect([...outcome.unanswered], mode).toEqual([ids[6]]);
      expect(outcome.confirmed.size).toBe(9);
    }
    chain.failNext("proxy-not-found", { route: "validate" });
    const proxied = await batched.validateAll(pairs);
    expect(proxied.unanswered.size).toBe(10); // read in full; never taken for a missing route
    chain.failNext("no-route", { route: "validate" });
    expect((await failure(batched.validateAll(pairs))).reason).toBe("unsupported");
    batched.close();
  });

  it("sizes validate batches by the server's answers: small first, growing while fast, within the URI budget", async () => {
    const many = Array.from({ length: 300 }, (_, i) => `${(i + 1000).toString(16).padStart(64, "0")}i0`);
    const big = await startSimulatedChain({ owners: new Map(many.map((id) => [id, OWNER])) });
    try {
      const adaptive = createOrdClient({
        baseUrl: big.url,
        concurrency: 1,
        retries: 0,
        validateStartBatchSize: 10,
        validateTimeoutMs: 5000,
      });
      const outcome = await adaptive.validateAll(many.map((inscriptionId) => ({ inscriptionId, address: OWNER })));
      expect(outcome.confirmed.size).toBe(300);
      expect(outcome.batchSizes).toEqual([10, 20, 40, 80, 150]); // doubling while each answer is fast; the rest
      expect(adaptive.validateBatchSize()).toBe(320);
      adaptive.close();
      // 300 pairs of 67 + 63 characters (the longest witness address) pass 65,534 bytes: the URI budget cuts the batch.
      const long = encodeWitnessAddress({ version: 1, program: sha256(new TextEncoder().encode("long")) });
      const greedy = createOrdClient({
        baseUrl: big.url,
        concurrency: 1,
        retries: 0,
        validateBatchSize: 1000,
        validateStartBatchSize: 1000,
      });
      const refuted = await greedy.validateAll([...many, ...many.slice(0, 200)].map((inscriptionId) => ({ inscriptionId, address: long })));
      expect([refuted.refuted.size, refuted.unanswered.size]).toEqual([300, 0]);
      expect(refuted.batchSizes[0]).toBeLessThan(500);
      greedy.close();
    } finally {
      await big.close();
    }
  });

  it("against a slow node (each id one node call) a batch that times out is asked again in halves, never read in full", async () => {
    const many = Array.from({ length: 120 }, (_, i) => `${(i + 2000).toString(16).padStart(64, "0")}i0`);
    const slow = await startSimulatedChain({ owners: new Map(many.map((id) => [id, OWNER])) });
    try {
      slow.setNodeLatency(10); // 40 ids = 400 ms, over the 300 ms validate timeout
      const adaptive = createOrdClient({
        baseUrl: slow.url,
        concurrency: 1,
        retries: 2,
        validateStartBatchSize: 40,
        validateTimeoutMs: 300,
      });
      const outcome = await adaptive.validateAll(many.map((inscriptionId) => ({ inscriptionId, address: OWNER })));
      expect(outcome.confirmed.size).toBe(120);
      expect(outcome.unanswered.size).toBe(0);
      expect(outcome.timeouts).toBeGreaterThanOrEqual(1); // the first batch of 40 (400 ms)
      expect(Math.max(...outcome.batchSizes)).toBeLessThanOrEqual(20); // halved, and kept small while slow
      // Every request is an answered batch or a timeout: a timed-out batch is never asked again at its size.
      expect(slow.stats().byRoute.validate).toBe(outcome.batchSizes.length + outcome.timeouts);
      expect(slow.stats().byRoute.inscription ?? 0).toBe(0);
      adaptive.close();
    } finally {
      await slow.close();
    }
  });

  it("an id that times out alone is left unanswered (read in full as a last resort), the others answered", async () => {
    chain.setNodeLatency(400);
    const impatient = createOrdClient({
      baseUrl: chain.url,
      concurrency: 1,
      retries: 0,
      validateStartBatchSize: 2,
      validateTimeoutMs: 300,
    });
    const outcome = await impatient.validateAll(ids.slice(0, 2).map((inscriptionId) => ({ inscriptionId, address: OWNER })));
    expect(outcome.unanswered).toEqual(new Set(ids.slice(0, 2)));
    expect(outcome.timeouts).toBe(3); // the pair, then each alone
    impatient.close();
  });

  it("a validate batch that fails for another reason leaves its ids unanswered (read them one by one)", async () => {
    chain.failNext("server-error", { route: "validate", times: 3 });
    const outcome = await client.validateAll(ids.slice(0, 3).map((inscriptionId) => ({ inscriptionId, address: OWNER })));
    expect(outcome.unanswered.size).toBe(3);
    expect(outcome.confirmed.size + outcome.refuted.size).toBe(0);
  });

  it("tells a server without the validate route (a 404 naming no inscription) from an unknown id", async () => {
    const old = await startSimulatedChain({ owners: new Map(ids.map((id) => [id, OWNER])), validateRoute: false });
    const oldClient = createOrdClient({ baseUrl: old.url, retries: 0 });
    try {
      const error = await failure(oldClient.validateAll([{ inscriptionId: ids[0], address: OWNER }]));
      expect(error.reason).toBe("unsupported");
      expect((await failure(oldClient.inscription(`${"e".repeat(64)}i0`))).reason).toBe("not_found");
    } finally {
      oldClient.close();
      await old.close();
    }
  });

  it("asks for gzip and decodes it; the size cap applies to the decoded answer", async () => {
    const big = await startSimulatedChain({ owners: new Map([[ids[0], OWNER]]), contentBytes: 100_000 });
    try {
      const reader = createOrdClient({ baseUrl: big.url, retries: 0 });
      big.resetStats();
      expect((await reader.inscription(ids[0])).address).toBe(OWNER);
      const wire = big.stats().bytesSent;
      expect(wire).toBeGreaterThan(0);
      expect(wire).toBeLessThan(180_000); // ~360 KB of JSON (3.6 characters per content byte) travels gzipped
      const capped = createOrdClient({ baseUrl: big.url, retries: 0, maxBodyBytes: 200_000 });
      expect((await failure(capped.inscription(ids[0]))).message).toMatch(/larger than 200000 bytes/);
      reader.close();
      capped.close();
    } finally {
      await big.close();
    }
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
  /** An answer shaped like wonky-ord's, field for field. */
  const real = (overrides: Record<string, unknown> = {}) =>
    JSON.stringify({
      chain: "mainnet",
      genesis_fee: 100_000,
      genesis_height: 4_600_000,
      inscription: { body: [60, 115, 118, 103, 62], content_type: [105, 109, 97, 103, 101, 47, 115, 118, 103], delegate: null },
      inscription_id: ids[0],
      inscription_number: 7,
      next: null,
      output: { value: 100_000, script_pubkey: "76a914" + "00".repeat(20) + "88ac" },
      address: OWNER,
      previous: null,
      dune: null,
      sat: null,
      satpoint,
      timestamp: "1970-01-01T00:00:00Z",
      ...overrides,
    });
  const p2sh = encodeChainAddress(hash160(new TextEncoder().encode("script")), "p2sh");

  it("reads a P2PKH owner, a P2SH owner and an address-less output from the real shape", () => {
    expect(parseInscription(ids[0], real(), "application/json")).toEqual({
      inscriptionId: ids[0],
      address: OWNER,
      kind: "p2pkh",
      satpoint,
    });
    expect(parseInscription(ids[0], real({ address: p2sh }))).toMatchObject({ address: p2sh, kind: "p2sh" });
    expect(parseInscription(ids[0], real({ address: null }))).toMatchObject({ address: null, kind: "none" });
  });

  it("refuses another chain, another network's address, a missing satpoint, HTML and another inscription", () => {
    expect(() => parseInscription(ids[0], real({ chain: "testnet" }))).toThrow(/about testnet, not mainnet/);
    const testnetOwner = encodeChainAddress(hash160(new TextEncoder().encode("t")), "p2pkh", "testnet");
    expect(() => parseInscription(ids[0], real({ address: testnetOwner }))).toThrow(/not a mainnet P2PKH, P2SH or witness address/);
    expect(parseInscription(ids[0], real({ chain: "testnet", address: testnetOwner }), "", "testnet").kind).toBe("p2pkh");
    expect(() => parseInscription(ids[0], real({ address: "" }))).toThrow(OrdError);
    expect(() => parseInscription(ids[0], real({ satpoint: undefined }))).toThrow(/satpoint/);
    expect(() => parseInscription(ids[0], real({ inscription_id: ids[1] }))).toThrow(/about/);
    expect(() => parseInscription(ids[0], "  <html>")).toThrow(/HTML/);
  });

  it("reads the test chains' owners as wonky-ord prints them: 0x71 (n…) and 0xc4 on testnet, signet and regtest", () => {
    const hash = hash160(new TextEncoder().encode("regtest"));
    const ordP2pkh = encodeChainAddress(hash, "p2pkh", "testnet");
    const ordP2sh = encodeChainAddress(hash, "p2sh", "testnet");
    const coreRegtest = createBase58check(sha256).encode(Uint8Array.from([0x6f, ...hash])); // dogecoind -regtest's own
    for (const chain of ["testnet", "signet", "regtest"] as const) {
      expect(parseInscription(ids[0], real({ chain, address: ordP2pkh }), "", chain).kind).toBe("p2pkh");
      expect(parseInscription(ids[0], real({ chain, address: ordP2sh }), "", chain).kind).toBe("p2sh");
      expect(() => parseInscription(ids[0], real({ chain, address: coreRegtest }), "", chain)).toThrow(/not a \w+ P2PKH, P2SH or witness/);
      expect(() => parseInscription(ids[0], real({ chain, address: OWNER }), "", chain)).toThrow(OrdError);
    }
  });

  it("reads a witness program's bech32 address (bc1…) as an owner of kind witness, on its own chain only", () => {
    const program = hash160(new TextEncoder().encode("witness"));
    const bc1 = encodeWitnessAddress({ version: 0, program });
    expect(parseInscription(ids[0], real({ address: bc1 }))).toMatchObject({ address: bc1, kind: "witness" });
    const tb1 = encodeWitnessAddress({ version: 0, program }, "testnet");
    expect(parseInscription(ids[0], real({ chain: "testnet", address: tb1 }), "", "testnet").kind).toBe("witness");
    expect(() => parseInscription(ids[0], real({ address: tb1 }))).toThrow(OrdError);
    expect(() => parseInscription(ids[0], real({ address: bc1.toUpperCase() }))).toThrow(OrdError);
  });

  it("reads /status and a validate answer", () => {
    expect(parseStatus("OK")).toBe("ok");
    expect(parseStatus("unrecoverable reorg detected, please rebuild the database.")).toBe("unrecoverable");
    expect(parseStatus("reorg detected, please rebuild the database.")).toBe("unrecoverable"); // before 2024-08-28
    expect(() => parseStatus("reindexing")).toThrow(OrdError);
    expect(() => parseStatus("<html>")).toThrow(/HTML/);
    const pairs = [
      { inscriptionId: ids[0], address: OWNER },
      { inscriptionId: ids[1], address: OWNER },
    ];
    expect(parseValidation(pairs, JSON.stringify({ [ids[0]]: true, [ids[1]]: false }))).toEqual(
      new Map([
        [ids[0], true],
        [ids[1], false],
      ]),
    );
    expect(() => parseValidation(pairs, JSON.stringify({ [ids[0]]: true }))).toThrow(/has no/);
    expect(() => parseValidation(pairs, JSON.stringify({ [ids[0]]: "yes", [ids[1]]: true }))).toThrow(OrdError);
  });

  it("reads a plain-text height", () => {
    expect(parseBlockCount("5012345\n")).toBe(5012345);
    expect(() => parseBlockCount("-1")).toThrow();
    expect(() => parseBlockCount("")).toThrow();
  });

  it("the batch sizer grows towards the size the answers' pace brings within a quarter of the timeout, halves when slow", () => {
    const sizer = createBatchSizer(50, 500, 1000);
    sizer.answered(50, 100); // 2 ms a pair: 125 pairs in 250 ms; at most doubling
    expect(sizer.size()).toBe(100);
    sizer.answered(50, 100);
    expect(sizer.size()).toBe(125);
    sizer.answered(125, 400); // slower than its target but under half the timeout: kept
    expect(sizer.size()).toBe(125);
    sizer.answered(125, 700); // over half the timeout: halved
    expect(sizer.size()).toBe(62);
    sizer.timedOut(62);
    expect(sizer.size()).toBe(31);
    for (let i = 0; i < 10; i++) sizer.answered(sizer.size(), 1);
    expect(sizer.size()).toBe(500);
    for (let i = 0; i < 20; i++) sizer.timedOut(sizer.size());
    expect(sizer.size()).toBe(1);
    expect(createBatchSizer(900, 500, 1000).size()).toBe(500);
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
