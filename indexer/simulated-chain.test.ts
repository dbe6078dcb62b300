import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDogecoinAddress } from "../app/domain/address.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { demoOtherHolders, demoOwners, startSimulatedChain, type SimulatedChain } from "./simulated-chain.server.ts";
import { testAddress } from "./test-support.ts";

const ID_A = `${"a".repeat(64)}i0`;
const ID_B = `${"b".repeat(64)}i0`;
const ALICE = testAddress("alice");
const BOB = testAddress("bob");

let chain: SimulatedChain;

beforeAll(async () => {
  chain = await startSimulatedChain({ owners: new Map([[ID_A, ALICE], [ID_B, ALICE]]) });
});
afterAll(() => chain.close());

const get = (path: string) => fetch(`${chain.url}${path}`);
const post = (path: string, body: unknown) =>
  fetch(`${chain.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("simulated chain: the wonky-ord endpoints", () => {
  it("answers an inscription as JSON with its id, owner address and a txid:vout:offset satpoint", async () => {
    const response = await get(`/inscription/${ID_A}?json=true`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = await response.json();
    expect(body).toMatchObject({ inscription_id: ID_A, address: ALICE });
    expect(body.satpoint).toMatch(/^[0-9a-f]{64}:\d+:\d+$/);
  });

  it("answers 404 for an unknown inscription and an unknown path", async () => {
    expect((await get(`/inscription/${"c".repeat(64)}i0?json=true`)).status).toBe(404);
    expect((await get("/nothing-here")).status).toBe(404);
  });

  it("answers the tip height as plain text", async () => {
    const response = await get("/block-count");
    expect(response.headers.get("content-type")).toContain("text/plain");
    expect(Number(await response.text())).toBe(chain.height());
  });
});

describe("simulated chain: transfers and blocks", () => {
  it("a transfer moves the owner, changes the satpoint and is confirmed in a new block", async () => {
    const before = { height: chain.height(), satpoint: chain.satpointOf(ID_A) };
    chain.transfer(ID_A, BOB);
    expect(chain.ownerOf(ID_A)).toBe(BOB);
    expect(chain.height()).toBe(before.height + 1);
    const body = await (await get(`/inscription/${ID_A}?json=true`)).json();
    expect(body.address).toBe(BOB);
    expect(body.satpoint).not.toBe(before.satpoint);
    chain.transfer(ID_A, ALICE);
  });

  it("mine() adds blocks and returns the new height", () => {
    const height = chain.height();
    expect(chain.mine()).toBe(height + 1);
    expect(chain.mine(5)).toBe(height + 6);
  });

  it("refuses to transfer an unknown inscription or to an invalid address", () => {
    expect(() => chain.transfer(`${"c".repeat(64)}i0`, BOB)).toThrow(/unknown inscription/);
    expect(() => chain.transfer(ID_A, "not-an-address")).toThrow(/not a Dogecoin address/);
  });
});

describe("simulated chain: HTTP control routes", () => {
  it("POST /control/transfer moves an item", async () => {
    const response = await post("/control/transfer", { inscriptionId: ID_B, to: BOB });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ inscriptionId: ID_B, address: BOB, height: chain.height() });
    expect(chain.ownerOf(ID_B)).toBe(BOB);
    await post("/control/transfer", { inscriptionId: ID_B, to: ALICE });
  });

  it("POST /control/transfer refuses a bad body (400), a bad address (400) and an unknown item (404)", async () => {
    expect((await post("/control/transfer", { inscriptionId: ID_B })).status).toBe(400);
    expect((await post("/control/transfer", { inscriptionId: ID_B, to: "Dnope" })).status).toBe(400);
    expect((await post("/control/transfer", { inscriptionId: `${"d".repeat(64)}i0`, to: BOB })).status).toBe(404);
    const notJson = await fetch(`${chain.url}/control/transfer`, { method: "POST", body: "{oops" });
    expect(notJson.status).toBe(400);
    expect(chain.ownerOf(ID_B)).toBe(ALICE);
  });

  it("POST /control/mine mines blocks", async () => {
    const height = chain.height();
    const body = await (await post("/control/mine", { blocks: 3 })).json();
    expect(body.height).toBe(height + 3);
    expect((await post("/control/mine", { blocks: -1 })).status).toBe(400);
  });

  it("POST /control/fail injects a fault into the next answer only", async () => {
    expect((await post("/control/fail", { mode: "server-error" })).status).toBe(200);
    expect((await get(`/inscription/${ID_A}?json=true`)).status).toBe(500);
    expect((await get(`/inscription/${ID_A}?json=true`)).status).toBe(200);
    expect((await post("/control/fail", { mode: "meteor" })).status).toBe(400);
  });
});

describe("simulated chain: faults", () => {
  it("html, garbage, invalid address, bad satpoint and wrong id answers look as a broken server's would", async () => {
    chain.failNext("html");
    const html = await get(`/inscription/${ID_A}?json=true`);
    expect(html.headers.get("content-type")).toContain("text/html");
    chain.failNext("garbage");
    await expect(get(`/inscription/${ID_A}?json=true`).then((r) => r.json())).rejects.toThrow();
    chain.failNext("invalid-address");
    expect(isDogecoinAddress((await (await get(`/inscription/${ID_A}?json=true`)).json()).address)).toBe(false);
    chain.failNext("bad-satpoint");
    expect((await (await get(`/inscription/${ID_A}?json=true`)).json()).satpoint).toBe("not-a-satpoint");
    chain.failNext("wrong-id");
    expect((await (await get(`/inscription/${ID_A}?json=true`)).json()).inscription_id).not.toBe(ID_A);
  });

  it("a fault can target one inscription, or the block count", async () => {
    chain.failNext("not-found", { inscriptionId: ID_B });
    expect((await get(`/inscription/${ID_A}?json=true`)).status).toBe(200);
    expect((await get(`/inscription/${ID_B}?json=true`)).status).toBe(404);
    chain.failNext("garbage", { route: "block-count" });
    expect(await (await get("/block-count")).text()).toBe("tip: soon");
    expect(Number(await (await get("/block-count")).text())).toBe(chain.height());
  });

  it("timeout never answers and reset drops the connection", async () => {
    chain.failNext("timeout");
    await expect(fetch(`${chain.url}/inscription/${ID_A}?json=true`, { signal: AbortSignal.timeout(150) })).rejects.toThrow();
    chain.failNext("reset");
    await expect(get(`/inscription/${ID_A}?json=true`)).rejects.toThrow();
    expect((await get(`/inscription/${ID_A}?json=true`)).status).toBe(200);
  });
});

describe("demoOwners", () => {
  const catalogue = demoCatalogue();
  const holder = testAddress("demo-holder");

  it("gives the holder the first N items of each collection and the rest to a few valid, fixed addresses", () => {
    const owners = demoOwners(catalogue, holder, 12);
    expect(owners.size).toBe(catalogue.length);
    for (const collection of ["spooks", "spook-society"]) {
      const items = catalogue.filter((item) => item.collection === collection);
      expect(items.slice(0, 12).every((item) => owners.get(item.inscriptionId) === holder)).toBe(true);
      expect(items.slice(12).some((item) => owners.get(item.inscriptionId) === holder)).toBe(false);
    }
    const others = new Set([...owners.values()].filter((address) => address !== holder));
    expect(others.size).toBeGreaterThan(1);
    expect([...others].every(isDogecoinAddress)).toBe(true);
  });

  it("is the same on every run", () => {
    expect(demoOwners(catalogue, holder, 12)).toEqual(demoOwners(catalogue, holder, 12));
    expect(demoOtherHolders()).toEqual(demoOtherHolders());
  });
});
