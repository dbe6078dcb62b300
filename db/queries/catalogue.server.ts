import type { CatalogueItem } from "../../app/domain/catalogue.ts";
import type { Queryable, Sql } from "../client.server.ts";
import { recordAudit, type Actor } from "./audit.server.ts";

export type ItemRow = CatalogueItem & { id: number; imageUrl: string | null };

const IMPORT_CHUNK = 500;

/**
 * Inserts or updates (by inscription id) every item in one transaction: all or nothing.
 * `onProgress` is told how many rows are done; `audit` records the import in the same transaction.
 */
export async function importCatalogue(
  sql: Sql,
  items: readonly CatalogueItem[],
  onProgress?: (done: number, total: number) => void,
  audit?: { actor: Actor; source: string },
): Promise<{ inserted: number; updated: number }> {
  return sql.begin(async (tx) => {
    // Unique (collection, rank), (collection, number) and name are checked row by row, so a corrected
    // catalogue that swaps two items' ranks would collide with itself. Park the rows being re-imported on
    // values no real row has (and that satisfy every check) first; the upsert below sets the real ones.
    await tx`
      update items set rank = 1000000000 + id, number = 1000000000 + id, rarity = 'Common', name = 'importing #' || id
      where inscription_id = any(${items.map((item) => item.inscriptionId)})`;
    let inserted = 0;
    for (let start = 0; start < items.length; start += IMPORT_CHUNK) {
      // Exactly the columns to insert: `tx(chunk)` takes them from these keys.
      const chunk = items.slice(start, start + IMPORT_CHUNK).map((item) => ({
        inscriptionId: item.inscriptionId,
        collection: item.collection,
        name: item.name,
        number: item.number,
        rank: item.rank,
        rarity: item.rarity,
      }));
      const rows = await tx<{ inserted: boolean }[]>`
        insert into items ${tx(chunk)}
        on conflict (inscription_id) do update
          set collection = excluded.collection, name = excluded.name, number = excluded.number,
              rank = excluded.rank, rarity = excluded.rarity
        returning (xmax = 0) as inserted`;
      inserted += rows.filter((row) => row.inserted).length;
      onProgress?.(Math.min(start + IMPORT_CHUNK, items.length), items.length);
    }
    const counts = { inserted, updated: items.length - inserted };
    if (audit) await recordAudit(tx, audit.actor, "catalogue.import", audit.source, { rows: items.length, ...counts });
    return counts;
  });
}

/** Every catalogue item's inscription id, sorted (the vote verifier checks the items a vote's power counts against it). */
export async function catalogueInscriptionIds(sql: Queryable): Promise<string[]> {
  const rows = await sql<{ inscriptionId: string }[]>`select inscription_id from items order by inscription_id collate "C"`;
  return rows.map((row) => row.inscriptionId);
}

export async function countItems(sql: Queryable): Promise<number> {
  const [row] = await sql<{ count: number }[]>`select count(*)::int as count from items`;
  return row.count;
}

export async function catalogueStats(
  sql: Queryable,
): Promise<{ collection: string; items: number; legendary: number; epic: number; rare: number; common: number; owned: number }[]> {
  return sql`
    select i.collection,
           count(*)::int as items,
           count(*) filter (where i.rarity = 'Legendary')::int as legendary,
           count(*) filter (where i.rarity = 'Epic')::int as epic,
           count(*) filter (where i.rarity = 'Rare')::int as rare,
           count(*) filter (where i.rarity = 'Common')::int as common,
           count(o.item_id)::int as owned
    from items i left join ownership o on o.item_id = i.id
    group by i.collection order by i.collection`;
}

export async function itemsByInscriptionIds(sql: Queryable, inscriptionIds: readonly string[]): Promise<ItemRow[]> {
  if (inscriptionIds.length === 0) return [];
  return sql<ItemRow[]>`
    select id, inscription_id, collection, name, number, rank, rarity, image_url
    from items where inscription_id = any(${inscriptionIds as string[]})`;
}
