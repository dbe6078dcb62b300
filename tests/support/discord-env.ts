/** The settings that point the app at a Discord double's guild, as the API tests start the app with them. */
import type { DiscordDouble } from "../../doubles/discord/discord-double.server.ts";

export const TEST_DISCORD_CLIENT_ID = "1100000000000000001";

export function discordEnv(discord: DiscordDouble, guildId: string, clientSecret = "test-secret"): Record<string, string> {
  return {
    DISCORD_CLIENT_ID: TEST_DISCORD_CLIENT_ID,
    DISCORD_CLIENT_SECRET: clientSecret,
    DISCORD_BOT_TOKEN: discord.botToken,
    DISCORD_GUILD_ID: guildId,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_AUTHORIZE_URL: discord.authorizeUrl,
  };
}
