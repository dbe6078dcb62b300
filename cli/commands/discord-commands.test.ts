/** `spooks-admin discord commands sync` (the real binary) against the Discord double: one bulk overwrite of the slash commands. */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { COMMAND_REGISTRATIONS } from "../../app/domain/discord-commands.ts";
import { startDiscordDouble, type DiscordDouble, type GuildView } from "../../doubles/discord/discord-double.server.ts";
import { cliEnv, runCli as runCliWithin, type CliEnv } from "../testing/run-cli.ts";

vi.setConfig({ testTimeout: 120_000 });
const runCli = (args: readonly string[], env: CliEnv) => runCliWithin(args, env, { timeoutMs: 120_000 });

let discord: DiscordDouble;
let guild: GuildView;
let env: CliEnv;
const APP = "1100000000000000001";
const PUT = "PUT /applications/{application}/guilds/{guild}/commands";

beforeAll(async () => {
  discord = await startDiscordDouble({});
  guild = discord.createGuild({ roles: [{ name: "Holder", position: 1 }], botRole: { position: 2 } });
  const app = discord.registerApp({ clientId: APP, redirectUris: ["http://127.0.0.1/discord/callback"] });
  env = cliEnv(undefined, {
    ORD_URL: "http://127.0.0.1:9",
    DISCORD_CLIENT_ID: APP,
    DISCORD_CLIENT_SECRET: "cli",
    DISCORD_BOT_TOKEN: discord.botToken,
    DISCORD_GUILD_ID: guild.id,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_PUBLIC_KEY: app.publicKey,
  });
});
afterAll(() => discord?.close());

describe("spooks-admin discord commands sync", () => {
  it("registers every command in one PUT; again, the same ids; --json answers them as Discord saved them", async () => {
    const first = await runCli(["discord", "commands", "sync", "--json"], env);
    expect(first.code, first.stderr).toBe(0);
    const saved = JSON.parse(first.stdout) as { id: string; name: string; version: string }[];
    expect(saved.map((command) => command.name)).toEqual(COMMAND_REGISTRATIONS.map((command) => command.name));
    expect(discord.guildCommands(guild.id, APP).map(({ id, name }) => ({ id, name }))).toEqual(saved.map(({ id, name }) => ({ id, name })));
    expect(discord.stats().byRoute[PUT]).toBe(1);

    const again = await runCli(["discord", "commands", "sync"], env);
    expect(again.code, again.stderr).toBe(0);
    for (const command of saved) expect(again.stdout).toContain(command.id);
    expect(again.stdout).toContain("/points");
    expect(discord.stats().byRoute[PUT]).toBe(2);
  });

  it("refuses without DISCORD_PUBLIC_KEY, and says what Discord refused", async () => {
    const off = await runCli(["discord", "commands", "sync"], { ...env, DISCORD_PUBLIC_KEY: undefined });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain("Slash commands are not configured: set DISCORD_PUBLIC_KEY");
    discord.removeBotFromGuild(guild.id);
    const refused = await runCli(["discord", "commands", "sync"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Discord answered 403 50001: Missing Access");
  });
});
