/**
 * Indexer benchmarks, each printed beside the baseline it is compared to, on real PostgreSQL
 * (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; a throwaway database is created
 * and dropped):
 * - accrual of one hour for 1,000,000 open stakes over 100,000 wallets, beside a bare INSERT … SELECT of
 *   the same number of ledger rows into a trigger-less copy (target: within 1.5× of it), and beside the same
 *   accrual without its public-log entries (issue 34, target: within 1.15×; also in the database server's CPU
 *   time, steadier on a shared machine); the log's storage per entry beyond the entries (target ≤ 64 B); a new
 *   schedule's first hour from the basis the pass before switched to it, and the first hour after a restart (a new
 *   pool), each beside the ordinary hours credited next to it (issue 36, target: within 1.5× of them; the accrual's
 *   median printed too), and the same first hour unswitched; BENCH_ACCRUAL_ROUNDS sets the rounds (default 3);
 * - ownership sync of 1,883 and of 20,000 items with 20 KB contents against the simulated wonky-ord over
 *   HTTP: bytes and time of a steady pass polling every item (the baseline) vs validate batches (target:
 *   under 1% of the polling bytes, under 0.5 s for 1,883 items), and a pass with 100 transfers.
 * Standalone: `node --import tsx bench/indexer.ts`.
 */
import { pathToFileURL } from "node:url";
import { HOUR_MS } from "../app/domain/clock.ts";
import { createSql, type Sql } from "../db/client.server.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { combinedPercent, itemHourUnits, tenurePercentAt } from "../app/domain/boosts.ts";
import type { Rarity } from "../app/domain/collections.ts";
import { perItemDailyRate } from "../app/domain/rewards.ts";
import { creditHour, recalculateAccruals } from "../db/queries/accrual.server.ts";
import { createSchedule } from "../db/queries/boosts.server.ts";
import { createOrdClient, OrdError, type OrdClient } from "../indexer/ord-client.server.ts";
import { demoOtherHolders, startSimulatedChain, type SimulatedChain } from "../indexer/simulated-chain.server.ts";
import { syncOnce, type SyncReport } from "../indexer/sync.server.ts";
import { indexerConfig, testAddress } from "../indexer/test-support.ts";
import { withBenchDatabase, withServerCpu } from "./bench-database.ts";

/** BENCH_ACCRUAL_SCALE=10 divides stakes and wallets by 10 (while developing; the figures say which scale ran). */
const SCALE = Math.max(1, Number(process.env.BENCH_ACCRUAL_SCALE ?? 1));
const STAKES = Math.round(1_000_000 / SCALE);
const WALLETS = Math.round(100_000 / SCALE);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ACCRUAL_ROUNDS ?? 3));
const H0 = Date.UTC(2031, 0, 1);
const hour = (n: number) => new Date(H0 + n * HOUR_MS);

const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Time on the clock and the server's CPU time (null when it cannot be read) of `work`. */
async function timedWithCpu(sql: Sql, work: () => Promise<unknown>): Promise<{ ms: number; cpu: number | null }> {
  const { value: ms, cpu } = await withServerCpu(sql, () => timed(work));
  return { ms, cpu };
}

async function seedStakes(sql: Sql): Promise<void> {
  await sql`
    insert into items (inscription_id, collection, name, number, rank, rarity)
    select md5(g::text) || md5((-g)::text) || 'i0', case when g % 2 = 0 then 'spooks' else 'spook-society' end,
           'Bench #' || g, g, g,
           case when g <= 44 then 'Legendary' when g <= 178 then 'Epic' when g <= 444 then 'Rare' else 'Common' end
    from generate_series(1, ${STAKES}::int) as g`;
  // Seeded without their public-log entries (a million stake entries are not what is measured here).
  await sql`alter table stakes disable trigger log_stakes_inserted`;
  await sql`
    insert into stakes (item_id, address, started_at)
    select id, 'W' || lpad((id % ${WALLETS}::int)::text, 6, '0'), ${hour(-24)} - (id % 60) * interval '1 day' from items`;
  await sql`alter table stakes enable trigger log_stakes_inserted`;
  await sql`vacuum analyze items`;
  await sql`vacuum analyze stakes`;
}

/** A bare INSERT … SELECT of one ledger row per wallet, with what explains it, into `table` (no aggregation, no conflict check). */
async function bareInsert(sql: Sql, table: "points_ledger" | "ledger_copy", n: number): Promise<void> {
  await sql`
    insert into ${sql(table)} (address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units,
                               boost_version, rarity_percent_sum, boost_percent_sum, actor, created_at)
    select 'W' || lpad(g::text, 6, '0'), 'accrual', 150000, ${hour(n)}, 6, 4, 3, 15000, null, 1000, 1000, 'system', ${hour(n + 1)}
    from generate_series(0, ${WALLETS - 1}::int) as g`;
}

/** Boosts on: every rarity and three tenure steps (the seeded stakes are 1 to 60 days old, so all apply). */
const BENCH_SCHEDULE = {
  rarity: { Common: 100, Rare: 120, Epic: 150, Legendary: 200 },
  tenure: [
    { days: 7, percent: 110 },
    { days: 30, percent: 120 },
    { days: 50, percent: 150 },
  ],
  cap: 250,
};

/** Units `address` earns per hour under BENCH_SCHEDULE, item by item (app/domain/boosts.ts), × `hours`. */
async function expectedUnits(sql: Sql, address: string, hours: number): Promise<number> {
  const stakes = await sql<{ rarity: Rarity; tenureFrom: Date }[]>`select rarity, tenure_from from stakes where address = ${address}`;
  const rate = perItemDailyRate(stakes.length);
  let total = 0;
  // Each credited hour is at most a few hours after hour 0; no step threshold falls in them (whole days).
  for (const stake of stakes) {
    total += itemHourUnits(rate, combinedPercent(BENCH_SCHEDULE, stake.rarity, tenurePercentAt(BENCH_SCHEDULE, stake.tenureFrom, hour(0))));
  }
  return total * hours;
}

/**
 * The public log's storage (issue 34): the entries' bytes as served, and everything the log keeps (batches,
 * tiles, indexes, checkpoints) after integration. An accrual hour's batch keeps its entries' common text once,
 * so what is kept can be less than the entries.
 */
async function logStorage(sql: Sql): Promise<{ entries: number; entryBytes: number; stored: number; batches: number; tiles: number }> {
  const { integrate } = await import("../db/queries/log.server.ts");
  const { signerFromSeed } = await import("../app/domain/tlog/note.ts");
  await integrate(sql, signerFromSeed("bench/log", new Uint8Array(32).fill(1)), new Date());
  await sql`vacuum analyze log_batches, log_tiles, log_state, log_checkpoints`;
  const [row] = await sql<{ entries: number; entryBytes: number; total: number; batches: number; tiles: number }[]>`
    select (select size from log_head)::int8 as entries,
           pg_total_relation_size('log_batches')::int8 as batches, pg_total_relation_size('log_tiles')::int8 as tiles,
           (select coalesce(sum(case when template is null then octet_length(bundle) - 2 * entry_count
                                     else octet_length(bundle) - (entry_count - 1)
                                          - entry_count * (cardinality(template) - 2 - (template_id_slot is not null)::int)
                                          + entry_count * octet_length(array_to_string(template, ''))
                                          -- the row ids the template's id slot takes (not kept), about this long each
                                          + case when template_id_slot is null then 0 else entry_count * length(((first_row + last_row) / 2)::text) end
                                end), 0)
            from log_batches)::int8 as entry_bytes,
           (pg_total_relation_size('log_batches') + pg_total_relation_size('log_tiles') + pg_total_relation_size('log_state')
            + pg_total_relation_size('log_checkpoints') + pg_total_relation_size('log_head'))::int8 as total`;
  return {
    entries: Number(row.entries),
    entryBytes: Number(row.entryBytes),
    stored: Number(row.total),
    batches: Number(row.batches),
    tiles: Number(row.tiles),
  };
}

const credit = (sql: Sql, n: number) => creditHour(sql, { hour: hour(n), at: hour(n + 1), actor: "system", source: "scheduled" });

async function benchAccrual(sql: Sql, url: string): Promise<void> {
  console.log(`seeding ${STAKES.toLocaleString("en-US")} open stakes over ${WALLETS.toLocaleString("en-US")} wallets…`);
  await seedStakes(sql);
  await createSchedule(sql, { ...BENCH_SCHEDULE, effectiveFrom: hour(0) }, { kind: "cli" }, hour(-1));
  await sql`create table ledger_copy (like points_ledger including defaults including constraints including indexes)`;

  // A warm-up each (the first accrual aggregates every stake into the basis and creates the 100k balance
  // rows), then interleaved timed rounds, each on its own hour, so the ledger grows alike under all three.
  let next = 0;
  let first = { wallets: 0 };
  const firstMs = await timed(async () => (first = await credit(sql, next++)));
  if (first.wallets !== WALLETS) throw new Error(`expected ${WALLETS} wallets credited, got ${first.wallets}`);
  await bareInsert(sql, "ledger_copy", next++);
  const times = { accrual: [] as number[], ledger: [] as number[], copy: [] as number[], unlogged: [] as number[] };
  const cpu = { accrual: [] as number[], unlogged: [] as number[] };
  // The same accrual without its public-log entries (issue 34): the log's trigger off for that hour only.
  const withoutLog = async () => {
    await sql`alter table points_ledger disable trigger log_points_ledger`;
    try {
      return await timedWithCpu(sql, () => credit(sql, next++));
    } finally {
      await sql`alter table points_ledger enable trigger log_points_ledger`;
    }
  };
  const withCpu = (into: number[], cpuInto: number[], measured: Promise<{ ms: number; cpu: number | null }>) =>
    measured.then(({ ms, cpu }) => {
      into.push(ms);
      if (cpu !== null) cpuInto.push(cpu);
    });
  const measures: (() => Promise<unknown>)[] = [
    async () => times.ledger.push(await timed(() => bareInsert(sql, "points_ledger", next++))),
    () =>
      withCpu(
        times.accrual,
        cpu.accrual,
        timedWithCpu(sql, () => credit(sql, next++)),
      ),
    async () => times.copy.push(await timed(() => bareInsert(sql, "ledger_copy", next++))),
    () => withCpu(times.unlogged, cpu.unlogged, withoutLog()),
  ];
  // Each round starts one further along, so each measure comes after each other one alike (the trigger's
  // 100,000 balance updates leave the next statement writing back their pages).
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < measures.length; i++) await measures[(round + i) % measures.length]();
  }
  const logBytes = await logStorage(sql);
  // Entries written one statement at a time (an admin's addition, a stake): each its own batch.
  const single = 2_000;
  for (let i = 0; i < single; i++) {
    await sql`insert into points_ledger (address, kind, amount, actor, description, created_at)
              values (${`W${String(i % WALLETS).padStart(6, "0")}`}, 'admin_add', 2400, 'cli', 'bench: one row a statement', ${hour(-2)})`;
  }
  const afterSingle = await logStorage(sql);
  const singleBeyond =
    (afterSingle.stored - logBytes.stored - (afterSingle.entryBytes - logBytes.entryBytes)) / (afterSingle.entries - logBytes.entries);
  const rerun = await timed(() => credit(sql, 0));
  const aggregate = await timed(
    () =>
      sql`select count(*) from (
        select s.address, count(*), count(*) filter (where s.collection = 'spooks'), count(*) filter (where s.collection = 'spook-society')
        from stakes s
        where s.started_at <= ${hour(0)} and (s.ended_at is null or s.ended_at >= ${hour(1)}) group by s.address) s`,
  );
  const joined = await timed(
    () =>
      sql`select count(*) from (
        select s.address, count(*), count(*) filter (where i.collection = 'spooks'), count(*) filter (where i.collection = 'spook-society')
        from stakes s join items i on i.id = s.item_id
        where s.started_at <= ${hour(0)} and (s.ended_at is null or s.ended_at >= ${hour(1)}) group by s.address) s`,
  );
  const recalculated = await recalculateAccruals(sql, hour(0), hour(0));
  const [check] = await sql<{ units: number; ledger: number; balance: number }[]>`
    select (select coalesce(sum(amount), 0)::bigint from points_ledger where address = 'W000001' and actor = 'system'
              and accrual_hour in (select hour from accrual_runs)) as units,
           (select sum(amount)::bigint from points_ledger where address = 'W000001') as ledger,
           (select units from wallet_balances where address = 'W000001') as balance`;
  // W000001 holds the items whose id is 1 mod WALLETS: ids 1 (Legendary), 1 + WALLETS… (Common), each
  // (id % 60) + 1 days old at hour 0; its hourly units are recomputed here item by item.
  const expected = await expectedUnits(sql, "W000001", 2 * ROUNDS + 1);
  const switches = await scheduleSwitches(sql, () => next++);
  const restarts = await afterRestarts(sql, url, () => next++);

  const accrual = median(times.accrual);
  const versus = (label: string, base: number) => {
    const ratio = accrual / base;
    console.log(`  ${label.padEnd(92)} ${ms(base)}   accrual = ${ratio.toFixed(2)}× (target ≤ 1.5×) ${ratio <= 1.5 ? "OK" : "OVER"}`);
  };
  console.log(
    `accrual of one hour, ${STAKES.toLocaleString("en-US")} open stakes over ${WALLETS.toLocaleString("en-US")} wallets (median of ${ROUNDS}):`,
  );
  console.log(`  ${"accrual: figures carried from the hour before, 100k ledger rows, 1 in 24 balances folded".padEnd(92)} ${ms(accrual)}`);
  versus("baseline: bare INSERT … SELECT of 100k rows into points_ledger (same table, indexes, trigger)", median(times.ledger));
  versus("baseline: bare INSERT … SELECT of 100k rows into a fresh copy (same indexes, no trigger)", median(times.copy));
  const unlogged = median(times.unlogged);
  const logRatio = accrual / unlogged;
  console.log(
    `  ${"baseline: the same accrual without its public-log entries (the log's trigger off)".padEnd(92)} ${ms(unlogged)}   accrual = ${logRatio.toFixed(2)}× (target ≤ 1.15×) ${logRatio <= 1.15 ? "OK" : "OVER"}`,
  );
  console.log(
    `    each round, with the log: ${times.accrual.map((t) => t.toFixed(0)).join(", ")} ms; without: ${times.unlogged.map((t) => t.toFixed(0)).join(", ")} ms`,
  );
  if (cpu.accrual.length === ROUNDS && cpu.unlogged.length === ROUNDS) {
    const cpuRatio = median(cpu.accrual) / median(cpu.unlogged);
    console.log(
      `  ${"  the same two in the database server's CPU time (steadier on a shared machine)".padEnd(92)} ${ms(median(cpu.accrual))} vs ${ms(median(cpu.unlogged))} = ${cpuRatio.toFixed(2)}× (target ≤ 1.15×) ${cpuRatio <= 1.15 ? "OK" : "OVER"}`,
    );
  }
  const perEntry = (bytes: number) => bytes / logBytes.entries;
  const beyond = perEntry(logBytes.stored - logBytes.entryBytes);
  console.log(
    `  public log: ${logBytes.entries.toLocaleString("en-US")} entries of ${perEntry(logBytes.entryBytes).toFixed(1)} B on average as served; kept in ${perEntry(logBytes.stored).toFixed(1)} B per entry (batches ${perEntry(logBytes.batches).toFixed(1)}, tiles ${perEntry(logBytes.tiles).toFixed(1)}), all included: ${beyond.toFixed(1)} B per entry beyond the entries (target ≤ 64) ${beyond <= 64 ? "OK" : "OVER"}`,
  );
  console.log(
    `  public log: ${(afterSingle.entries - logBytes.entries).toLocaleString("en-US")} entries written one statement each: ${singleBeyond.toFixed(1)} B per entry beyond the entries`,
  );
  console.log(`  ${"  what the basis saves: the aggregation SELECT alone (stakes by wallet and collection)".padEnd(92)} ${ms(aggregate)}`);
  console.log(`  ${"  the same aggregation before issue 26 (a join with the 1M-item catalogue)".padEnd(92)} ${ms(joined)}`);
  console.log(`  ${"  the first hour ever (no basis yet: every stake aggregated)".padEnd(92)} ${ms(firstMs)}`);
  // Judged against the ordinary hours credited beside them: the ledger has grown since the accrual's rounds above,
  // and every hour costs more with it. Against the accrual's median too, for comparison with earlier runs.
  const besideOrdinary = (label: string, figure: number, ordinary: number) => {
    const ratio = figure / ordinary;
    console.log(
      `  ${label.padEnd(92)} ${ms(figure)}   = ${ratio.toFixed(2)}× the ordinary hours beside it (${ms(ordinary).trim()}; target ≤ 1.5×) ${ratio <= 1.5 ? "OK" : "OVER"}; ${(figure / accrual).toFixed(2)}× the accrual's median`,
    );
  };
  besideOrdinary(
    "a new schedule's first hour, from the basis the pass before switched to it (median)",
    switches.switched,
    switches.ordinary,
  );
  console.log(
    `  ${"  baseline: a new schedule's first hour unswitched (every stake aggregated, every balance folded)".padEnd(92)} ${ms(switches.unswitched)}   = ${(switches.unswitched / switches.ordinary).toFixed(2)}× the ordinary hours beside it`,
  );
  console.log(`  ${"  the switch, in the pass before (its own transaction; writes no balance row)".padEnd(92)} ${ms(switches.switching)}`);
  besideOrdinary(
    "the first hour after a restart (a new process's pool: nothing prepared or kept in it; median)",
    restarts.restarted,
    restarts.ordinary,
  );
  const rerunShare = (100 * rerun) / accrual;
  console.log(
    `  ${"re-running a credited hour (inserts nothing)".padEnd(92)} ${ms(rerun)}   = ${rerunShare.toFixed(2)}% of the first run (target ≤ 5%) ${rerunShare <= 5 ? "OK" : "OVER"}`,
  );
  console.log(
    `  recalculation of hour 0 from the stakes and the schedule: ${recalculated.rows.toLocaleString("en-US")} rows, ${recalculated.mismatches.length} mismatches ${recalculated.mismatches.length === 0 ? "OK" : "WRONG"}`,
  );
  console.log(
    `  check: a 10-item wallet got ${check.units} units over ${2 * ROUNDS + 1} credited hours (expected ${expected}) ${check.units === expected ? "OK" : "WRONG"}`,
  );
  console.log(
    `  check: its balance is its ledger's sum: ${check.balance} units (ledger ${check.ledger}) ${Number(check.balance) === Number(check.ledger) ? "OK" : "WRONG"}`,
  );
}

/**
 * The first hour a new process credits, ROUNDS times: each on a pool of its own, opened just before, so its
 * connections have prepared nothing and the database's backends start cold, as after a restart of the indexer.
 * The basis lives in the database, so nothing else is lost. Median.
 */
async function afterRestarts(sql: Sql, url: string, nextHour: () => number): Promise<{ restarted: number; ordinary: number }> {
  const times: number[] = [];
  const ordinary: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const restarted = createSql(url, { max: 10 });
    try {
      times.push(await timed(() => credit(restarted, nextHour())));
    } finally {
      await restarted.end({ timeout: 5 });
    }
    ordinary.push(await timed(() => credit(sql, nextHour()))); // the next hour, on the running process's pool
  }
  return { restarted: median(times), ordinary: median(ordinary) };
}

/**
 * A new schedule's first hour, ROUNDS times each way, alternating: unswitched (the accrual aggregates every stake
 * and folds every balance, as the CLI's single hour or a late catch-up would), and from the basis the accrual pass
 * switches to the new schedule after crediting the hour before. Each schedule changes every wallet's rate (its
 * Common percent and the tenure steps); medians.
 */
async function scheduleSwitches(
  sql: Sql,
  nextHour: () => number,
): Promise<{ unswitched: number; switched: number; switching: number; ordinary: number }> {
  const { switchBasisAhead } = await import("../db/queries/accrual-basis.server.ts");
  let step = 0;
  const switchTo = async (ahead: boolean) => {
    const n = nextHour();
    step += 1;
    const tenure = BENCH_SCHEDULE.tenure.map((tenureStep) => ({ ...tenureStep, percent: tenureStep.percent + 10 * (step % 2) }));
    const rarity = { ...BENCH_SCHEDULE.rarity, Common: 110 + 10 * (step % 5) };
    await createSchedule(sql, { ...BENCH_SCHEDULE, rarity, tenure, effectiveFrom: hour(n) }, { kind: "cli" }, hour(n));
    const switching = ahead ? await timed(() => switchBasisAhead(sql)) : 0;
    const credited = await timed(() => credit(sql, n));
    const ordinary = await timed(() => credit(sql, nextHour())); // an ordinary hour between two switches
    return { credited, switching, ordinary };
  };
  const unswitched: number[] = [];
  const switched: number[] = [];
  const switching: number[] = [];
  const ordinary: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const without = await switchTo(false);
    unswitched.push(without.credited);
    const ahead = await switchTo(true);
    switched.push(ahead.credited);
    switching.push(ahead.switching);
    ordinary.push(without.ordinary, ahead.ordinary);
  }
  return { unswitched: median(unswitched), switched: median(switched), switching: median(switching), ordinary: median(ordinary) };
}

const CONTENT_BYTES = 20_000;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1).padStart(10)} KB`;

/** A catalogue of `count` items (synthetic ids), with their owners on the simulated chain. */
async function seedCatalogue(
  sql: Sql,
  count: number,
): Promise<{ items: { id: number; inscriptionId: string }[]; owners: Map<string, string> }> {
  await sql`
    insert into items (inscription_id, collection, name, number, rank, rarity)
    select md5('bench' || g) || md5('sync' || g) || 'i0', 'spooks', 'Bench Spook #' || g, g, g,
           case when g <= 44 then 'Legendary' when g <= 178 then 'Epic' when g <= 444 then 'Rare' else 'Common' end
    from generate_series(1, ${count}::int) as g`;
  const items = await sql<{ id: number; inscriptionId: string }[]>`select id, inscription_id from items order by id`;
  const holders = [testAddress("bench-holder"), ...demoOtherHolders()];
  return { items, owners: new Map(items.map((item, i) => [item.inscriptionId, holders[i % holders.length]])) };
}

/** The same client, as against a server without /inscriptions/validate: every item read in full. */
function pollingOnly(client: OrdClient): OrdClient {
  return { ...client, validateAll: async () => Promise.reject(new OrdError("unsupported", "polling baseline")) };
}

type PassFigures = { ms: number; bytes: number; report: Extract<SyncReport, { skipped: false }> };

async function measuredPass(sql: Sql, chain: SimulatedChain, client: OrdClient): Promise<PassFigures> {
  chain.resetStats();
  const report = await syncOnce({
    sql,
    ordUrl: chain.url,
    config: indexerConfig({ timeoutMs: 30_000, retries: 2 }),
    source: "cli",
    wait: true,
    client,
  });
  if (report.skipped || report.state !== "ok") throw new Error(`the pass did not apply: ${JSON.stringify(report)}`);
  return { ms: report.durationMs, bytes: chain.stats().bytesSent, report };
}

function line(label: string, figures: PassFigures, extra = "") {
  const { report } = figures;
  console.log(
    `  ${label.padEnd(52)} ${ms(figures.ms)} ${kb(figures.bytes)}   [full reads ${report.fullReads}, changed ${report.ownersChanged}, stakes ended ${report.stakesEnded}, errors ${report.errors}]${extra}`,
  );
}

async function benchSyncOf(sql: Sql, count: number): Promise<void> {
  const { items, owners } = await seedCatalogue(sql, count);
  const chain = await startSimulatedChain({ owners, contentBytes: CONTENT_BYTES });
  const client = createOrdClient({ baseUrl: chain.url, concurrency: 16, timeoutMs: 30_000, retries: 2 });
  try {
    console.log(
      `sync of ${count.toLocaleString("en-US")} items with ${CONTENT_BYTES.toLocaleString("en-US")}-byte contents, simulated wonky-ord over HTTP (gzip):`,
    );
    line("first pass (every item new: read in full)", await measuredPass(sql, chain, client));
    const polling = await measuredPass(sql, chain, pollingOnly(client));
    line("baseline: steady pass polling every item", polling);
    const steady = await measuredPass(sql, chain, client);
    const share = (100 * steady.bytes) / polling.bytes;
    const timeTarget = count <= 2_000 ? `; ${steady.ms < 500 ? "OK" : "OVER"} (target < 0.5 s)` : "";
    line(
      "steady pass, validate batches of 500",
      steady,
      `\n  ${"".padEnd(52)} = ${share.toFixed(3)}% of the polling bytes, ${(polling.ms / steady.ms).toFixed(1)}× faster; ${share < 1 ? "OK" : "OVER"} (target < 1%)${timeTarget}`,
    );

    const moved = items.slice(100, 200);
    const stakedSince = new Date(Date.now() - HOUR_MS);
    await sql`insert into stakes (item_id, address, started_at)
              select item_id, owner_address, ${stakedSince} from ownership where item_id = any(${moved.map((i) => i.id)}::int[])`;
    const newOwner = testAddress("bench-new-owner");
    for (const item of moved) chain.transfer(item.inscriptionId, newOwner);
    line("pass with 100 transfers, each ending a stake", await measuredPass(sql, chain, client));
  } finally {
    client.close();
    await chain.close();
    await sql`truncate items cascade`;
    await sql`truncate sync_runs, chain_cursor`;
  }
}

async function benchSync(sql: Sql): Promise<void> {
  await benchSyncOf(sql, demoCatalogue().length);
  await benchSyncOf(sql, 20_000);
}

export async function run(): Promise<void> {
  await withBenchDatabase("indexer", 10, async (sql, url) => {
    // BENCH_INDEXER=accrual runs the accrual figures alone.
    if (process.env.BENCH_INDEXER !== "accrual") await benchSync(sql);
    await benchAccrual(sql, url);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run().catch((error: Error) => {
    console.error(`bench/indexer: ${error.message}`);
    process.exit(1);
  });
}
