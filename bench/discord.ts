/**
 * Two modes against the Discord double:
 * - `sweep`: the reconciliation sweep (issue 25) of 2,000 linked members: its request count beside the
 *   minimum (one member read per member plus one call per role change), the 429s and whether any request was
 *   refused twice, and its duration. Discord's own global limit (50 requests a second per bot, the library's
 *   default too) and per-route windows of 50 a second (MEMBER_LIMIT), so the library's bucket handling is
 *   what is measured.
 * - `interactions`: slash commands (issue 37) over real HTTP, the double (in a worker thread) signing each one
 *   and timing the site's answer as Discord does; p50/p95/max per command beside GET /api/health from the same
 *   load generator in the same run (target: answers within 500 ms at p95, anything slower deferred).
 *
 *   node --import tsx bench/discord.ts [sweep|interactions]   (both by default; MEMBERS=2000, MEMBER_LIMIT=50,
 *   COMMANDS=1200, LINKED=300, CONCURRENCY=8 to change)
 */
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { COMMAND_NAMES } from "../app/domain/discord-commands.ts";
import { syncCommands } from "../app/utils/discord-commands.server.ts";
import { DEFAULT_DEFER_AFTER_MS } from "../app/utils/discord-interactions.server.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { importCatalogue } from "../db/queries/catalogue.server.ts";
import { createGiveaway } from "../db/queries/giveaways.server.ts";
import { startTestServer } from "../tests/support/app-server.ts";
import type { CommandTiming, PlannedCommand, WorkerMessage } from "./discord-interactions-worker.ts";
import { createDiscordClient } from "../app/utils/discord.server.ts";
import { createLogger } from "../app/utils/logger.server.ts";
import { replaceRules } from "../db/queries/discord.server.ts";
import { startDiscordDouble } from "../doubles/discord/discord-double.server.ts";
import { sweepRoles } from "../indexer/discord-sync.server.ts";
import { addressOfPrivateKey, newPrivateKey } from "../app/domain/signature.ts";
import { withBenchDatabase } from "./bench-database.ts";

const MEMBERS = Number(process.env.MEMBERS ?? 2000);
const MEMBER_LIMIT = Number(process.env.MEMBER_LIMIT ?? 50);

export async function run(): Promise<void> {
  await runSweep();
  await runInteractions();
}

export async function runSweep(): Promise<void> {
  await withBenchDatabase("discord", 8, async (sql) => {
    const discord = await startDiscordDouble({
      rateLimits: { "guild-member": { limit: MEMBER_LIMIT, windowMs: 1000 }, "member-roles": { limit: MEMBER_LIMIT, windowMs: 1000 } },
    });
    try {
      const guild = discord.createGuild({
        roles: [
          { name: "Holder", position: 1 },
          { name: "Whale", position: 2 },
        ],
        botRole: { position: 3 },
      });
      const [holder, whale] = guild.roles.filter((role) => role.name === "Holder" || role.name === "Whale").map((role) => role.id);
      // A quarter earn Whale (points) and hold it already, a quarter earn it and lack it, a quarter hold it unearned,
      // a quarter neither; everyone earns Holder and half hold it: 2,000 role changes to make.
      const members = Array.from({ length: MEMBERS }, (_, index) => {
        const user = discord.createUser({ username: `member${index}` });
        const kind = index % 4;
        const roles = [...(index % 2 === 0 ? [holder] : []), ...(kind === 0 || kind === 2 ? [whale] : [])];
        discord.addMember(guild.id, user.id, { roles });
        return { userId: user.id, address: addressOfPrivateKey(newPrivateKey()), earnsWhale: kind <= 1 };
      });
      await sql`
        insert into discord_links ${sql(members.map((member, index) => ({ address: member.address, discordUserId: member.userId, username: `member${index}`, linkedAt: new Date() })))}`;
      const rich = members.filter((member) => member.earnsWhale);
      await sql`
        insert into points_ledger ${sql(rich.map((member) => ({ address: member.address, kind: "admin_add", amount: 1000 * 2400, description: "bench", actor: "cli", createdAt: new Date() })))}`;
      await replaceRules(sql, [{ roleId: holder }, { roleId: whale, minPoints: 500 }]);
      const minimum = MEMBERS + MEMBERS / 2 + MEMBERS / 2;
      const config = {
        clientId: "1100000000000000001",
        clientSecret: "x",
        botToken: discord.botToken,
        guildId: guild.id,
        apiUrl: discord.apiUrl,
        authorizeUrl: discord.authorizeUrl,
        syncIntervalMs: 15_000,
        sweepIntervalMs: 6 * 3_600_000,
      };
      const client = createDiscordClient(config);
      const logger = createLogger("indexer", { logLevel: "error" });
      const started = performance.now();
      const sweep = await sweepRoles({ sql, config, logger, client }, "cli");
      const seconds = (performance.now() - started) / 1000;
      const stats = discord.stats();
      const refusedTwice = Object.values(stats.refusals).filter((count) => count > 1).length;
      console.log(`Reconciliation sweep of ${MEMBERS.toLocaleString("en-US")} linked members against the Discord double`);
      console.log(`  (global 50 requests/s per bot; member reads and role changes ${MEMBER_LIMIT}/s each, per guild):`);
      console.log(
        `  requests: ${sweep.requests} (minimum needed: ${minimum} = ${MEMBERS} member reads + ${minimum - MEMBERS} role changes)`,
      );
      console.log(`  answered 429: ${stats.rateLimited}; requests refused twice: ${refusedTwice}; errors: ${sweep.errors}`);
      console.log(`  role changes made: ${sweep.added} added, ${sweep.removed} removed (difference found ${sweep.difference})`);
      console.log(`  duration: ${seconds.toFixed(1)} s (${(sweep.requests / seconds).toFixed(1)} requests/s)`);
      const again = await sweepRoles({ sql, config, logger, client }, "cli");
      console.log(`  a second sweep right after: difference ${again.difference}, ${again.requests} requests (one read per member)`);
    } finally {
      await discord.close();
    }
  });
}

// Slash commands -------------------------------------------------------------------------------------------

const COMMANDS = Number(process.env.COMMANDS ?? 1200);
const LINKED = Number(process.env.LINKED ?? 300);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const WALLETS = 2000;
const ITEMS_PER_LINKED = 4;
const OPEN_GIVEAWAYS = 20;
const TARGET_P95_MS = 500;
const CLIENT_ID = "1100000000000000001";

type Ready = { apiUrl: string; authorizeUrl: string; botToken: string; guildId: string; publicKey: string; userIds: string[] };

/** The double in a worker thread; `ask` sends one message and waits for its one answer. */
function startLoadWorker(members: number) {
  const worker = new Worker(new URL("./discord-interactions-worker.ts", import.meta.url), {
    workerData: { members, clientId: CLIENT_ID },
    execArgv: ["--import", "tsx"],
  });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      worker.once("message", (answer: { ok: boolean; result?: T; error?: string }) =>
        answer.ok ? resolve(answer.result as T) : reject(new Error(answer.error)),
      );
      worker.once("error", reject);
    });
  return {
    ready: next<Ready>(),
    ask: <T>(message: WorkerMessage) => {
      const answer = next<T>();
      worker.postMessage(message);
      return answer;
    },
    close: () => {
      worker.postMessage({ kind: "close" } satisfies WorkerMessage);
      return new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    },
  };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const ms = (value: number) => `${value.toFixed(1).padStart(7)} ms`;

function timingRow(label: string, latencies: number[], extra = ""): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `  ${label.padEnd(28)} n=${String(sorted.length).padStart(5)}   p50 ${ms(quantile(sorted, 0.5))}   p95 ${ms(quantile(sorted, 0.95))}   max ${ms(sorted.at(-1) ?? NaN)}${extra}`;
}

/** 2,000 wallets with points; LINKED of them linked, each holding and staking 4 items; 20 open giveaways. */
async function seedInteractions(sql: Parameters<Parameters<typeof withBenchDatabase>[2]>[0], userIds: string[]) {
  await importCatalogue(sql, demoCatalogue());
  const wallets = Array.from({ length: WALLETS }, () => addressOfPrivateKey(newPrivateKey()));
  await sql`
    insert into points_ledger (address, kind, amount, description, actor, created_at)
    select address, 'admin_add', (1 + (ordinality * 7919) % 50000) * 2400, 'bench seed', 'cli', now()
    from unnest(${wallets}::text[]) with ordinality as t(address, ordinality)`;
  const items = await sql<{ id: number }[]>`select id from items order by collection, number limit ${LINKED * ITEMS_PER_LINKED}`;
  const owners = items.map((_, index) => wallets[Math.floor(index / ITEMS_PER_LINKED)]);
  const itemIds = items.map((item) => item.id);
  await sql`
    insert into ownership (item_id, owner_address, satpoint, seen_at)
    select item_id, owner, ${`${"ab".repeat(32)}:0:0`}, now() from unnest(${itemIds}::int[], ${owners}::text[]) as t(item_id, owner)`;
  await sql`
    insert into stakes (item_id, address, started_at)
    select item_id, owner, now() - interval '9 days' from unnest(${itemIds}::int[], ${owners}::text[]) as t(item_id, owner)`;
  await sql`
    insert into discord_links ${sql(userIds.slice(0, LINKED).map((discordUserId, index) => ({ address: wallets[index], discordUserId, username: `member${index}`, linkedAt: new Date() })))}`;
  for (let n = 1; n <= OPEN_GIVEAWAYS; n++) {
    await createGiveaway(
      sql,
      {
        title: `Bench prize ${n}`,
        description: "A prize",
        imageUrl: "/uploads/x.png",
        pointsCost: 10 * n,
        endDate: new Date(Date.now() + n * 3_600_000),
      },
      { kind: "cli" },
    );
  }
  for (const table of ["points_ledger", "ownership", "stakes", "discord_links", "giveaways"]) await sql.unsafe(`vacuum analyze ${table}`);
  return wallets;
}

/** The commands in turn, by linked and unlinked members alike (a third of the callers are not linked). */
function planOf(userIds: string[], wallets: string[], count: number): PlannedCommand[] {
  return Array.from({ length: count }, (_, index): PlannedCommand => {
    const name = COMMAND_NAMES[index % COMMAND_NAMES.length];
    const userId = userIds[(index * 7) % userIds.length];
    let options: Record<string, string | number> | undefined;
    if (name === "verify") options = { giveaway: 1 + (index % OPEN_GIVEAWAYS) };
    if (name === "points" && index % 12 === 0) options = { wallet: wallets[index % wallets.length] };
    return { userId, name, options };
  });
}

export async function runInteractions(): Promise<void> {
  await withBenchDatabase("discord_interactions", 10, async (sql) => {
    const load = startLoadWorker(Math.round(LINKED * 1.5));
    let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
    try {
      const double = await load.ready;
      console.log(
        `seeding ${WALLETS.toLocaleString("en-US")} wallets with points, ${LINKED} linked members staking ${ITEMS_PER_LINKED} items each, ${OPEN_GIVEAWAYS} open giveaways…`,
      );
      const wallets = await seedInteractions(sql, double.userIds);
      console.log("building and starting the app…");
      server = await startTestServer({
        sql,
        adminAddress: wallets[0],
        env: {
          DISCORD_CLIENT_ID: CLIENT_ID,
          DISCORD_CLIENT_SECRET: "bench",
          DISCORD_BOT_TOKEN: double.botToken,
          DISCORD_GUILD_ID: double.guildId,
          DISCORD_API_URL: double.apiUrl,
          DISCORD_AUTHORIZE_URL: double.authorizeUrl,
          DISCORD_PUBLIC_KEY: double.publicKey,
          RATE_LIMIT_INTERACTIONS_PER_MIN: "0",
        },
      });
      await syncCommands(server.context.config.discord!);
      const endpointUrl = `${server.url}/api/discord/interactions`;
      const plan = planOf(double.userIds, wallets, COMMANDS);
      // Warm-up: the first of each command (query plans, the JIT), not counted.
      await load.ask<CommandTiming[]>({ kind: "interactions", endpointUrl, plan: plan.slice(0, 60), concurrency: CONCURRENCY });
      await load.ask<number[]>({ kind: "health", url: `${server.url}/api/health`, requests: 100, concurrency: CONCURRENCY });
      const healthMs = await load.ask<number[]>({
        kind: "health",
        url: `${server.url}/api/health`,
        requests: COMMANDS,
        concurrency: CONCURRENCY,
      });
      const started = performance.now();
      const timings = await load.ask<CommandTiming[]>({ kind: "interactions", endpointUrl, plan, concurrency: CONCURRENCY });
      const seconds = (performance.now() - started) / 1000;
      const failed = timings.filter((timing) => timing.failure !== null);
      const deferred = timings.filter((timing) => timing.deferred);
      const all = timings.map((timing) => timing.ms);
      const p95 = quantile(
        [...all].sort((a, b) => a - b),
        0.95,
      );
      console.log(
        `Slash commands against the Discord double (in a worker thread): ${COMMANDS} interactions, ${CONCURRENCY} at a time, ` +
          `signed by the double and timed to the site's answer (what Discord waits for, 3 s at most):`,
      );
      console.log(timingRow("GET /api/health (baseline)", healthMs));
      console.log(timingRow("every command", all, `   (${(COMMANDS / seconds).toFixed(0)}/s)`));
      for (const name of COMMAND_NAMES)
        console.log(
          timingRow(
            `/${name}`,
            timings.filter((timing) => timing.name === name).map((timing) => timing.ms),
          ),
        );
      console.log(
        `  deferred (type 5, over ${DEFAULT_DEFER_AFTER_MS} ms): ${deferred.length}` +
          (deferred.length
            ? `, their edit in after p95 ${ms(
                quantile(
                  deferred.map((d) => d.finalMs).sort((a, b) => a - b),
                  0.95,
                ),
              )}`
            : "") +
          `; failed: ${failed.length}${failed.length ? ` (${failed[0].failure})` : ""}`,
      );
      console.log(`  p95 ${p95.toFixed(1)} ms: ${p95 <= TARGET_P95_MS ? "OK" : "OVER"} (target ≤ ${TARGET_P95_MS} ms)`);
    } finally {
      await server?.close();
      await load.close();
    }
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const mode = process.argv[2];
  (mode === "sweep" ? runSweep() : mode === "interactions" ? runInteractions() : run()).catch((error: Error) => {
    console.error(`bench/discord: ${error.stack ?? error.message}`);
    process.exit(1);
  });
}
