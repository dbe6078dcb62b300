/**
 * The public log's costs (issue 34, item 7), on real PostgreSQL (BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test; a throwaway database) through the real build over HTTP, each
 * figure beside its baseline from the same run:
 * - a stake, an unstake and a vote request: p50 with the log's entries and without them (every log trigger
 *   off), in alternating rounds (target: at most +2 ms);
 * - GET /log/checkpoint beside GET /api/health: requests/s under the same load, each of LOAD_ROUNDS loads of 2 s beside
 *   the health loads just before and after it (bench/api.ts, besideHealth), the log's own limit counting (target ≥ 0.9×);
 * - `spooks-admin log verify` of a log of BENCH_LOG_ENTRIES entries (default 100,000; the target, ≤ 60 s, is for
 *   1,000,000: `BENCH_LOG_ENTRIES=1000000`): accrual hours of a tenth as many wallets, read through the tiles,
 *   every balance recomputed and compared with the site's. Also how long integrating them took.
 * Standalone: `node --import tsx bench/log.ts`.
 */
import { pathToFileURL } from "node:url";
import { HOUR_MS, hourStart } from "../app/domain/clock.ts";
import { stakeMessage, voteMessage } from "../app/domain/messages.ts";
import { addressOfPrivateKey, newPrivateKey, signMessage } from "../app/domain/signature.ts";
import { formatVerifierKey, signerFromSeed, verifierOf } from "../app/domain/tlog/note.ts";
import { claimLogKey } from "../app/utils/log-service.server.ts";
import { verifyLog } from "../cli/log-verify.ts";
import type { Sql } from "../db/client.server.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { importCatalogue } from "../db/queries/catalogue.server.ts";
import { integrate } from "../db/queries/log.server.ts";
import { startTestServer, type TestServer } from "../tests/support/app-server.ts";
import { besideHealth, randomAddress } from "./api.ts";
import { withBenchDatabase } from "./bench-database.ts";

const ENTRIES = Math.max(10_000, Number(process.env.BENCH_LOG_ENTRIES ?? 100_000));
const WALLETS = Math.min(100_000, Math.round(ENTRIES / 10));
const ROUNDS = 3;
const REQUESTS_PER_ROUND = 30;
const ITEMS = 60;
const LOAD_ROUNDS = 9;
const LOAD_MS = 2_000;

const signer = signerFromSeed("bench.example/log", new Uint8Array(32).fill(11));
const ms = (value: number) => `${value.toFixed(2).padStart(7)} ms`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

type Holder = { key: Uint8Array; address: string; items: { inscriptionId: string; number: number }[] };

/** The catalogue; one holder owning Spooks 1-60 (the first 10 staked a day ago) and a proposal it votes on. */
async function seedHolder(sql: Sql): Promise<{ holder: Holder; proposal: { id: number; title: string; options: number[] } }> {
  await importCatalogue(sql, demoCatalogue());
  const key = newPrivateKey();
  const address = addressOfPrivateKey(key);
  const items = await sql<{ id: number; inscriptionId: string; number: number }[]>`
    select id, inscription_id, number from items where collection = 'spooks' order by number limit ${ITEMS}`;
  await sql`
    insert into ownership (item_id, owner_address, satpoint, seen_at)
    select id, ${address}, ${`${"ab".repeat(32)}:0:0`}, now() from items where id = any(${items.map((item) => item.id)}::int[])`;
  await sql`
    insert into stakes (item_id, address, started_at)
    select id, ${address}, now() - interval '1 day' from unnest(${items.slice(0, 10).map((item) => item.id)}::int[]) as t(id)`;
  const title = "Bench: the log's cost";
  const [{ id }] = await sql<{ id: number }[]>`
    insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at, allow_vote_change)
    values (${title}, 'Which?', now() - interval '1 hour', now() + interval '1 day', 'yes_no', 'bench', now() - interval '1 hour', true)
    returning id`;
  const options = await sql<{ id: number }[]>`
    insert into proposal_options (proposal_id, position, option_text) values (${id}, 0, 'Yes'), (${id}, 1, 'No') returning id`;
  return { holder: { key, address, items: items.slice(10) }, proposal: { id, title, options: options.map((o) => o.id) } };
}

/** ENTRIES ledger entries: accrual hours of WALLETS wallets, one statement an hour, as the indexer writes them. */
async function seedEntries(sql: Sql): Promise<void> {
  const wallets = Array.from({ length: WALLETS }, randomAddress);
  const first = hourStart(new Date()).getTime() - (ENTRIES / WALLETS + 2) * HOUR_MS;
  for (let n = 0; n < ENTRIES / WALLETS; n++) {
    const hour = new Date(first + n * HOUR_MS);
    await sql`
      insert into points_ledger (address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units,
                                 actor, created_at)
      select address, 'accrual', 10000, ${hour}, 1, 0, 1, 10000, 'system', ${new Date(hour.getTime() + HOUR_MS)}
      from unnest(${wallets}::text[]) as t(address)`;
  }
}

/** The log's triggers (every source table's), off or on again: the same requests without their entries. */
async function setLogTriggers(sql: Sql, enabled: boolean): Promise<void> {
  const triggers = await sql<{ relation: string; name: string }[]>`
    select tgrelid::regclass::text as relation, tgname as name from pg_trigger
    where tgname like 'log\\_%' and not tgisinternal and tgrelid not in ('log_batches'::regclass, 'log_head'::regclass)`;
  for (const { relation, name } of triggers) {
    await sql.unsafe(`alter table ${relation} ${enabled ? "enable" : "disable"} trigger ${name}`);
  }
}

type Timed = { server: number; roundTrip: number };

async function post(origin: string, path: string, body: unknown): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(`${origin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.text();
  const roundTrip = performance.now() - started;
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${answer}`);
  const server = Number(/dur=([\d.]+)/.exec(response.headers.get("server-timing") ?? "")?.[1] ?? Number.NaN);
  return { server, roundTrip };
}

type Requests = Record<"stake" | "unstake" | "vote", Timed[]>;

/** One round: REQUESTS_PER_ROUND stakes, unstakes and votes, one at a time. */
async function round(origin: string, holder: Holder, proposal: { id: number; title: string; options: number[] }, into: Requests) {
  const sign = (message: string) => ({ address: holder.address, message, signature: signMessage(holder.key, message) });
  for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
    const item = holder.items[i % holder.items.length];
    into.stake.push(
      await post(origin, "/api/stake", { ...sign(stakeMessage("stake", item.number, new Date())), inscriptionId: item.inscriptionId }),
    );
    into.unstake.push(
      await post(origin, "/api/unstake", { ...sign(stakeMessage("unstake", item.number, new Date())), inscriptionId: item.inscriptionId }),
    );
    const optionId = proposal.options[i % 2];
    into.vote.push(
      await post(origin, `/api/proposals/${proposal.id}/vote`, {
        ...sign(voteMessage(proposal.id, proposal.title, optionId, new Date())),
        optionId,
      }),
    );
  }
}

async function requestCosts(sql: Sql, origin: string, seeded: Awaited<ReturnType<typeof seedHolder>>): Promise<void> {
  const withLog: Requests = { stake: [], unstake: [], vote: [] };
  const withoutLog: Requests = { stake: [], unstake: [], vote: [] };
  await round(origin, seeded.holder, seeded.proposal, { stake: [], unstake: [], vote: [] }); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const logged of r % 2 === 0 ? [true, false] : [false, true]) {
      await setLogTriggers(sql, logged);
      await round(origin, seeded.holder, seeded.proposal, logged ? withLog : withoutLog);
    }
  }
  await setLogTriggers(sql, true);
  console.log(
    `a request with its log entries beside the same without them (every log trigger off), p50 of ${ROUNDS * REQUESTS_PER_ROUND} each, one at a time:`,
  );
  for (const kind of ["stake", "unstake", "vote"] as const) {
    const p50 = (list: Timed[], field: keyof Timed) => median(list.map((t) => t[field]));
    const server = p50(withLog[kind], "server") - p50(withoutLog[kind], "server");
    const roundTrip = p50(withLog[kind], "roundTrip") - p50(withoutLog[kind], "roundTrip");
    console.log(
      `  POST ${`/api/${kind === "vote" ? "proposals/{id}/vote" : kind}`.padEnd(26)} server ${ms(p50(withLog[kind], "server"))} vs ${ms(p50(withoutLog[kind], "server"))}` +
        ` = ${server >= 0 ? "+" : ""}${server.toFixed(2)} ms (target ≤ +2 ms) ${server <= 2 ? "OK" : "OVER"};` +
        ` round trip ${ms(p50(withLog[kind], "roundTrip"))} vs ${ms(p50(withoutLog[kind], "roundTrip"))} = ${roundTrip >= 0 ? "+" : ""}${roundTrip.toFixed(2)} ms`,
    );
  }
}

async function verifyFigure(origin: string, size: number): Promise<void> {
  const started = performance.now();
  const report = await verifyLog({ url: origin, key: formatVerifierKey(verifierOf(signer)) });
  const seconds = (performance.now() - started) / 1000;
  if (report.differences.length > 0) throw new Error(`log verify found differences: ${report.differences.slice(0, 5).join("; ")}`);
  const target =
    report.size >= 1_000_000
      ? ` (target ≤ 60 s) ${seconds <= 60 ? "OK" : "OVER"}`
      : " (the target, ≤ 60 s, is for 1,000,000: BENCH_LOG_ENTRIES=1000000)";
  console.log(
    `spooks-admin log verify of ${report.size.toLocaleString("en-US")} entries (${size.toLocaleString("en-US")} integrated), ${report.wallets.toLocaleString("en-US")} wallets compared: ${seconds.toFixed(1)} s${target}`,
  );
}

export async function run(): Promise<void> {
  await withBenchDatabase("log", 10, async (sql) => {
    const servers: TestServer[] = [];
    try {
      console.log(
        `seeding the catalogue, a holder, a proposal and ${ENTRIES.toLocaleString("en-US")} entries (accrual hours of ${WALLETS.toLocaleString("en-US")} wallets)…`,
      );
      const seeded = await seedHolder(sql);
      await seedEntries(sql);
      await claimLogKey(sql, signer);
      const started = performance.now();
      const { size } = await integrate(sql, signer, new Date());
      console.log(
        `integrating ${size.toLocaleString("en-US")} entries (leaf hashes, tiles, a signed checkpoint): ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      await sql`vacuum analyze`;
      console.log("building and starting the app…");
      // log verify first, while every row has its entry (the requests below are also made without them), against
      // the production limits (RATE_LIMIT_LOG_PER_MIN 12,000, reads 600 a minute).
      const production = await startTestServer({ sql, adminAddress: seeded.holder.address, env: { RATE_LIMIT_READS_PER_MIN: "600" } });
      servers.push(production);
      await verifyFigure(production.url, size);
      // Signed requests and the log's files without their limits here (one client sends them all); reads as in production.
      const unlimited = await startTestServer({
        sql,
        adminAddress: seeded.holder.address,
        env: { RATE_LIMIT_SIGNED_PER_MIN: "0", RATE_LIMIT_LOG_PER_MIN: "1000000", RATE_LIMIT_READS_PER_MIN: "600" },
      });
      servers.push(unlimited);
      await requestCosts(sql, unlimited.url, seeded);
      await integrate(sql, signer, new Date());
      // The log's own limit counts (high enough not to refuse the load): what a request pays for it is in the figure.
      await besideHealth("GET /log/checkpoint", unlimited.url, [["GET /log/checkpoint", ["/log/checkpoint"]]], {
        rounds: LOAD_ROUNDS,
        durationMs: LOAD_MS,
      });
    } finally {
      for (const server of servers) await server.close();
    }
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run().catch((error: Error) => {
    console.error(`bench/log: ${error.stack ?? error.message}`);
    process.exit(1);
  });
}
