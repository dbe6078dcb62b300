/** Data for CLI tests, written through the same services the app uses. */
import { randomBytes } from "node:crypto";
import { addressFromPublicKey } from "../../app/domain/address.ts";
import { setClock } from "../../app/domain/clock.ts";
import type { Sql } from "../../db/client.server.ts";
import { demoCatalogue } from "../../db/demo-catalogue.ts";
import { importCatalogue, itemsByInscriptionIds } from "../../db/queries/catalogue.server.ts";
import { applyMove } from "../../db/queries/ownership.server.ts";
import { stakeItems } from "../../db/queries/stakes.server.ts";

/** A valid mainnet address nobody holds the key of. */
export function randomAddress(): string {
  return addressFromPublicKey(new Uint8Array(randomBytes(33)));
}

const SATPOINT = `${"ab".repeat(32)}:0:0`;

/** Imports `count` demo Spooks, makes `owner` their owner and stakes them at `stakedAt`. */
export async function stakeDemoItems(sql: Sql, owner: string, count: number, stakedAt: Date) {
  const items = demoCatalogue().slice(0, count);
  await importCatalogue(sql, items);
  const rows = await itemsByInscriptionIds(
    sql,
    items.map((item) => item.inscriptionId),
  );
  for (const row of rows) {
    await applyMove(sql, { itemId: row.id, address: owner, kind: "p2pkh", satpoint: SATPOINT, blockHeight: 1, at: stakedAt });
  }
  const restore = setClock(() => stakedAt);
  try {
    await stakeItems(sql, owner, rows);
  } finally {
    restore();
  }
  return rows;
}
