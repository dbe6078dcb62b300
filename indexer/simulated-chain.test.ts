import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { createBase58check } from "@scure/base";
import http from "node:http";
import zlib from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chainAddressKind, encodeChainAddress, encodeWitnessAddress, hash160, isDogecoinAddress } from "../app/domain/address.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import {
  demoOtherHolders,
  demoOwners,
  startSimulatedChain,
  type SimulatedChain,
  type SimulatedChainOptions,
} from "./simulated-chain.server.ts";
import { testAddress } from "./test-support.ts";

const ID_A = `${"a".repeat(64)}i0`;
const ID_B = `${"b".repeat(64)}i0`;
const ID_C = `${"c".repeat(64)}i0`;
const UNKNOWN = `${"d".repeat(64)}i0`;
const ALICE = testAddress("alice");
const BOB = testAddress("bob");
const CAROL = testAddress("carol");
const P2SH = encodeChainAddress(hash160(new TextEncoder().encode("a redeem script")), "p2sh", "mainnet");
const TESTNET_ALICE = encodeChainAddress(hash160(new TextEncoder().encode("testnet key")), "p2pkh", "testnet");
const WITNESS_V0 = encodeWitnessAddress({ version: 0, program: hash160(new TextEncoder().encode("a witness key")) });
const WITNESS_V1 = encodeWitnessAddress({ version: 1, program: sha256(new TextEncoder().encode("a taproot key")) });

const FIELDS = [
  "chain",
  "genesis_fee",
  "genesis_height",
  "inscription",
  "inscription_id",
  "inscription_number",
  "next",
  "output",
  "address",
  "previous",
  "dune",
  "sat",
  "satpoint",
  "timestamp",
];
const SATPOINT = /^[0-9a-f]{64}:\d+:\d+$/;

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: Buffer; text: string };

/** A raw HTTP request: no automatic Accept-Encoding, no decompression (unlike fetch). */
function request(
  chain: SimulatedChain,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    const req = http.request(`${chain.url}${path}`, { method: init.method ?? "GET", headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString("utf8") });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

const decode = (answer: Answer): string => {
  const encoding = answer.headers["content-encoding"];
  if (encoding === "gzip") return zlib.gunzipSync(answer.body).toString("utf8");
  if (encoding === "br") return zlib.brotliDecompressSync(answer.body).toString("utf8");
  return answer.text;
};

const inscription = async (chain: SimulatedChain, id: string) => {
  const answer = await request(chain, `/inscription/${id}?json=true`);
  expect(answer.status, answer.text).toBe(200);
  return JSON.parse(answer.text);
};
const validate = (chain: SimulatedChain, ids: string[], addresses?: string[]) =>
  request(chain, `/inscriptions/validate?inscription_ids=${ids.join(",")}${addresses ? `&addresses=${addresses.join(",")}` : ""}`);
const blockCount = async (chain: SimulatedChain) => Number((await request(chain, "/block-count")).text);
const control = (chain: SimulatedChain, action: string, body: unknown = {}) =>
  request(chain, `/control/${action}`, { method: "POST", body });

const base58check = createBase58check(sha256);
const hashOf = (address: string) => bytesToHex(base58check.decode(address).subarray(1));

const chains: SimulatedChain[] = [];
async function newChain(options: Partial<SimulatedChainOptions> = {}): Promise<SimulatedChain> {
  const chain = await startSimulatedChain({
    owners: new Map([
      [ID_A, ALICE],
      [ID_B, ALICE],
      [ID_C, BOB],
    ]),
    ...options,
  });
  chains.push(chain);
  return chain;
}
afterAll(async () => {
  await Promise.all(chains.map((chain) => chain.close()));
});

/** PNG chunks, each CRC checked; throws on anything that is not a PNG. */
function pngChunks(bytes: Buffer): { type: string; data: Buffer }[] {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const chunks = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.subarray(at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    expect(bytes.readUInt32BE(at + 8 + length), `CRC of ${type.toString("latin1")}`).toBe(zlib.crc32(data, zlib.crc32(type)));
    chunks.push({ type: type.toString("latin1"), data });
    at += 12 + length;
  }
  expect(chunks.map((chunk) => chunk.type)[0]).toBe("IHDR");
  expect(chunks.at(-1)?.type).toBe("IEND");
  return chunks;
}

/** The decoded image: its size, palette and pixel rows (filter bytes included). */
function decodePng(bytes: Buffer) {
  const chunks = pngChunks(bytes);
  const header = chunks[0].data;
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const palette = chunks.find((chunk) => chunk.type === "PLTE")!.data;
  const pixels = zlib.inflateSync(Buffer.concat(chunks.filter((chunk) => chunk.type === "IDAT").map((chunk) => chunk.data)));
  const [bitDepth, colourType] = [header[8], header[9]];
  expect(colourType).toBe(3); // palette indices
  expect(pixels.length).toBe(height * (1 + Math.ceil((width * bitDepth) / 8)));
  return { width, height, palette, pixels };
}

describe("GET /inscription/{id}?json=true", () => {
  let chain: SimulatedChain;
  beforeAll(async () => (chain = await newChain()));

  it("answers the real fields, in the real order, with the real types", async () => {
    const answer = await request(chain, `/inscription/${ID_A}?json=true`);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(answer.text);
    expect(Object.keys(body)).toEqual(FIELDS);
    expect(body).toMatchObject({ chain: "mainnet", inscription_id: ID_A, inscription_number: 0, address: ALICE, dune: null, sat: null });
    expect(body.timestamp).toBe("1970-01-01T00:00:00Z");
    expect(Number.isInteger(body.genesis_fee) && Number.isInteger(body.genesis_height)).toBe(true);
    expect(body.genesis_height).toBeLessThan(chain.height());
    expect(body.satpoint).toMatch(SATPOINT);
    expect(body.satpoint).toBe(chain.satpointOf(ID_A));
    expect(Object.keys(body.output)).toEqual(["value", "script_pubkey"]);
    expect(body.output).toEqual({ value: 100_000, script_pubkey: `76a914${hashOf(ALICE)}88ac` });
  });

  it("inlines the content as byte values, the content type as bytes, and a null delegate", async () => {
    const body = await inscription(chain, ID_A);
    expect(Object.keys(body.inscription)).toEqual(["body", "content_type", "delegate"]);
    expect(Buffer.from(body.inscription.content_type).toString()).toBe("image/png");
    expect(body.inscription.delegate).toBeNull();
    expect(body.inscription.body.every((byte: unknown) => Number.isInteger(byte) && (byte as number) >= 0 && (byte as number) < 256)).toBe(
      true,
    );
    const content = await request(chain, `/content/${ID_A}`);
    expect(Buffer.from(body.inscription.body)).toEqual(content.body);
  });

  it("links previous and next inscriptions by number", async () => {
    const [a, b, c] = await Promise.all([ID_A, ID_B, ID_C].map((id) => inscription(chain, id)));
    expect([a.inscription_number, b.inscription_number, c.inscription_number]).toEqual([0, 1, 2]);
    expect([a.previous, a.next]).toEqual([null, ID_B]);
    expect([b.previous, b.next]).toEqual([ID_A, ID_C]);
    expect([c.previous, c.next]).toEqual([ID_B, null]);
  });

  it("answers the HTML page without json=true, whatever the Accept header says", async () => {
    for (const path of [`/inscription/${ID_A}`, `/inscription/${ID_A}?json=false`, `/shibescription/${ID_A}`]) {
      const answer = await request(chain, path, { headers: { accept: "application/json" } });
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(answer.text).toMatch(/^<!doctype html>/);
      expect(answer.text).toContain(`<h1>Shibescription 0</h1>`);
      expect(answer.text).toContain(ALICE);
    }
  });

  it("refuses a json flag that is not true or false with axum's query text", async () => {
    const answer = await request(chain, `/inscription/${ID_A}?json=1`);
    expect(answer.status).toBe(400);
    expect(answer.text).toBe("Failed to deserialize query string: provided string was not `true` or `false`");
  });

  it("answers an unknown id 404 and a malformed id 400, in plain text with the real texts", async () => {
    const unknown = await request(chain, `/inscription/${UNKNOWN}?json=true`);
    expect([unknown.status, unknown.headers["content-type"], unknown.text]).toEqual([
      404,
      "text/plain; charset=utf-8",
      `inscription ${UNKNOWN} not found`,
    ]);
    const cases: [string, string][] = [
      ["abc", "Invalid URL: invalid length: 3"],
      [`${"a".repeat(64)}x0`, "Invalid URL: invalid seprator: `x`"],
      [`${"g".repeat(64)}i0`, "Invalid URL: invalid txid: invalid hex character 103"],
      [`${"a".repeat(64)}i-1`, "Invalid URL: invalid index: invalid digit found in string"],
    ];
    for (const [id, text] of cases) {
      const answer = await request(chain, `/inscription/${id}?json=true`);
      expect([answer.status, answer.headers["content-type"], answer.text]).toEqual([400, "text/plain; charset=utf-8", text]);
    }
  });

  it("reads an id in upper case or with a padded index as the same inscription, named as the server prints it", async () => {
    const body = await inscription(chain, `${"A".repeat(64)}i00`);
    expect(body.inscription_id).toBe(ID_A);
  });

  it("answers unknown paths with axum's empty 404 and other methods with 405", async () => {
    const missing = await request(chain, "/nothing-here");
    expect([missing.status, missing.body.length]).toEqual([404, 0]);
    const post = await request(chain, "/block-count", { method: "POST" });
    expect([post.status, post.body.length]).toEqual([405, 0]);
  });
});

describe("GET /block-count and /status", () => {
  it("answers the block count (last height + 1) in plain text, following mined blocks", async () => {
    const chain = await newChain();
    const answer = await request(chain, "/block-count");
    expect(answer.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(answer.text).toBe(String(chain.height() + 1));
    expect(chain.blockCount()).toBe(chain.height() + 1);
    expect(chain.mine(3)).toBe(chain.height());
    expect(await blockCount(chain)).toBe(chain.height() + 1);
  });

  it("answers /status OK, then the unrecoverable text once a reorg is too deep", async () => {
    const chain = await newChain();
    const ok = await request(chain, "/status");
    expect([ok.status, ok.headers["content-type"], ok.text]).toEqual([200, "text/plain; charset=utf-8", "OK"]);
    chain.markUnrecoverable();
    const stopped = await request(chain, "/status");
    expect([stopped.status, stopped.text]).toEqual([200, "unrecoverable reorg detected, please rebuild the database."]);
  });
});

describe("GET /inscriptions/validate", () => {
  let chain: SimulatedChain;
  beforeAll(async () => (chain = await newChain()));

  it("answers true or false per zipped pair: does the id's output pay that address", async () => {
    const answer = await validate(chain, [ID_A, ID_B, ID_C], [ALICE, BOB, BOB]);
    expect([answer.status, answer.headers["content-type"]]).toEqual([200, "application/json"]);
    expect(JSON.parse(answer.text)).toEqual({ [ID_A]: true, [ID_B]: false, [ID_C]: true });
  });

  it("drops the extra ids (or extra addresses) of unequal lists", async () => {
    expect(JSON.parse((await validate(chain, [ID_A, ID_B, ID_C], [ALICE, ALICE])).text)).toEqual({ [ID_A]: true, [ID_B]: true });
    expect(JSON.parse((await validate(chain, [ID_C], [BOB, ALICE, ALICE])).text)).toEqual({ [ID_C]: true });
    // An extra id is never read, so even a malformed or unknown one does not fail the batch.
    expect(JSON.parse((await validate(chain, [ID_A, "junk", UNKNOWN], [ALICE])).text)).toEqual({ [ID_A]: true });
  });

  it("answers {} without addresses, and 400 without inscription_ids", async () => {
    expect(JSON.parse((await validate(chain, [ID_A, "junk"])).text)).toEqual({});
    const missing = await request(chain, `/inscriptions/validate?addresses=${ALICE}`);
    expect([missing.status, missing.text]).toEqual([400, "Failed to deserialize query string: missing field `inscription_ids`"]);
  });

  it("fails the whole batch with 404 for one unknown id and 400 for one malformed id", async () => {
    const unknown = await validate(chain, [ID_A, UNKNOWN, ID_B], [ALICE, ALICE, ALICE]);
    expect([unknown.status, unknown.headers["content-type"], unknown.text]).toEqual([
      404,
      "text/plain; charset=utf-8",
      `inscription ${UNKNOWN} not found`,
    ]);
    const malformed = await validate(chain, [ID_A, "xyz"], [ALICE, ALICE]);
    expect([malformed.status, malformed.text]).toEqual([400, "invalid length: 3"]);
  });

  it("answers false for an address that does not parse, and for an output with no address", async () => {
    const chainWithMoves = await newChain();
    chainWithMoves.moveToScript(ID_C, "p2pk");
    const answer = await validate(chainWithMoves, [ID_A, ID_C], ["not-an-address", BOB]);
    expect(JSON.parse(answer.text)).toEqual({ [ID_A]: false, [ID_C]: false });
  });

  it("refuses a URI over 65,534 bytes with hyper's bodiless 414, and answers one of exactly 65,534", async () => {
    const base = `/inscriptions/validate?inscription_ids=${ID_A}&addresses=${ALICE}&pad=`;
    const exact = await request(chain, base + "x".repeat(65_534 - base.length));
    expect(exact.status).toBe(200);
    expect(JSON.parse(exact.text)).toEqual({ [ID_A]: true });
    const over = await request(chain, base + "x".repeat(65_535 - base.length));
    expect([over.status, over.body.length, over.headers.connection]).toEqual([414, 0, "close"]);
  });

  it("is a 400 on a server from before the validate route (it falls to /inscriptions/{from: u64})", async () => {
    const old = await newChain({ validateRoute: false });
    const answer = await validate(old, [ID_A], [ALICE]);
    expect([answer.status, answer.text]).toEqual([400, 'Invalid URL: Cannot parse `"validate"` to a `u64`']);
    expect((await request(old, `/inscription/${ID_A}?json=true`)).status).toBe(200);
  });
});

describe("GET /content/{id}", () => {
  const catalogue = demoCatalogue();
  const sample = [...catalogue.slice(0, 20), ...catalogue.slice(-20)];
  let chain: SimulatedChain;
  beforeAll(async () => {
    chain = await startSimulatedChain({ owners: demoOwners(catalogue, ALICE, 12) });
    chains.push(chain);
  });

  it("answers a real PNG with its content type and the real cache headers, never compressed", async () => {
    const answer = await request(chain, `/content/${sample[0].inscriptionId}`, { headers: { "accept-encoding": "gzip, br" } });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("image/png");
    expect(answer.headers["cache-control"]).toBe("max-age=31536000, immutable");
    expect(answer.headers["content-encoding"]).toBeUndefined();
    const image = decodePng(answer.body);
    expect([image.width, image.height]).toEqual([128, 128]);
  });

  it("gives every demo item its own picture (palette and pixels), the same on every request", async () => {
    const images = await Promise.all(sample.map((item) => request(chain, `/content/${item.inscriptionId}`)));
    const palettes = new Set(images.map((answer) => decodePng(answer.body).palette.toString("hex")));
    const pixels = new Set(images.map((answer) => decodePng(answer.body).pixels.toString("hex")));
    expect(palettes.size).toBe(sample.length);
    expect(pixels.size).toBeGreaterThan(sample.length / 2);
    const again = await request(chain, `/content/${sample[0].inscriptionId}`);
    expect(again.body).toEqual(images[0].body);
    expect(chain.contentOf(sample[0].inscriptionId)?.body).toEqual(images[0].body);
  });

  it("answers 404 for an unknown id and 400 for a malformed one", async () => {
    const unknown = await request(chain, `/content/${UNKNOWN}`);
    expect([unknown.status, unknown.text]).toEqual([404, `inscription ${UNKNOWN} not found`]);
    expect((await request(chain, "/content/nope")).status).toBe(400);
  });

  it("pads the content to contentBytes, still a valid PNG, and inlines it at about 3.6 characters a byte", async () => {
    const padded = await newChain({ contentBytes: 20_000 });
    for (const id of [ID_A, ID_B]) {
      const content = await request(padded, `/content/${id}`);
      expect(content.body.length).toBe(20_000);
      decodePng(content.body);
      const json = await request(padded, `/inscription/${id}?json=true`);
      expect(Buffer.from(JSON.parse(json.text).inscription.body)).toEqual(content.body);
      expect(json.body.length / 20_000).toBeGreaterThan(3.3);
      expect(json.body.length / 20_000).toBeLessThan(3.9);
    }
  });
});

describe("compression", () => {
  let chain: SimulatedChain;
  beforeAll(async () => (chain = await newChain({ contentBytes: 20_000 })));
  const path = `/inscription/${ID_A}?json=true`;

  it("gzips when Accept-Encoding asks, into the same JSON and far fewer bytes", async () => {
    const plain = await request(chain, path);
    const gzipped = await request(chain, path, { headers: { "accept-encoding": "gzip" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gzipped.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(decode(gzipped)).toBe(plain.text);
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 2);
  });

  it("takes the first encoding with the highest q-value among gzip, br and identity", async () => {
    const encodingFor = async (accept: string) => {
      const answer = await request(chain, path, { headers: { "accept-encoding": accept } });
      expect(JSON.parse(decode(answer)).inscription_id).toBe(ID_A);
      return answer.headers["content-encoding"] ?? "identity";
    };
    expect(await encodingFor("gzip, deflate, br")).toBe("gzip");
    expect(await encodingFor("br, gzip")).toBe("br");
    expect(await encodingFor("gzip;q=0.5, br;q=0.8")).toBe("br");
    expect(await encodingFor("deflate")).toBe("identity");
    expect(await encodingFor("gzip;q=0")).toBe("identity");
  });

  it("compresses error texts too, but never a body under 32 bytes", async () => {
    const small = await request(chain, "/block-count", { headers: { "accept-encoding": "gzip" } });
    expect(small.headers["content-encoding"]).toBeUndefined();
    const error = await request(chain, `/inscription/${UNKNOWN}?json=true`, { headers: { "accept-encoding": "gzip" } });
    expect(error.headers["content-encoding"]).toBe("gzip");
    expect(decode(error)).toBe(`inscription ${UNKNOWN} not found`);
  });

  it("counts the bytes on the wire (after compression) in stats", async () => {
    chain.resetStats();
    const gzipped = await request(chain, path, { headers: { "accept-encoding": "gzip" } });
    const plain = await request(chain, "/block-count");
    expect(chain.stats().bytesSent).toBe(gzipped.body.length + plain.body.length);
  });
});

describe("moves", () => {
  let chain: SimulatedChain;
  beforeAll(async () => (chain = await newChain()));

  it("a transfer moves the owner to a new satpoint, confirmed in a new block", async () => {
    const before = { height: chain.height(), satpoint: chain.satpointOf(ID_A) };
    chain.transfer(ID_A, BOB);
    expect([chain.ownerOf(ID_A), chain.height()]).toEqual([BOB, before.height + 1]);
    const body = await inscription(chain, ID_A);
    expect(body.address).toBe(BOB);
    expect(body.output.script_pubkey).toBe(`76a914${hashOf(BOB)}88ac`);
    expect(body.satpoint).toMatch(SATPOINT);
    expect(body.satpoint).not.toBe(before.satpoint);
    expect(await blockCount(chain)).toBe(before.height + 2);
  });

  it("a transfer to a P2SH address answers that address and a P2SH script", async () => {
    chain.transfer(ID_B, P2SH);
    const body = await inscription(chain, ID_B);
    expect(body.address).toBe(P2SH);
    expect(chainAddressKind(body.address, "mainnet")).toBe("p2sh");
    expect(body.output.script_pubkey).toBe(`a914${hashOf(P2SH)}87`);
    expect(JSON.parse((await validate(chain, [ID_B], [P2SH])).text)).toEqual({ [ID_B]: true });
  });

  it("a move to P2PK, bare multisig or a nonstandard script answers a null address and that script", async () => {
    const scripts = {
      p2pk: /^21(02|03)[0-9a-f]{64}ac$/,
      multisig: /^5121(02|03)[0-9a-f]{64}21(02|03)[0-9a-f]{64}52ae$/,
      nonstandard: /^aa20[0-9a-f]{64}87$/,
    };
    for (const [script, pattern] of Object.entries(scripts)) {
      const height = chain.height();
      chain.moveToScript(ID_C, script as keyof typeof scripts);
      expect([chain.ownerOf(ID_C), chain.height()]).toEqual([null, height + 1]);
      const body = await inscription(chain, ID_C);
      expect(body.address).toBeNull();
      expect(body.output.script_pubkey).toMatch(pattern);
      expect(body.satpoint).toBe(chain.satpointOf(ID_C));
    }
    chain.transfer(ID_C, BOB);
    expect((await inscription(chain, ID_C)).address).toBe(BOB);
  });

  it("a transfer to a witness program answers its bech32 address (bc1…) and a witness script, as wonky-ord names it", async () => {
    expect(WITNESS_V0).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);
    expect(WITNESS_V1).toMatch(/^bc1p[02-9ac-hj-np-z]{58}$/);
    for (const [address, script] of [
      [WITNESS_V0, `0014${bytesToHex(hash160(new TextEncoder().encode("a witness key")))}`],
      [WITNESS_V1, `5120${bytesToHex(sha256(new TextEncoder().encode("a taproot key")))}`],
    ]) {
      chain.transfer(ID_B, address);
      const body = await inscription(chain, ID_B);
      expect([body.address, body.output.script_pubkey]).toEqual([address, script]);
      expect(chainAddressKind(body.address, "mainnet")).toBe("witness");
      expect(JSON.parse((await validate(chain, [ID_B], [address])).text)).toEqual({ [ID_B]: true });
    }
    chain.transfer(ID_B, ALICE);
  });

  it("moveWithinOwner gives a new satpoint in a new block at the same address", async () => {
    const before = await inscription(chain, ID_A);
    chain.moveWithinOwner(ID_A);
    const after = await inscription(chain, ID_A);
    expect(after.address).toBe(before.address);
    expect(after.output).toEqual(before.output);
    expect(after.satpoint).not.toBe(before.satpoint);
    expect(await blockCount(chain)).toBe(chain.height() + 1);
  });

  it("refuses an unknown inscription, another network's address, or no address at all", () => {
    const height = chain.height();
    expect(() => chain.transfer(UNKNOWN, BOB)).toThrow(/unknown inscription/);
    expect(() => chain.transfer(ID_A, TESTNET_ALICE)).toThrow(/not a Dogecoin address on mainnet/);
    expect(() => chain.transfer(ID_A, "not-an-address")).toThrow(/not a Dogecoin address/);
    expect(() => chain.moveToScript(ID_A, "p2pkh" as never)).toThrow(/not an address-less script/);
    expect(chain.height()).toBe(height);
    expect(chain.ownerOf(UNKNOWN)).toBeUndefined();
  });

  it("mine() adds blocks and returns the new height", () => {
    const height = chain.height();
    expect(chain.mine()).toBe(height + 1);
    expect(chain.mine(5)).toBe(height + 6);
    expect(() => chain.mine(0)).toThrow(RangeError);
  });

  it("on regtest and signet answers ord's test prefixes (0x71 n…, 0xc4 2…, bcrt1/tb1), and Dogecoin Core's regtest 0x6f reads false", async () => {
    const hash = hash160(new TextEncoder().encode("regtest key"));
    const ordP2pkh = encodeChainAddress(hash, "p2pkh", "regtest");
    expect(ordP2pkh).toMatch(/^n/);
    expect(ordP2pkh).toBe(encodeChainAddress(hash, "p2pkh", "testnet"));
    const coreP2pkh = base58check.encode(Uint8Array.from([0x6f, ...hash])); // what dogecoind -regtest prints
    for (const chainName of ["regtest", "signet"] as const) {
      const test = await startSimulatedChain({ owners: new Map([[ID_A, ordP2pkh]]), chain: chainName });
      chains.push(test);
      const body = await inscription(test, ID_A);
      expect([body.chain, body.address, body.output.script_pubkey]).toEqual([chainName, ordP2pkh, `76a914${bytesToHex(hash)}88ac`]);
      expect(JSON.parse((await validate(test, [ID_A], [ordP2pkh])).text)).toEqual({ [ID_A]: true });
      expect(JSON.parse((await validate(test, [ID_A], [coreP2pkh])).text)).toEqual({ [ID_A]: false });
      expect(() => test.transfer(ID_A, coreP2pkh)).toThrow(/not a Dogecoin address on/);
      test.transfer(ID_A, encodeChainAddress(hash, "p2sh", chainName));
      expect((await inscription(test, ID_A)).address).toMatch(/^2/);
      const witness = encodeWitnessAddress({ version: 0, program: hash }, chainName);
      expect(witness).toMatch(chainName === "regtest" ? /^bcrt1q/ : /^tb1q/);
      test.transfer(ID_A, witness);
      expect((await inscription(test, ID_A)).address).toBe(witness);
    }
  });

  it("answers the configured chain, with that chain's addresses", async () => {
    const testnet = await startSimulatedChain({ owners: new Map([[ID_A, TESTNET_ALICE]]), chain: "testnet" });
    chains.push(testnet);
    expect(testnet.chain).toBe("testnet");
    const body = await inscription(testnet, ID_A);
    expect([body.chain, body.address]).toEqual(["testnet", TESTNET_ALICE]);
    expect(() => testnet.transfer(ID_A, ALICE)).toThrow(/not a Dogecoin address on testnet/);
    await expect(startSimulatedChain({ owners: new Map([[ID_A, TESTNET_ALICE]]) })).rejects.toThrow(/not a Dogecoin address on mainnet/);
  });
});

describe("rollbacks (a reorg: the server restores a savepoint, then re-indexes to the tip)", () => {
  let chain: SimulatedChain;
  afterEach(() => chain.endRollback());

  it("drops the block count by the depth, and every answer reads the state of that many blocks ago", async () => {
    chain = await newChain();
    const old = await inscription(chain, ID_A);
    chain.transfer(ID_A, BOB);
    chain.mine(2);
    const tip = chain.height();
    chain.beginRollback(3);
    expect(chain.blockCount()).toBe(tip - 3 + 1);
    expect(await blockCount(chain)).toBe(tip - 3 + 1);
    expect(chain.height()).toBe(tip);
    const during = await inscription(chain, ID_A);
    expect([during.address, during.satpoint]).toEqual([ALICE, old.satpoint]);
    expect(JSON.parse((await validate(chain, [ID_A], [ALICE])).text)).toEqual({ [ID_A]: true });
    expect(chain.ownerOf(ID_A)).toBe(BOB);
  });

  it("keeps moves and blocks made during the rollback invisible, then jumps forward to the true state at once", async () => {
    chain = await newChain();
    chain.mine(5);
    const tip = chain.height();
    chain.beginRollback(4);
    chain.transfer(ID_B, CAROL);
    chain.mine(3);
    expect(await blockCount(chain)).toBe(tip - 4 + 1);
    expect((await inscription(chain, ID_B)).address).toBe(ALICE);
    expect(JSON.parse((await validate(chain, [ID_B], [CAROL])).text)).toEqual({ [ID_B]: false });
    chain.endRollback();
    expect(await blockCount(chain)).toBe(tip + 4 + 1);
    expect((await inscription(chain, ID_B)).address).toBe(CAROL);
    expect(JSON.parse((await validate(chain, [ID_B], [CAROL])).text)).toEqual({ [ID_B]: true });
  });

  it("afterRequests starts (or ends) the rollback after that many more inscription or validate answers", async () => {
    chain = await newChain();
    chain.transfer(ID_A, BOB);
    const tip = chain.height();
    chain.beginRollback(1, { afterRequests: 2 });
    expect((await inscription(chain, ID_A)).address).toBe(BOB);
    expect(await blockCount(chain)).toBe(tip + 1); // /block-count does not count
    expect(JSON.parse((await validate(chain, [ID_A], [BOB])).text)).toEqual({ [ID_A]: true });
    expect((await inscription(chain, ID_A)).address).toBe(ALICE);
    expect(await blockCount(chain)).toBe(tip);
    chain.endRollback({ afterRequests: 1 });
    expect((await inscription(chain, ID_A)).address).toBe(ALICE);
    expect((await inscription(chain, ID_A)).address).toBe(BOB);
    expect(await blockCount(chain)).toBe(tip + 1);
  });

  it("a rollback below an item's genesis makes it unknown, as an unindexed inscription is", async () => {
    chain = await newChain();
    const genesis = (await inscription(chain, ID_A)).genesis_height;
    chain.beginRollback(chain.height() - genesis + 1);
    const answer = await request(chain, `/inscription/${ID_A}?json=true`);
    expect([answer.status, answer.text]).toEqual([404, `inscription ${ID_A} not found`]);
    expect((await validate(chain, [ID_A], [ALICE])).status).toBe(404);
    expect((await request(chain, `/content/${ID_A}`)).status).toBe(404);
  });

  it("refuses a depth that is not a positive integer", async () => {
    chain = await newChain();
    expect(() => chain.beginRollback(0)).toThrow(RangeError);
    expect(() => chain.beginRollback(1.5)).toThrow(RangeError);
  });
});

describe("an unrecoverable reorg", () => {
  it("freezes /block-count and every answer as they were, even after the rollback ends", async () => {
    const chain = await newChain();
    chain.mine(2);
    chain.beginRollback(2);
    chain.markUnrecoverable();
    const frozen = chain.blockCount();
    chain.endRollback();
    chain.transfer(ID_A, BOB);
    chain.mine(10);
    expect(await blockCount(chain)).toBe(frozen);
    expect(chain.blockCount()).toBe(frozen);
    expect((await inscription(chain, ID_A)).address).toBe(ALICE);
    expect(JSON.parse((await validate(chain, [ID_A], [BOB])).text)).toEqual({ [ID_A]: false });
    expect((await request(chain, "/status")).text).toBe("unrecoverable reorg detected, please rebuild the database.");
    expect(chain.ownerOf(ID_A)).toBe(BOB);
  });
});

describe("a server from before reorg recovery (2024-08-28)", () => {
  it("stops at any reorg for good and says so with the old text", async () => {
    const chain = await newChain({ reorgRecovery: false });
    chain.mine(2);
    const count = chain.blockCount();
    expect((await request(chain, "/status")).text).toBe("OK");
    chain.beginRollback(1);
    expect((await request(chain, "/status")).text).toBe("reorg detected, please rebuild the database.");
    chain.endRollback();
    chain.transfer(ID_A, BOB);
    expect(await blockCount(chain)).toBe(count);
    expect((await inscription(chain, ID_A)).address).toBe(ALICE);
    const other = await newChain({ reorgRecovery: false });
    other.reorg({ depth: 1, undo: [] });
    expect((await request(other, "/status")).text).toBe("reorg detected, please rebuild the database.");
  });
});

describe("a reorg that undoes moves (the node switches to a longer branch)", () => {
  it("the undone move never happened: the item is back at its old satpoint, in a branch one block longer", async () => {
    const chain = await newChain();
    const before = await inscription(chain, ID_A);
    chain.transfer(ID_A, BOB);
    chain.transfer(ID_B, CAROL);
    const tip = chain.height();
    expect(chain.reorg({ depth: 2, undo: [ID_A] })).toBe(tip + 1);
    expect(await blockCount(chain)).toBe(tip + 2);
    const after = await inscription(chain, ID_A);
    expect([after.address, after.satpoint]).toEqual([ALICE, before.satpoint]);
    expect((await inscription(chain, ID_B)).address).toBe(CAROL); // in the new branch too
    expect(() => chain.reorg({ depth: 1, undo: [ID_C] })).toThrow(/did not move in the last 1 blocks/);
  });

  it("lived as the real server does: savepoint restored (lower count), the new branch, then the re-index commits", async () => {
    const chain = await newChain();
    chain.transfer(ID_A, BOB);
    const moved = await inscription(chain, ID_A);
    chain.mine(3);
    const count = chain.blockCount();
    chain.beginRollback(45);
    chain.reorg({ depth: 4, undo: [ID_A] });
    expect(await blockCount(chain)).toBe(count - 45);
    chain.endRollback();
    expect(await blockCount(chain)).toBe(count + 1);
    expect((await inscription(chain, ID_A)).address).toBe(ALICE);
    chain.reconfirm(ID_A);
    const again = await inscription(chain, ID_A);
    expect([again.address, again.satpoint]).toEqual([BOB, moved.satpoint]);
    expect(await blockCount(chain)).toBe(count + 2);
    expect(() => chain.reconfirm(ID_A)).toThrow(/no move/);
  });

  it("POST /control/reorg and /control/reconfirm drive it", async () => {
    const chain = await newChain();
    chain.transfer(ID_A, BOB);
    const reorged = await control(chain, "reorg", { depth: 1, undo: [ID_A], longerBy: 2 });
    expect(JSON.parse(reorged.text)).toEqual({ height: chain.height(), blockCount: chain.height() + 1 });
    expect(chain.ownerOf(ID_A)).toBe(ALICE);
    expect((await control(chain, "reorg", { depth: 0, undo: [] })).status).toBe(400);
    expect((await control(chain, "reorg", { depth: 1, undo: [UNKNOWN] })).status).toBe(404);
    expect(JSON.parse((await control(chain, "reconfirm", { inscriptionId: ID_A })).text)).toMatchObject({ address: BOB });
  });
});

describe("a slow node", () => {
  it("each validated id costs one node call and its latency; a read costs one", async () => {
    const chain = await newChain();
    chain.setNodeLatency(40);
    chain.resetStats();
    let started = performance.now();
    expect((await validate(chain, [ID_A, ID_B, ID_C], [ALICE, ALICE, BOB])).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * 40 - 5);
    expect(chain.stats().nodeCalls).toBe(3);
    started = performance.now();
    await inscription(chain, ID_A);
    expect(performance.now() - started).toBeGreaterThanOrEqual(40 - 5);
    expect(chain.stats().nodeCalls).toBe(4);
    const unknown = await validate(chain, [ID_A, UNKNOWN, ID_B], [ALICE, ALICE, ALICE]);
    expect(unknown.status).toBe(404);
    expect(chain.stats().nodeCalls).toBe(5); // the server stops at the unknown id
    expect((await control(chain, "node-latency", { ms: 150 })).status).toBe(200);
    started = performance.now();
    await validate(chain, [ID_A], [ALICE]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(150 - 5);
    expect((await control(chain, "node-latency", { ms: -1 })).status).toBe(400);
  });
});

describe("faults", () => {
  let chain: SimulatedChain;
  beforeAll(async () => (chain = await newChain()));
  afterEach(() => chain.clearFaults());
  const path = `/inscription/${ID_A}?json=true`;

  it("not-found answers the real transient 404 of an existing inscription, once", async () => {
    chain.failNext("not-found");
    const answer = await request(chain, path);
    expect([answer.status, answer.headers["content-type"], answer.text]).toEqual([
      404,
      "text/plain; charset=utf-8",
      `inscription ${ID_A} current transaction not found`,
    ]);
    expect((await request(chain, path)).status).toBe(200);
  });

  it("each kind of 404: output not found, delegate not found, a proxy's text, and axum's empty one", async () => {
    const kinds = [
      ["output-not-found", `inscription ${ID_A} current transaction output not found`],
      ["delegate-not-found", `delegate ${ID_A} not found`],
      ["proxy-not-found", "404 page not found"],
      ["no-route", ""],
    ] as const;
    for (const [mode, text] of kinds) {
      chain.failNext(mode);
      const answer = await request(chain, path);
      expect([answer.status, answer.text]).toEqual([404, text]);
    }
    chain.failNext("output-not-found", { route: "validate", inscriptionId: ID_B });
    expect((await validate(chain, [ID_A, ID_B], [ALICE, ALICE])).text).toBe(`inscription ${ID_B} current transaction output not found`);
    chain.failNext("no-route", { route: "validate" });
    expect((await validate(chain, [ID_A], [ALICE])).text).toBe("");
    expect(() => chain.failNext("delegate-not-found", { route: "validate" })).toThrow(/inscription route only/);
    expect((await request(chain, path)).status).toBe(200);
  });

  it("server-error answers the real plain-text 500", async () => {
    chain.failNext("server-error", { times: 2 });
    for (let i = 0; i < 2; i++) {
      const answer = await request(chain, path);
      expect([answer.status, answer.headers["content-type"], answer.text]).toEqual([
        500,
        "text/plain; charset=utf-8",
        "Internal Server Error",
      ]);
    }
    expect((await request(chain, path)).status).toBe(200);
  });

  it("other-chain answers another chain than the server's, the rest unchanged", async () => {
    const honest = await inscription(chain, ID_A);
    chain.failNext("other-chain");
    const body = await inscription(chain, ID_A);
    expect(body.chain).toBe("testnet");
    expect({ ...body, chain: "mainnet" }).toEqual(honest);
    expect(Object.keys(body)).toEqual(FIELDS);
  });

  it("other-network-address answers the owner's key as another network's P2PKH address", async () => {
    chain.failNext("other-network-address");
    const body = await inscription(chain, ID_A);
    expect(chainAddressKind(body.address, "testnet")).toBe("p2pkh");
    expect(chainAddressKind(body.address, "mainnet")).toBeNull();
    expect(hashOf(body.address)).toBe(hashOf(ALICE));
  });

  it("html, garbage, invalid address, bad satpoint and wrong id answers look as a broken server's would", async () => {
    chain.failNext("html");
    const html = await request(chain, path);
    expect([html.status, html.headers["content-type"]]).toEqual([200, "text/html; charset=utf-8"]);
    chain.failNext("garbage");
    const garbage = (await request(chain, path)).text;
    expect(() => JSON.parse(garbage)).toThrow();
    chain.failNext("invalid-address");
    expect(isDogecoinAddress((await inscription(chain, ID_A)).address)).toBe(false);
    chain.failNext("bad-satpoint");
    expect((await inscription(chain, ID_A)).satpoint).toBe("not-a-satpoint");
    chain.failNext("wrong-id");
    expect((await inscription(chain, ID_A)).inscription_id).not.toBe(ID_A);
    expect((await inscription(chain, ID_A)).inscription_id).toBe(ID_A);
  });

  it("a fault can target one inscription", async () => {
    chain.failNext("not-found", { inscriptionId: ID_B });
    expect((await request(chain, path)).status).toBe(200);
    expect((await request(chain, `/inscription/${ID_B}?json=true`)).status).toBe(404);
    expect((await request(chain, `/inscription/${ID_B}?json=true`)).status).toBe(200);
  });

  it("on the validate route a fault takes the whole batch (or the batch holding the targeted id)", async () => {
    chain.failNext("server-error", { route: "validate" });
    expect((await validate(chain, [ID_A, ID_B], [ALICE, ALICE])).status).toBe(500);
    chain.failNext("not-found", { route: "validate", inscriptionId: ID_B });
    expect((await validate(chain, [ID_A], [ALICE])).status).toBe(200);
    const missing = await validate(chain, [ID_A, ID_B], [ALICE, ALICE]);
    expect([missing.status, missing.text]).toEqual([404, `inscription ${ID_B} current transaction not found`]);
    chain.failNext("wrong-id", { route: "validate" });
    const wrong = JSON.parse((await validate(chain, [ID_A, ID_B], [ALICE, ALICE])).text);
    expect(Object.keys(wrong)).not.toContain(ID_A);
    expect(Object.keys(wrong)).toContain(ID_B);
    expect((await request(chain, path)).status).toBe(200);
  });

  it("faults on /block-count and /status", async () => {
    chain.failNext("garbage", { route: "block-count" });
    expect((await request(chain, "/block-count")).text).toBe("tip: soon");
    expect(await blockCount(chain)).toBe(chain.height() + 1);
    chain.failNext("server-error", { route: "status" });
    expect((await request(chain, "/status")).status).toBe(500);
    chain.failNext("not-found", { route: "status" });
    expect((await request(chain, "/status")).status).toBe(404);
    expect((await request(chain, "/status")).text).toBe("OK");
  });

  it("timeout never answers and reset drops the connection", async () => {
    chain.failNext("timeout");
    await expect(fetch(`${chain.url}${path}`, { signal: AbortSignal.timeout(150) })).rejects.toThrow();
    chain.failNext("reset");
    await expect(request(chain, path)).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await request(chain, path)).status).toBe(200);
  });
});

describe("control routes", () => {
  let chain: SimulatedChain;
  beforeAll(async () => (chain = await newChain()));

  it("POST /control/transfer moves an item to an address or to an address-less script", async () => {
    const moved = await control(chain, "transfer", { inscriptionId: ID_B, to: BOB });
    expect(moved.status).toBe(200);
    expect(JSON.parse(moved.text)).toEqual({ inscriptionId: ID_B, address: BOB, satpoint: chain.satpointOf(ID_B), height: chain.height() });
    const script = await control(chain, "transfer", { inscriptionId: ID_B, script: "multisig" });
    expect(JSON.parse(script.text)).toMatchObject({ inscriptionId: ID_B, address: null });
    expect(chain.ownerOf(ID_B)).toBeNull();
  });

  it("POST /control/transfer refuses a bad body, a bad address or script (400) and an unknown item (404)", async () => {
    const height = chain.height();
    expect((await control(chain, "transfer", { inscriptionId: ID_A })).status).toBe(400);
    expect((await control(chain, "transfer", { inscriptionId: ID_A, to: BOB, script: "p2pk" })).status).toBe(400);
    expect((await control(chain, "transfer", { inscriptionId: ID_A, script: "p2wpkh" })).status).toBe(400);
    const badAddress = await control(chain, "transfer", { inscriptionId: ID_A, to: "Dnope" });
    expect([badAddress.status, JSON.parse(badAddress.text).message]).toEqual([400, expect.stringMatching(/not a Dogecoin address/)]);
    expect((await control(chain, "transfer", { inscriptionId: UNKNOWN, to: BOB })).status).toBe(404);
    expect((await request(chain, "/control/transfer", { method: "POST", body: "{oops" })).status).toBe(400);
    expect(chain.height()).toBe(height);
  });

  it("POST /control/mine and /control/move-within-owner add blocks", async () => {
    const height = chain.height();
    expect(JSON.parse((await control(chain, "mine", { blocks: 3 })).text)).toEqual({ height: height + 3 });
    expect((await control(chain, "mine", { blocks: -1 })).status).toBe(400);
    const satpoint = chain.satpointOf(ID_A);
    const moved = JSON.parse((await control(chain, "move-within-owner", { inscriptionId: ID_A })).text);
    expect(moved).toMatchObject({ inscriptionId: ID_A, address: ALICE, height: height + 4 });
    expect(moved.satpoint).not.toBe(satpoint);
  });

  it("POST /control/fail injects a fault into the next answer only", async () => {
    expect((await control(chain, "fail", { mode: "other-chain" })).status).toBe(200);
    expect((await inscription(chain, ID_A)).chain).toBe("testnet");
    expect((await inscription(chain, ID_A)).chain).toBe("mainnet");
    expect((await control(chain, "fail", { mode: "server-error", route: "validate" })).status).toBe(200);
    expect((await validate(chain, [ID_A], [ALICE])).status).toBe(500);
    expect((await control(chain, "fail", { mode: "meteor" })).status).toBe(400);
  });

  it("POST /control/rollback, /control/rollback/end and /control/unrecoverable drive a reorg", async () => {
    const count = chain.blockCount();
    expect(JSON.parse((await control(chain, "rollback", { depth: 2 })).text)).toEqual({ blockCount: count - 2 });
    expect(await blockCount(chain)).toBe(count - 2);
    expect((await control(chain, "rollback", { depth: 0 })).status).toBe(400);
    expect(JSON.parse((await control(chain, "rollback/end")).text)).toEqual({ blockCount: count });
    expect((await control(chain, "unrecoverable")).status).toBe(200);
    expect((await request(chain, "/status")).text).toMatch(/^unrecoverable reorg detected/);
  });

  it("answers unknown control routes 404", async () => {
    expect((await control(chain, "launch")).status).toBe(404);
  });
});

describe("stats", () => {
  it("counts requests by route, the most in flight at once, and resets", async () => {
    const chain = await newChain();
    chain.setLatency(50);
    await Promise.all([
      request(chain, "/block-count"),
      request(chain, "/status"),
      request(chain, `/inscription/${ID_A}?json=true`),
      validate(chain, [ID_A], [ALICE]),
    ]);
    await request(chain, `/content/${ID_A}`);
    const stats = chain.stats();
    expect(stats.requests).toBe(5);
    expect(stats.maxInFlight).toBe(4);
    expect(stats.byRoute).toEqual({ "block-count": 1, status: 1, inscription: 1, validate: 1, content: 1 });
    expect(stats.bytesSent).toBeGreaterThan(0);
    expect(stats.nodeCalls).toBe(2); // the read and the one validated id
    chain.resetStats();
    expect(chain.stats()).toEqual({ requests: 0, maxInFlight: 0, bytesSent: 0, nodeCalls: 0, byRoute: {} });
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
