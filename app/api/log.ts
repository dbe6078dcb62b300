/**
 * The public log's JSON side (docs/transparency.md): what the log is (its key, witnesses, size), and proofs
 * made from its tiles. The log itself is served per C2SP tlog-tiles under /log/ (checkpoint, tiles, entry
 * bundles, the verifier key): plain files any mirror can serve, outside this contract.
 */
import { z } from "zod";
import { defineRoute, errorAnswer, type ClientAnswer } from "./kit.ts";

const TAG = "Public log";

const base64Hash = z.string().meta({ description: "A SHA-256 hash, base64.", examples: ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="] });

const count = (what: string) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})$/, `${what} must be a whole number`)
    .transform(Number)
    .refine(Number.isSafeInteger, `${what} is too large`)
    .meta({ description: `${what[0].toUpperCase()}${what.slice(1)}: a whole number.`, examples: ["12"] });

export const logInfo = defineRoute({
  operationId: "getLogInfo",
  method: "GET",
  path: "/api/log",
  tag: TAG,
  summary: "The public log: its verifier key, its witnesses and its size",
  description:
    "What a client needs to check the log: the verifier key checkpoints are signed with (also at /log/key), the " +
    "witnesses' verifier keys and how many cosignatures a checkpoint needs (LOG_WITNESS_QUORUM), and the sizes of " +
    "the log: entries committed, and entries in the latest signed checkpoint (/log/checkpoint).",
  auth: "none",
  responses: {
    200: {
      description: "The log.",
      schema: z
        .object({
          origin: z.string().nullable().meta({ description: "The log's origin (its key's name); null before the first checkpoint." }),
          verifierKey: z.string().nullable().meta({ description: "The log's verifier key (C2SP signed-note); null before it is known." }),
          witnesses: z.array(z.string()).meta({ description: "The witnesses' verifier keys (cosignature/v1)." }),
          quorum: z.number().int().min(0).meta({ description: "How many witness cosignatures a checkpoint must carry." }),
          entries: z.number().int().min(0).meta({ description: "Entries committed." }),
          checkpointSize: z.number().int().min(0).meta({ description: "Entries in the latest signed checkpoint." }),
        })
        .meta({ id: "LogInfo" }),
      example: {
        origin: "spooks.example/log",
        verifierKey: "spooks.example/log+3a2f61e1+Aa8yAWhS6j1a0pLA1m5E2gqH1a8LJ8p5ZX9Yx0p8oVdQ",
        witnesses: [],
        quorum: 0,
        entries: 1204,
        checkpointSize: 1200,
      },
    },
  },
});

export const logProof = defineRoute({
  operationId: "getLogInclusionProof",
  method: "GET",
  path: "/api/log/proof/{index}",
  tag: TAG,
  summary: "The inclusion proof of an entry in the tree of a size",
  description:
    "RFC 9162 inclusion proof of entry `index` in the tree of `size` entries (default: the latest checkpoint's), made " +
    "from the tiles under /log/ (a client can make it itself). Check it against the root of a signed checkpoint of that size.",
  auth: "none",
  params: z.object({ index: count("index") }),
  query: z.object({ size: count("size").optional() }),
  responses: {
    200: {
      description: "The proof.",
      schema: z
        .object({
          index: z.number().int().min(0),
          size: z.number().int().min(1),
          hashes: z.array(base64Hash).meta({ description: "The inclusion path, leaf side first." }),
        })
        .meta({ id: "LogInclusionProof" }),
      example: { index: 5, size: 12, hashes: ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="] },
    },
    400: errorAnswer(
      "The index or size is not a whole number, the index is not below the size, or the size is beyond the latest checkpoint.",
      "index 12 is not below size 12",
    ),
  },
});

export const logConsistency = defineRoute({
  operationId: "getLogConsistencyProof",
  method: "GET",
  path: "/api/log/consistency",
  tag: TAG,
  summary: "The consistency proof between two sizes of the log",
  description:
    "RFC 9162 consistency proof from the tree of `from` entries to the tree of `to` entries (empty when they are equal " +
    "or `from` is 0), made from the tiles under /log/. It proves the larger tree keeps the smaller one unchanged.",
  auth: "none",
  query: z.object({ from: count("from"), to: count("to") }),
  responses: {
    200: {
      description: "The proof.",
      schema: z.object({ hashes: z.array(base64Hash) }).meta({ id: "LogConsistencyProof" }),
      example: { hashes: ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="] },
    },
    400: errorAnswer(
      "A size is not a whole number, `from` is above `to`, or `to` is beyond the latest checkpoint.",
      "from (12) must not be above to (10)",
    ),
  },
});

/** The largest page of GET /api/balances. */
export const BALANCES_PAGE_MAX = 1000;

export const balances = defineRoute({
  operationId: "listBalances",
  method: "GET",
  path: "/api/balances",
  tag: TAG,
  summary: "Every wallet's balance, a page at a time",
  description:
    "Every wallet's balance as the site keeps it, in units (1 point = 2,400 units), in ascending address order, " +
    "`limit` at a time after the address `after`; `next` is the `after` of the next page (null on the last). What " +
    "`spooks-admin log verify` compares with the balances it recomputes from the public log, in a few requests rather " +
    "than one a wallet. Balances are public already (GET /api/rewards/{address}, and the log itself).",
  auth: "none",
  query: z.object({
    after: z.string().max(200).optional().meta({ description: "Answer the addresses after this one (default: from the first)." }),
    limit: z
      .string()
      .regex(/^[1-9][0-9]{0,3}$/, `limit must be a whole number from 1 to ${BALANCES_PAGE_MAX}`)
      .transform(Number)
      .refine((n) => n <= BALANCES_PAGE_MAX, `limit must be a whole number from 1 to ${BALANCES_PAGE_MAX}`)
      .optional()
      .meta({ description: `How many (1 to ${BALANCES_PAGE_MAX}, default ${BALANCES_PAGE_MAX}).`, examples: ["1000"] }),
  }),
  responses: {
    200: {
      description: "A page of balances.",
      schema: z
        .object({
          balances: z.array(z.object({ address: z.string(), units: z.number().int() })),
          next: z.string().nullable().meta({ description: "The `after` of the next page; null on the last." }),
        })
        .meta({ id: "BalancesPage" }),
      example: { balances: [{ address: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", units: 2400 }], next: null },
    },
    400: errorAnswer("`limit` is not a whole number from 1 to 1000.", "limit must be a whole number from 1 to 1000"),
  },
});

export type LogInfo = ClientAnswer<typeof logInfo>;
