/**
 * The Discord double as a program of its own, so demo mode (and a person trying the linking by hand) can run
 * it beside the site: `node --import tsx doubles/discord/main.ts`. It prints one JSON line with what the site
 * needs (DISCORD_API_URL, DISCORD_AUTHORIZE_URL, the client id and secret, the bot token, the guild id, a
 * channel webhook URL and the app's DISCORD_PUBLIC_KEY). A few demo users exist; nobody is logged in, so the
 * authorize page asks whom to authorize as. Settings: PORT (default 8090), HOST (default 127.0.0.1),
 * DISCORD_REDIRECT_URI (default http://localhost:3000/discord/callback), DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET,
 * DISCORD_BOT_TOKEN, and DISCORD_INTERACTIONS_URL (the site's /api/discord/interactions: set as the app's
 * Interactions Endpoint URL once the site answers its PING, tried every 2 s).
 * Everything lives in memory: a restart begins again.
 */
import { startDiscordDouble } from "./discord-double.server.ts";

const DEMO_ROLES = [
  { name: "Holder", position: 1 },
  { name: "Staker", position: 2 },
  { name: "Legendary Staker", position: 3 },
  { name: "Moderator", position: 5 },
];
const DEMO_USERS = ["ghostly", "pumpkin", "wraith"];

function settings(env: NodeJS.ProcessEnv) {
  const port = Number(env.PORT ?? 8090);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("PORT must be a port number");
  const redirectUri = env.DISCORD_REDIRECT_URI ?? "http://localhost:3000/discord/callback";
  if (!URL.canParse(redirectUri)) throw new Error("DISCORD_REDIRECT_URI must be a URL");
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    redirectUri,
    clientId: env.DISCORD_CLIENT_ID || undefined,
    clientSecret: env.DISCORD_CLIENT_SECRET || undefined,
    botToken: env.DISCORD_BOT_TOKEN || undefined,
    interactionsUrl: env.DISCORD_INTERACTIONS_URL || undefined,
  };
}

/** Sets the Interactions Endpoint URL as soon as the site answers Discord's check (it may start after the double). */
async function connectWhenUp(setEndpoint: () => Promise<void>, url: string) {
  for (;;) {
    try {
      await setEndpoint();
      console.log(JSON.stringify({ msg: "Interactions Endpoint URL set", url }));
      return;
    } catch (error) {
      console.log(
        JSON.stringify({ msg: "Interactions Endpoint URL not accepted yet; trying again in 2 s", reason: (error as Error).message }),
      );
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

async function main() {
  const { port, host, redirectUri, clientId, clientSecret, botToken, interactionsUrl } = settings(process.env);
  const discord = await startDiscordDouble({ port, host, botToken });
  const app = discord.registerApp({ clientId, clientSecret, redirectUris: [redirectUri] });
  // The bot's role sits above the holder roles and below the moderators', as docs/discord.md will advise.
  const guild = discord.createGuild({ name: "Spooks (double)", roles: DEMO_ROLES, botRole: { position: 4 } });
  for (const username of DEMO_USERS) discord.addMember(guild.id, discord.createUser({ username, globalName: username }).id);
  const webhook = discord.createWebhook({ name: "Spooks announcements" });
  console.log(
    JSON.stringify({
      msg: "Discord double listening",
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_AUTHORIZE_URL: discord.authorizeUrl,
      DISCORD_CLIENT_ID: app.clientId,
      DISCORD_CLIENT_SECRET: app.clientSecret,
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_GUILD_ID: guild.id,
      DISCORD_WEBHOOK_URL: webhook.url,
      DISCORD_PUBLIC_KEY: app.publicKey,
      roles: guild.roles,
    }),
  );
  if (interactionsUrl) void connectWhenUp(() => discord.setInteractionsEndpoint(interactionsUrl, app.clientId), interactionsUrl);
  const stop = () => void discord.close().then(() => process.exit(0));
  process.once("SIGTERM", stop).once("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
