/** `spooks-admin discord rules|preview|sync|links` (the real binary) against the test database and the Discord double. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startDiscordDouble, type DiscordDouble, type GuildView } from "../../doubles/discord/discord-double.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { randomAddress } from "../testing/fixtures.ts";
import { cliEnv, runCli as runCliWithin, type CliEnv } from "../testing/run-cli.ts";

// Each test runs several CLI processes, each starting Node, tsx and the database: more than the suite's 30 s on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

// Each call starts the real binary; a loaded machine takes its time.
const runCli = (args: readonly string[], env: CliEnv) => runCliWithin(args, env, { timeoutMs: 120_000 });
async function runJson<T>(args: readonly string[], env: CliEnv): Promise<T> {
  const result = await runCli([...args, "--json"], env);
  if (result.code !== 0) throw new Error(`spooks-admin ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let discord: DiscordDouble;
let guild: GuildView;
let env: CliEnv;
let dir: string;

const role = (name: string) => guild.roles.find((candidate) => candidate.name === name)!.id;
const file = (name: string, value: unknown) => {
  const target = path.join(dir, name);
  fs.writeFileSync(target, JSON.stringify(value));
  return target;
};

beforeAll(async () => {
  db = await createTestDatabase();
  discord = await startDiscordDouble({});
  guild = discord.createGuild({
    roles: [
      { name: "Holder", position: 1 },
      { name: "Moderator", position: 3 },
    ],
    botRole: { position: 2 },
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-discord-cli-"));
  env = cliEnv(db.url, {
    ORD_URL: "http://127.0.0.1:9",
    DISCORD_CLIENT_ID: "1100000000000000001",
    DISCORD_CLIENT_SECRET: "cli",
    DISCORD_BOT_TOKEN: discord.botToken,
    DISCORD_GUILD_ID: guild.id,
    DISCORD_API_URL: discord.apiUrl,
  });
});
afterAll(async () => {
  await discord?.close();
  await db?.close();
});

describe("spooks-admin discord", () => {
  it("refuses without the configuration, and refuses a role the bot cannot assign", async () => {
    const off = await runCli(["discord", "links"], cliEnv(db.url, { ORD_URL: "http://127.0.0.1:9" }));
    expect(off.code).toBe(1);
    expect(off.stderr).toContain("Discord holder roles are not configured");
    const refused = await runCli(["discord", "rules", "--set", file("mod.json", [{ roleId: role("Moderator") }])], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("The bot cannot assign Moderator");
  }, 300_000);

  it("sets the rules, previews, sweeps and lists the links (--json), each change audited", async () => {
    const holder = discord.createUser({ username: "ghostly" });
    discord.addMember(guild.id, holder.id);
    const address = randomAddress();
    await db.sql`insert into discord_links (address, discord_user_id, username, linked_at) values (${address}, ${holder.id}, 'ghostly', now())`;
    const rules = [{ roleId: role("Holder") }];
    expect(await runJson<{ gain: unknown[] }>(["discord", "preview", file("rules.json", rules)], env)).toEqual({
      gain: [{ address, roleId: role("Holder"), reason: "every linked member" }],
      lose: [],
    });
    const saved = await runJson<{ rules: unknown[] }>(["discord", "rules", "--set", file("rules.json", rules)], env);
    expect(saved.rules).toEqual(rules);
    const sweep = await runJson<{ members: number; added: number; difference: number }>(["discord", "sync"], env);
    expect(sweep).toMatchObject({ members: 1, added: 1, difference: 1 });
    expect(discord.memberRoles(guild.id, holder.id)).toEqual([role("Holder")]);
    const links = await runJson<{ links: { address: string; roles: string[] }[] }>(["discord", "links"], env);
    expect(links.links).toEqual([expect.objectContaining({ address, username: "ghostly", roles: [role("Holder")], inGuild: true })]);
    const audit = await db.sql<
      { actor: string; action: string }[]
    >`select actor, action from audit_log where action like 'discord.%' order by id`;
    expect(audit).toEqual([
      { actor: "cli", action: "discord.rules" },
      { actor: "cli", action: "discord.sweep" },
    ]);
    const table = await runCli(["discord", "rules"], env);
    expect(table.stdout).toContain("every linked member");
  }, 600_000);
});
