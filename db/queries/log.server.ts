/**
 * The public log in the database (migration 0040; docs/transparency.md): entries are written by triggers
 * and sequenced at commit; this module integrates them (leaf hashes, tiles, the tree's right edge and a
 * signed checkpoint, after the commit, as Tessera does), and reads what /log/ and /api/log serve: tiles,
 * entry bundles, checkpoints, proofs, and where a row's entry is.
 */
import { formatCheckpoint, parseCheckpoint } from "../../app/domain/tlog/checkpoint.ts";
import { appendLeaf, frontierRoot, hashLeaf, HASH_SIZE, type Frontier, type Hash } from "../../app/domain/tlog/merkle.ts";
import { signNote, type Signer } from "../../app/domain/tlog/note.ts";
import { encodeBundle, hashesAtLevel, parseTilePath, TILE_HEIGHT, TILE_WIDTH, type TileFetcher } from "../../app/domain/tlog/tiles.ts";
import type { Queryable, Sql, TransactionSql } from "../client.server.ts";

/** Held by the integrator: one at a time, whichever process gets there first. */
const LOG_LOCK_CLASS = 727_340;

/** At most this many entries are integrated per transaction (a backlog takes several). */
const INTEGRATE_BATCH = 250_000;

export type LogSource =
  | "points_ledger"
  | "stakes"
  | "votes"
  | "giveaways"
  | "giveaways.close"
  | "giveaways.draw"
  | "giveaway_claims"
  | "boost_schedules"
  | "audit_log";

export type SignedCheckpoint = { size: number; root: Hash; note: string; cosignatures: string; createdAt: Date };

/** What a batch's entries are rebuilt from (migration 0040, log_batches). */
type BatchShape = {
  id: number;
  firstRow: number;
  skipped: number[] | null;
  template: string[] | null;
  templateIdSlot: number | null;
};
type BatchRow = BatchShape & { firstIndex: number; entryCount: number; bundle: Uint8Array };

const UNIT_SEPARATOR = 0x1f;
const RECORD_SEPARATOR = 0x1e;

/** A batch kept as a template: its pieces (UTF-8) and which value is the row's id. */
type Template = { pieces: Uint8Array[]; idSlot: number | null };

const templateOf = (batch: BatchShape): Template | null =>
  batch.template ? { pieces: batch.template.map((piece) => new TextEncoder().encode(piece)), idSlot: batch.templateIdSlot } : null;

/** The row id of a batch's entry at `position`: its rows in order, first_row on, less those skipped. */
function rowIdAt(batch: Pick<BatchShape, "firstRow" | "skipped">, position: number): number {
  let id = Number(batch.firstRow) + position;
  for (const skipped of (batch.skipped ?? []).map(Number).sort((a, b) => a - b)) {
    if (skipped <= id) id++;
    else break;
  }
  return id;
}

/** An entry rebuilt from its values (joined by U+001F), its row's id and its batch's template. */
function fromTemplate(values: Uint8Array, template: Template, rowId: number, batch: number): Uint8Array {
  const { pieces, idSlot } = template;
  const parts: Uint8Array[] = [pieces[0]];
  let start = 0;
  for (let k = 1; k < pieces.length; k++) {
    if (k === idSlot) {
      parts.push(new TextEncoder().encode(String(rowId)), pieces[k]);
      continue;
    }
    const separator = values.indexOf(UNIT_SEPARATOR, start);
    const last = k === pieces.length - 1 || (k === pieces.length - 2 && idSlot === pieces.length - 1);
    if (last === separator >= 0) throw new Error(`batch ${batch}: an entry's values do not fit its template`);
    const end = last ? values.length : separator;
    parts.push(values.subarray(start, end), pieces[k]);
    start = end + 1;
  }
  const entry = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    entry.set(part, at);
    at += part.length;
  }
  return entry;
}

/**
 * The record at `offset` of a batch's `bytes` (its entry at `position` in the batch): the entry and where the
 * next record starts; null when `bytes` stop before the record does (`complete`: they run to the batch's end).
 */
function recordAt(
  bytes: Uint8Array,
  offset: number,
  batch: Omit<BatchShape, "template"> & { template: Template | null; position: number },
  complete: boolean,
): { entry: Uint8Array; next: number } | null {
  if (!batch.template) {
    if (bytes.length < offset + 2) return null;
    const end = offset + 2 + bytes[offset] * 256 + bytes[offset + 1];
    return bytes.length < end ? null : { entry: bytes.subarray(offset + 2, end), next: end };
  }
  const separator = bytes.indexOf(RECORD_SEPARATOR, offset);
  if (separator < 0 && !complete) return null;
  const end = separator < 0 ? bytes.length : separator;
  const entry = fromTemplate(bytes.subarray(offset, end), batch.template, rowIdAt(batch, batch.position), batch.id);
  return { entry, next: separator < 0 ? end : end + 1 };
}

function splitFrontier(bytes: Uint8Array): Hash[] {
  const hashes: Hash[] = [];
  for (let at = 0; at < bytes.length; at += HASH_SIZE) hashes.push(bytes.slice(at, at + HASH_SIZE));
  return hashes;
}

const joinHashes = (hashes: readonly Hash[]) => {
  const out = new Uint8Array(hashes.length * HASH_SIZE);
  hashes.forEach((hash, i) => out.set(hash, i * HASH_SIZE));
  return out;
};

/** How many entries are sequenced (committed) and how many are integrated (in tiles and checkpoints). */
export async function logSizes(sql: Queryable): Promise<{ sequenced: number; integrated: number }> {
  const [row] = await sql<{ sequenced: number; integrated: number }[]>`
    select (select size from log_head) as sequenced, (select size from log_state) as integrated`;
  return row;
}

/** Each entry of the batches from index `from`, with its batch and byte offset. */
function* framesFrom(batches: readonly BatchRow[], from: number, to: number) {
  for (const batch of batches) {
    const template = templateOf(batch);
    let offset = 0;
    for (let i = 0; i < batch.entryCount; i++) {
      const record = recordAt(batch.bundle, offset, { ...batch, template, position: i }, true);
      if (!record) throw new Error(`batch ${batch.id} ends inside an entry`);
      const index = batch.firstIndex + i;
      if (index >= from && index < to) yield { index, batch: batch.id, offset, entry: record.entry };
      offset = record.next;
    }
  }
}

type TileRow = { level: number; idx: number; hashes: Uint8Array; entryBatch: number | null; entryOffset: number | null };

/** The last tile of each level as it is for a tree of `size` (the partial ones the next leaves extend). */
async function edgeTiles(tx: TransactionSql, size: number): Promise<Map<string, TileRow>> {
  const tiles = new Map<string, TileRow>();
  for (let level = 0; hashesAtLevel(size, level) > 0; level++) {
    const count = hashesAtLevel(size, level);
    if (count % TILE_WIDTH === 0) continue;
    const idx = Math.floor(count / TILE_WIDTH);
    const [row] = await tx<
      TileRow[]
    >`select level, idx, hashes, entry_batch, entry_offset from log_tiles where level = ${level} and idx = ${idx}`;
    if (row) tiles.set(`${level}/${idx}`, { ...row, hashes: row.hashes.slice(0, (count % TILE_WIDTH) * HASH_SIZE) });
  }
  return tiles;
}

/**
 * Integrates the entries sequenced since the last run: leaf hashes into level-0 tiles, each full tile's root
 * into the level above, the right edge kept; then signs a checkpoint of the new size with `signer`. Another
 * process integrating meanwhile makes this one answer at once. Answers the integrated size.
 */
export async function integrate(sql: Sql, signer: Signer | null, at: Date): Promise<{ size: number; signed: boolean }> {
  for (;;) {
    const step = await sql.begin(async (tx) => {
      const [{ locked }] = await tx<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(${LOG_LOCK_CLASS}, 0) as locked`;
      if (!locked) return null;
      const [state] = await tx<{ size: number; frontier: Uint8Array }[]>`select size, frontier from log_state`;
      const [{ size: sequenced }] = await tx<{ size: number }[]>`select size from log_head`;
      const target = Math.min(sequenced, state.size + INTEGRATE_BATCH);
      let frontier: Frontier = { size: state.size, hashes: splitFrontier(state.frontier) };
      if (target > state.size) frontier = await appendEntries(tx, frontier, target);
      const signed = signer ? await signCheckpoint(tx, signer, frontier, at) : false;
      return { size: frontier.size, signed, more: target < sequenced };
    });
    if (!step) return { size: (await logSizes(sql)).integrated, signed: false };
    if (!step.more) return { size: step.size, signed: step.signed };
  }
}

async function appendEntries(tx: TransactionSql, start: Frontier, target: number): Promise<Frontier> {
  const batches = await tx<BatchRow[]>`
    select id, first_row, skipped, first_index, entry_count, template, template_id_slot, bundle from log_batches
    where first_index is not null and first_index < ${target} and first_index + entry_count > ${start.size}
    order by first_index`;
  const tiles = await edgeTiles(tx, start.size);
  const changed = new Set<string>();
  const tileOf = (level: number, idx: number) => {
    const key = `${level}/${idx}`;
    let tile = tiles.get(key);
    if (!tile) tiles.set(key, (tile = { level, idx, hashes: new Uint8Array(0), entryBatch: null, entryOffset: null }));
    changed.add(key);
    return tile;
  };
  const put = (height: number, index: number, hash: Hash) => {
    if (height % TILE_HEIGHT !== 0) return;
    const tile = tileOf(height / TILE_HEIGHT, Math.floor(index / TILE_WIDTH));
    const grown = new Uint8Array(tile.hashes.length + HASH_SIZE);
    grown.set(tile.hashes);
    grown.set(hash, tile.hashes.length);
    tile.hashes = grown;
  };
  let frontier = start;
  for (const frame of framesFrom(batches, start.size, target)) {
    if (frame.index !== frontier.size) throw new Error(`the log has no entry ${frontier.size}`);
    if (frame.index % TILE_WIDTH === 0) {
      const tile = tileOf(0, frame.index / TILE_WIDTH);
      tile.entryBatch = frame.batch;
      tile.entryOffset = frame.offset;
    }
    frontier = appendLeaf(frontier, hashLeaf(frame.entry), put);
  }
  if (frontier.size !== target) throw new Error(`the log has ${frontier.size} entries, not ${target}`);
  const rows = [...changed].map((key) => {
    const tile = tiles.get(key)!;
    return {
      level: tile.level,
      idx: tile.idx,
      hashes: Buffer.from(tile.hashes),
      entryBatch: tile.entryBatch,
      entryOffset: tile.entryOffset,
    };
  });
  for (let at = 0; at < rows.length; at += 1000) {
    await tx`
      insert into log_tiles ${tx(rows.slice(at, at + 1000))}
      on conflict (level, idx) do update set hashes = excluded.hashes,
        entry_batch = coalesce(log_tiles.entry_batch, excluded.entry_batch),
        entry_offset = coalesce(log_tiles.entry_offset, excluded.entry_offset)`;
  }
  await tx`update log_state set size = ${frontier.size}, frontier = ${Buffer.from(joinHashes(frontier.hashes))}`;
  return frontier;
}

/** Signs the checkpoint of the tree `frontier` describes, unless one of that size exists. */
async function signCheckpoint(tx: TransactionSql, signer: Signer, frontier: Frontier, at: Date): Promise<boolean> {
  const root = frontierRoot(frontier);
  const note = signNote(formatCheckpoint({ origin: signer.name, size: frontier.size, root, extensions: [] }), signer);
  const inserted = await tx`
    insert into log_checkpoints (size, root, note, created_at) values (${frontier.size}, ${Buffer.from(root)}, ${note}, ${at})
    on conflict (size) do nothing returning 1`;
  return inserted.length > 0;
}

export async function latestCheckpoint(sql: Queryable): Promise<SignedCheckpoint | null> {
  const [row] = await sql<SignedCheckpoint[]>`
    select size, root, note, cosignatures, created_at from log_checkpoints order by size desc limit 1`;
  return row ?? null;
}

export async function checkpointOfSize(sql: Queryable, size: number): Promise<SignedCheckpoint | null> {
  const [row] = await sql<SignedCheckpoint[]>`select size, root, note, cosignatures, created_at from log_checkpoints where size = ${size}`;
  return row ?? null;
}

/** Adds a witness's cosignature line(s) to the checkpoint of `size` (once each). */
export async function addCosignatures(sql: Queryable, size: number, lines: string): Promise<void> {
  const [row] = await sql<{ cosignatures: string }[]>`select cosignatures from log_checkpoints where size = ${size} for update`;
  if (!row) return;
  const have = new Set(row.cosignatures.split("\n").filter(Boolean));
  const fresh = lines.split("\n").filter((line) => line && !have.has(line));
  if (fresh.length === 0) return;
  await sql`update log_checkpoints set cosignatures = ${row.cosignatures + fresh.map((line) => `${line}\n`).join("")} where size = ${size}`;
}

/** The checkpoint as served: the log's signed note with the witnesses' lines appended. */
export const servedNote = (checkpoint: SignedCheckpoint) => checkpoint.note + checkpoint.cosignatures;

/** The origin of the log the database holds (its first checkpoint's), or null before any. */
export async function logOrigin(sql: Queryable): Promise<string | null> {
  const [row] = await sql<{ note: string }[]>`select note from log_checkpoints order by size limit 1`;
  return row ? parseCheckpoint(row.note.slice(0, row.note.indexOf("\n\n") + 1)).origin : null;
}

/** A log a key rotation ended: its number (served under /log/previous/<n>/), its key and last checkpoint. */
export type PreviousLog = { n: number; origin: string; verifierKey: string; note: string; size: number };

export async function previousLog(sql: Queryable, n: number): Promise<PreviousLog | null> {
  const [row] = await sql<PreviousLog[]>`select n, origin, verifier_key, note, size::int8 as size from log_previous where n = ${n}`;
  return row ? { ...row, size: Number(row.size) } : null;
}

/** The current log's tiles and batches, or those of previous log `n`. */
const tables = (sql: Queryable, previous: number | null) =>
  previous === null
    ? { tiles: sql`log_tiles`, batches: sql`log_batches`, of: sql`true`, integrated: sql`(select size from log_state)` }
    : {
        tiles: sql`log_previous_tiles`,
        batches: sql`log_previous_batches`,
        of: sql`n = ${previous}`,
        integrated: sql`(select size from log_previous where n = ${previous})`,
      };

/** A hash tile's bytes: the first `width` hashes of tile `idx` of `level`, if integrated that far. */
export async function hashTile(
  sql: Queryable,
  level: number,
  idx: number,
  width: number,
  previous: number | null = null,
): Promise<Uint8Array | null> {
  const { tiles, of } = tables(sql, previous);
  const [row] = await sql<{ hashes: Uint8Array }[]>`
    select substring(hashes from 1 for ${width * HASH_SIZE}) as hashes from ${tiles}
    where ${of} and level = ${level} and idx = ${idx} and octet_length(hashes) >= ${width * HASH_SIZE}`;
  return row ? Uint8Array.from(row.hashes) : null;
}

const SLICE_BYTES = 128 * 1024;

/** An entry tile's bundle: entries idx × 256 … + width − 1, if integrated that far. */
export async function entryTile(sql: Queryable, idx: number, width: number, previous: number | null = null): Promise<Uint8Array | null> {
  const { tiles, batches: batchTable, of, integrated } = tables(sql, previous);
  const first = idx * TILE_WIDTH;
  const [start] = await sql<{ entryBatch: number | null; entryOffset: number | null; integrated: number }[]>`
    select entry_batch, entry_offset, ${integrated} as integrated from ${tiles} where ${of} and level = 0 and idx = ${idx}`;
  if (!start || start.entryBatch === null || start.entryOffset === null || start.integrated < first + width) return null;
  const batches = await sql<(BatchShape & { firstIndex: number; entryCount: number; bytes: number })[]>`
    select id, first_row, skipped, first_index, entry_count, template, template_id_slot, octet_length(bundle) as bytes from ${batchTable}
    where ${of} and first_index is not null and first_index < ${first + width} and first_index + entry_count > ${first}
    order by first_index`;
  const entries: Uint8Array[] = [];
  for (const batch of batches) {
    const template = templateOf(batch);
    // The entry at `position` of the batch (its index less the batch's first), and where it starts.
    let entryInBatch = Math.max(0, first - Number(batch.firstIndex));
    let position = batch.id === start.entryBatch ? start.entryOffset : 0;
    let buffered = new Uint8Array(0);
    while (entries.length < width && (position < batch.bytes || buffered.length > 0)) {
      const record = recordAt(buffered, 0, { ...batch, template, position: entryInBatch }, position >= batch.bytes);
      if (!record) {
        if (position >= batch.bytes) throw new Error(`batch ${batch.id} ends inside an entry`);
        const [{ slice }] = await sql<{ slice: Uint8Array }[]>`
          select substring(bundle from ${position + 1} for ${SLICE_BYTES}) as slice from ${batchTable} where ${of} and id = ${batch.id}`;
        const grown = new Uint8Array(buffered.length + slice.length);
        grown.set(buffered);
        grown.set(slice, buffered.length);
        buffered = grown;
        position += slice.length;
        continue;
      }
      entries.push(record.entry);
      entryInBatch++;
      buffered = buffered.subarray(record.next);
    }
    if (entries.length === width) break;
  }
  return entries.length === width ? encodeBundle(entries) : null;
}

/** A TileFetcher over the database (proofs made by the server from the same tiles it serves), of the current log or previous log `n`. */
export function databaseTiles(sql: Queryable, previous: number | null = null): TileFetcher {
  return async (path) => {
    const ref = parseTilePath(path);
    if (!ref) return null;
    return ref.level === "entries"
      ? entryTile(sql, ref.index, ref.width, previous)
      : hashTile(sql, ref.level, ref.index, ref.width, previous);
  };
}

/** Ends the current key's log and starts `newVerifierKey`'s (migration 0040, log_rotate): as the schema's owner. Answers n. */
export async function rotateLog(owner: Queryable, newVerifierKey: string): Promise<number> {
  const [{ n }] = await owner<{ n: number }[]>`select log_rotate(${newVerifierKey}) as n`;
  return n;
}

/** The index of the entry about row `rowId` of `source` (its first, for a row with several), or null. */
export async function logIndexOf(sql: Queryable, source: LogSource, rowId: number): Promise<number | null> {
  return (await logIndexesOf(sql, source, [rowId])).get(rowId) ?? null;
}

/** The same for many rows at once (a history page). */
export async function logIndexesOf(sql: Queryable, source: LogSource, rowIds: readonly number[]): Promise<Map<number, number>> {
  if (rowIds.length === 0) return new Map();
  const rows = await sql<{ rowId: number; index: number }[]>`
    select r.row_id, b.first_index + (r.row_id - b.first_row)
             - coalesce((select count(*) from unnest(b.skipped) s where s < r.row_id), 0) as index
    from unnest(${rowIds as number[]}::int8[]) as r(row_id)
    cross join lateral (
      select first_index, first_row, skipped from log_batches
      where source = ${source} and last_row >= r.row_id and first_row <= r.row_id
        and not (r.row_id = any(coalesce(skipped, '{}'))) and first_index is not null
      order by last_row limit 1
    ) b`;
  return new Map(rows.map((row) => [Number(row.rowId), Number(row.index)]));
}

/**
 * Runs `work` in a transaction of its own and answers, with its result, the index of the first log entry it
 * wrote (null when it wrote none, or when `sql` is already a transaction: the index is given at commit). The
 * transaction's entries take their indexes in its last statement (log_sequence_now, migration 0100), so the
 * answer costs no query after the commit.
 */
export async function withLogIndex<T>(
  sql: Queryable,
  work: (tx: TransactionSql) => Promise<T>,
): Promise<{ result: T; logIndex: number | null }> {
  if (typeof (sql as { savepoint?: unknown }).savepoint === "function") {
    return { result: await work(sql as TransactionSql), logIndex: null };
  }
  let logIndex: number | null = null;
  const result = (await (sql as Sql).begin(async (tx) => {
    const answer = await work(tx as TransactionSql);
    const [{ index }] = await tx<{ index: number | null }[]>`select log_sequence_now() as index`;
    logIndex = index === null ? null : Number(index);
    return answer;
  })) as T;
  return { result, logIndex };
}

/** The log's verifier key (set by the process that signs), or null before one signed. */
export async function logVerifierKey(sql: Queryable): Promise<string | null> {
  const [row] = await sql<{ verifierKey: string | null }[]>`select verifier_key from log_state`;
  return row?.verifierKey ?? null;
}

/** Balances in units, in ascending address order after `after` (GET /api/balances). */
export async function balancesPage(
  sql: Queryable,
  after: string | null,
  limit: number,
): Promise<{ balances: { address: string; units: number }[]; next: string | null }> {
  const rows = await sql<{ address: string; units: number }[]>`
    select address, units::int8 as units from wallet_balances
    where ${after === null ? sql`true` : sql`address > ${after}`}
    order by address limit ${limit + 1}`;
  const page = rows.slice(0, limit).map((row) => ({ address: row.address, units: Number(row.units) }));
  return { balances: page, next: rows.length > limit ? page[page.length - 1].address : null };
}
