/**
 * The load side of `bench/discord.ts interactions`, in a worker thread (its own event loop, as Discord is its
 * own machine): the Discord double with its guild, members and application, which signs and sends each
 * slash command to the site and times its answer; and the same loop over GET /api/health for the baseline.
 */
import { parentPort, workerData } from "node:worker_threads";
import { startDiscordDouble } from "../doubles/discord/discord-double.server.ts";

export type PlannedCommand = { userId: string; name: string; options?: Record<string, string | number> };
export type CommandTiming = { name: string; ms: number; status: number | null; deferred: boolean; finalMs: number; failure: string | null };
export type WorkerMessage =
  | { kind: "interactions"; endpointUrl: string; plan: PlannedCommand[]; concurrency: number }
  | { kind: "health"; url: string; requests: number; concurrency: number }
  | { kind: "close" };

const port = parentPort!;
const { members, clientId } = workerData as { members: number; clientId: string };

const discord = await startDiscordDouble({
  globalPerSecond: 100_000,
  rateLimits: { "interaction-webhook": { limit: 100_000, windowMs: 1000 } },
});
const guild = discord.createGuild({ roles: [{ name: "Holder", position: 1 }], botRole: { position: 2 } });
const userIds = Array.from({ length: members }, (_, index) => {
  const user = discord.createUser({ username: `member${index}` });
  discord.addMember(guild.id, user.id);
  return user.id;
});
const app = discord.registerApp({ clientId, clientSecret: "bench", redirectUris: ["http://127.0.0.1/discord/callback"] });

/** Runs `work` over `items`, `concurrency` at a time; answers the results in order. */
async function pool<T, R>(items: T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]);
      }
    }),
  );
  return results;
}

async function interactions(endpointUrl: string, plan: PlannedCommand[], concurrency: number): Promise<CommandTiming[]> {
  await discord.setInteractionsEndpoint(endpointUrl, clientId);
  return pool(plan, concurrency, async ({ userId, name, options }) => {
    const sent = await discord.sendCommand({ clientId, guildId: guild.id, userId, name, options });
    const deferred = (sent.response as { type?: number } | null)?.type === 5;
    let finalMs = sent.elapsedMs;
    if (deferred) {
      const seen = await discord.waitForInteractionMessage(sent.id, 15_000);
      finalMs = (seen.edits.at(-1)?.at ?? Date.now()) - seen.sentAt;
    }
    return { name, ms: sent.elapsedMs, status: sent.status, deferred, finalMs, failure: sent.failure };
  });
}

async function health(url: string, requests: number, concurrency: number): Promise<number[]> {
  return pool(Array.from({ length: requests }), concurrency, async () => {
    const started = performance.now();
    const response = await fetch(url);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET /api/health answered ${response.status}`);
    return performance.now() - started;
  });
}

port.on("message", (message: WorkerMessage) => {
  const reply = (work: Promise<unknown>) =>
    work.then(
      (result) => port.postMessage({ ok: true, result }),
      (error: Error) => port.postMessage({ ok: false, error: error.stack ?? error.message }),
    );
  if (message.kind === "interactions") void reply(interactions(message.endpointUrl, message.plan, message.concurrency));
  else if (message.kind === "health") void reply(health(message.url, message.requests, message.concurrency));
  else void discord.close().then(() => port.close());
});

port.postMessage({
  ok: true,
  result: {
    apiUrl: discord.apiUrl,
    authorizeUrl: discord.authorizeUrl,
    botToken: discord.botToken,
    guildId: guild.id,
    publicKey: app.publicKey,
    userIds,
  },
});
