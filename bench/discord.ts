/**
 * The Discord reconciliation sweep (issue 25) of 2,000 linked members against the Discord double: its
 * request count beside the minimum (one member read per member plus one call per role change), the 429s
 * and whether any request was refused twice, and its duration. Discord's own global limit (50 requests a
 * second per bot, the library's default too) and per-route windows of 50 a second (MEMBER_LIMIT), so the
 * library's bucket handling is what is measured.
 *
 *   node --import tsx bench/discord.ts        (MEMBERS=2000, MEMBER_LIMIT=50 to change)
 */
import { pathToFileURL } from "node:url";
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run().catch((error: Error) => {
    console.error(`bench/discord: ${error.stack ?? error.message}`);
    process.exit(1);
  });
}
