/**
 * Registering the slash commands (issue 37): one bulk overwrite of the guild's commands
 * (PUT /applications/{DISCORD_CLIENT_ID}/guilds/{DISCORD_GUILD_ID}/commands), at the web server's start and by
 * `spooks-admin discord commands sync`; and what the admin's Discord tab shows of them.
 */
import { Routes, type RESTPutAPIApplicationGuildCommandsResult } from "discord-api-types/v10";
import { COMMAND_REGISTRATIONS } from "../domain/discord-commands.ts";
import { discordClient, type DiscordClient } from "./discord.server.ts";
import type { DiscordConfig } from "./env.server.ts";
import type { Logger } from "./logger.server.ts";

export type RegisteredCommand = { id: string; name: string; description: string; version: string };

/** Replaces the guild's commands with ours in one PUT; answers them as Discord saved them. */
export async function syncCommands(config: DiscordConfig, client: DiscordClient = discordClient(config)): Promise<RegisteredCommand[]> {
  const saved = (await client.rest.put(Routes.applicationGuildCommands(config.clientId, config.guildId), {
    body: COMMAND_REGISTRATIONS,
  })) as RESTPutAPIApplicationGuildCommandsResult;
  return saved.map(({ id, name, description, version }) => ({ id, name, description, version }));
}

/**
 * At the web server's start, when slash commands are on (DISCORD_PUBLIC_KEY): registered in the background. A
 * failure is logged, never fatal: the site serves without it, and `spooks-admin discord commands sync` retries.
 */
export async function registerCommandsAtStart(config: DiscordConfig | undefined, logger: Logger): Promise<void> {
  if (!config?.publicKey) return;
  try {
    const saved = await syncCommands(config);
    logger.info({ msg: "Discord slash commands registered", commands: saved.map((command) => command.name) });
  } catch (error) {
    logger.warn({
      msg: "Discord slash commands could not be registered; run `spooks-admin discord commands sync` once Discord answers",
      err: error,
    });
  }
}

/** GET /api/admin/discord/commands. */
export function commandsView(config: DiscordConfig | undefined, origin: string) {
  return {
    enabled: Boolean(config?.publicKey),
    endpointUrl: `${origin}/api/discord/interactions`,
    commands: COMMAND_REGISTRATIONS.map(({ name, description, options }) => ({
      name,
      description,
      options: options.map((option) => ({
        name: option.name,
        description: option.description,
        type: option.type,
        required: "required" in option && option.required === true,
      })),
    })),
  };
}
