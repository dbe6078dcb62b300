/**
 * wonky-ord's answer shapes and texts, read from its source (verydogelabs/wonky-ord-dogecoin, 2024-10-24:
 * src/subcommand/server.rs, src/templates/inscription.rs, src/inscription_id.rs) and the axum 0.6 /
 * hyper 0.14 / tower-http 0.3 versions it pins.
 */
import type { OrdChain } from "../../app/domain/address.ts";
import type { ItemContent } from "./ghost-image.ts";
import type { Output } from "./outputs.ts";

export const TEXT = "text/plain; charset=utf-8";
export const HTML = "text/html; charset=utf-8";
export const JSON_TYPE = "application/json";
/** hyper refuses longer request targets with 414 before any route runs. */
export const MAX_URI_BYTES = 65_534;
/** hyper's default read buffer: a request head beyond it is refused with 431. */
export const MAX_HEAD_BYTES = 8192 + 4096 * 100;

export const STATUS_OK = "OK";
export const STATUS_UNRECOVERABLE = "unrecoverable reorg detected, please rebuild the database.";
/** What servers before reorg recovery (2024-08-28) answer after ANY reorg, having stopped for good. */
export const STATUS_REORG_LEGACY = "reorg detected, please rebuild the database.";
export const INTERNAL_SERVER_ERROR = "Internal Server Error";
export const notFound = (inscriptionId: string) => `inscription ${inscriptionId} not found`;
/** The 404 of an existing inscription when the server's node lookup (getrawtransaction) fails. */
export const transientNotFound = (inscriptionId: string) => `inscription ${inscriptionId} current transaction not found`;
/** The 404 when the transaction is found but has no output at the satpoint's vout. */
export const outputNotFound = (inscriptionId: string) => `inscription ${inscriptionId} current transaction output not found`;
/** `/inscription/{id}` of an inscription whose delegate is not indexed (the text names the inscription, not the delegate). */
export const delegateNotFound = (inscriptionId: string) => `delegate ${inscriptionId} not found`;
/** A reverse proxy's own 404 (Traefik's and Go's text): a body, but about no inscription and no route of the server. */
export const PROXY_NOT_FOUND = "404 page not found";
/** axum's `Path` rejection (400). */
export const invalidUrl = (message: string) => `Invalid URL: ${message}`;
/** axum's `Query` rejection (400), with serde_urlencoded's message. */
export const badQuery = (message: string) => `Failed to deserialize query string: ${message}`;

export type ParsedId = { ok: true; id: string } | { ok: false; error: string };

function parseIndex(text: string): number | string {
  if (text === "") return "cannot parse integer from empty string";
  if (!/^\+?\d+$/.test(text)) return "invalid digit found in string";
  const value = Number(text);
  return value > 0xffff_ffff ? "number too large to fit in target type" : value;
}

/** `InscriptionId::from_str`: 64 hex digits (either case), `i`, a u32; the id as the server prints it. */
export function parseInscriptionId(text: string): ParsedId {
  const nonAscii = [...text].find((char) => char.charCodeAt(0) > 0x7f);
  if (nonAscii) return { ok: false, error: `invalid character: '${nonAscii}'` };
  if (text.length < 66) return { ok: false, error: `invalid length: ${text.length}` };
  if (text[64] !== "i") return { ok: false, error: `invalid seprator: \`${text[64]}\`` };
  const badHex = [...text.slice(0, 64)].find((char) => !/[0-9a-fA-F]/.test(char));
  if (badHex) return { ok: false, error: `invalid txid: invalid hex character ${badHex.charCodeAt(0)}` };
  const index = parseIndex(text.slice(65));
  if (typeof index === "string") return { ok: false, error: `invalid index: ${index}` };
  return { ok: true, id: `${text.slice(0, 64).toLowerCase()}i${index}` };
}

/** One inscription as the server reads it at some height. */
export type InscriptionView = {
  chain: OrdChain;
  inscriptionId: string;
  number: number;
  genesisHeight: number;
  genesisFee: number;
  previous: string | null;
  next: string | null;
  output: Output;
  value: number;
  satpoint: string;
};

const BODY_MARK = "\u0000body\u0000";
const bulkJsonCache = new WeakMap<Buffer, Buffer>();

function bulkJson(bulk: Buffer): Buffer {
  let json = bulkJsonCache.get(bulk);
  if (!json) bulkJsonCache.set(bulk, (json = Buffer.from(`,${bulk.join(",")}`)));
  return json;
}

/** The `ShibescriptionJson` fields in their declared order. */
function inscriptionFields(view: InscriptionView, contentType: string) {
  return {
    chain: view.chain,
    genesis_fee: view.genesisFee,
    genesis_height: view.genesisHeight,
    inscription: { body: BODY_MARK as unknown, content_type: [...Buffer.from(contentType)], delegate: null },
    inscription_id: view.inscriptionId,
    inscription_number: view.number,
    next: view.next,
    output: { value: view.value, script_pubkey: view.output.scriptHex },
    address: view.output.address,
    previous: view.previous,
    dune: null,
    sat: null,
    satpoint: view.satpoint,
    timestamp: "1970-01-01T00:00:00Z", // `Default::default()` of a chrono DateTime in the JSON answer
  };
}

export type JsonParts = { parts: Buffer[]; shared: Set<Buffer> };

/**
 * `GET /inscription/{id}?json=true` as body parts (joined, they are the JSON text); the content bytes' shared
 * bulk is one part of its own so gzip can reuse it. `overrides` replace fields in place (for faults).
 */
export function inscriptionJson(view: InscriptionView, content: ItemContent, overrides: Record<string, unknown> = {}): JsonParts {
  const text = JSON.stringify({ ...inscriptionFields(view, content.contentType), ...overrides });
  const [before, after] = text.split(JSON.stringify(BODY_MARK));
  const head = Buffer.from(`${before}[${content.head.join(",")}`);
  const tail = Buffer.from(`,${content.tail.join(",")}]${after}`);
  if (content.bulk.length === 0) return { parts: [head, tail], shared: new Set() };
  const bulk = bulkJson(content.bulk);
  return { parts: [head, bulk, tail], shared: new Set([bulk]) };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The inscription page (what the server answers without `json=true`), shortened. */
export function inscriptionHtml(view: InscriptionView, content: ItemContent): string {
  const id = escapeHtml(view.inscriptionId);
  const row = (term: string, value: string) => `  <dt>${term}</dt>\n  <dd>${value}</dd>\n`;
  const size = content.head.length + content.bulk.length + content.tail.length;
  return [
    "<!doctype html>\n<html lang=en>\n  <head>\n    <meta charset=utf-8>\n",
    `    <title>Shibescription ${view.number}</title>\n  </head>\n  <body>\n  <main>\n`,
    `<h1>Shibescription ${view.number}</h1>\n`,
    `<div class=inscription><iframe sandbox=allow-scripts src=/preview/${id}></iframe></div>\n<dl>\n`,
    row("id", id),
    view.output.address ? row("address", escapeHtml(view.output.address)) : "",
    row("output value", String(view.value)),
    row("content", `<a href=/content/${id}>link</a>`),
    row("content length", `${size} bytes`),
    row("content type", escapeHtml(content.contentType)),
    row("timestamp", "<time>1970-01-01 00:00:00 UTC</time>"),
    row("genesis height", String(view.genesisHeight)),
    row("genesis fee", String(view.genesisFee)),
    row("location", escapeHtml(view.satpoint)),
    "</dl>\n  </main>\n  </body>\n</html>\n",
  ].join("");
}

/** What a proxy in front of the server answers when the server is down. */
export function proxyErrorPage(): string {
  return "<!doctype html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>";
}
