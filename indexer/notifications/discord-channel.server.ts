/**
 * The Discord channel (issue 24 item 4; docs/notifications.md "Discord channel"): every public event posted to
 * the channel webhook of DISCORD_WEBHOOK_URL as one embed, `?wait=true`, mentioning nobody, within Discord's
 * limits (REAL-WORLD.md "Channel webhooks"). A 429 is retried after its Retry-After (and an exhausted bucket is
 * waited out before the next post); 5xx and network failures are retried on a schedule; a 404 (the webhook is
 * gone) or 401 (its token is wrong) disables the channel for that URL (migration 0019) and the admin is shown
 * why: Discord bans an address that keeps calling a dead webhook. Plain fetch: executing a webhook takes no
 * bot token, and the worker, not a client library, owns the retries.
 */
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";
import { createHash } from "node:crypto";
import { nowMs } from "../../app/domain/clock.ts";
import type { Logger } from "../../app/utils/logger.server.ts";
import type { Queryable } from "../../db/client.server.ts";
import { channelState, setChannelDisabled } from "../../db/queries/notifications.server.ts";
import type { DeliveryAttempt, DeliveryResult, NotificationChannel, OutboxEvent } from "./channel.server.ts";

/** Discord's limits on one embed (REAL-WORLD.md): title 256, description 4,096, footer 2,048, all texts 6,000. */
export const DISCORD_LIMITS = { title: 256, description: 4096, footer: 2048, total: 6000 } as const;

/** Waits after a failed post (5xx, network), by attempt; then the delivery fails for good. */
export const DISCORD_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];

const EVENT_COLOURS: Record<string, number> = {
  "giveaway.opened": 0xf97316,
  "giveaway.closing_soon": 0xfbbf24,
  "giveaway.drawn": 0x22c55e,
  "proposal.opened": 0x8b5cf6,
  "proposal.closing_soon": 0xa78bfa,
  "proposal.closed": 0x6366f1,
};

export type DiscordChannelOptions = {
  webhookUrl: string;
  /** PUBLIC_URL: the embed links to the site's page; without it the embed carries no link. */
  publicUrl?: string;
  timeoutMs?: number;
  retryDelaysMs?: readonly number[];
  logger?: Pick<Logger, "error" | "warn">;
  fetch?: typeof fetch;
};

/**
 * `text` cut to at most `max` UTF-16 units (Discord's count, never fewer than the code points), ending in "…" when
 * cut, never splitting a surrogate pair.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // a high surrogate whose low half would be cut off
  return `${text.slice(0, end)}…`;
}

/** The webhook body for an event (or a test): one embed within the limits, no mentions. */
export function discordMessage(event: Pick<OutboxEvent, "event" | "title" | "body" | "link" | "occurredAt">, publicUrl?: string) {
  const title = truncate(event.title.trim() || event.event, DISCORD_LIMITS.title);
  const footer = truncate(`Spooks · ${event.event}`, DISCORD_LIMITS.footer);
  const room = DISCORD_LIMITS.total - title.length - footer.length;
  const description = truncate(event.body.trim() || title, Math.min(DISCORD_LIMITS.description, room));
  const url = publicUrl ? new URL(event.link, publicUrl).toString() : undefined;
  return {
    embeds: [
      {
        title,
        description,
        ...(url && { url }),
        timestamp: event.occurredAt.toISOString(),
        color: EVENT_COLOURS[event.event] ?? 0x64748b,
        footer: { text: footer },
      },
    ],
    allowed_mentions: { parse: [] as string[] },
  };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A short account of what Discord answered, for the admin. */
async function answerText(response: Response): Promise<string> {
  const text = withoutControlCharacters(await response.text().catch(() => "")).slice(0, 500);
  return `${response.status}${text ? ` ${text}` : ""}`;
}

export type DiscordChannel = NotificationChannel & {
  name: "discord";
  /** SHA-256 of the webhook URL: the key of its disabled state. */
  destination: string;
  /** Whether the channel is disabled for this URL, and why. */
  disabled(sql: Queryable): Promise<string | null>;
};

export function discordChannel(options: DiscordChannelOptions): DiscordChannel {
  const { webhookUrl, publicUrl, timeoutMs = 15_000, retryDelaysMs = DISCORD_RETRY_DELAYS_MS, logger } = options;
  const doFetch = options.fetch ?? fetch;
  const destination = sha256(webhookUrl);
  const postUrl = new URL(webhookUrl);
  postUrl.searchParams.set("wait", "true");
  /** Until when Discord's bucket is empty (X-RateLimit-Remaining 0, or a 429): no post before then. */
  let waitUntil = 0;

  const disabled = async (sql: Queryable) => {
    const state = await channelState(sql, "discord");
    return state && state.destinationSha256 === destination && state.disabledAt ? state.disabledReason : null;
  };

  const later = (delivery: DeliveryAttempt) => retryDelaysMs[Math.min(delivery.attempts, retryDelaysMs.length - 1)];

  return {
    name: "discord",
    destination,
    disabled,
    async targets(_sql, event) {
      return event.recipient === null ? [""] : [];
    },
    targetsKey: (event) => (event.recipient === null ? "public" : "personal"),
    async deliver(sql, event, delivery): Promise<DeliveryResult> {
      const reason = event.test ? null : await disabled(sql);
      if (reason) return { outcome: "failed", error: `The Discord channel is disabled: ${reason}` };
      if (nowMs() < waitUntil) {
        return { outcome: "retry", retryAt: new Date(waitUntil), error: "Waiting for Discord's rate limit to reset" };
      }
      let response: Response;
      try {
        response = await doFetch(postUrl, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "Spooks notifications" },
          body: JSON.stringify(discordMessage(event, publicUrl)),
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const message = withoutControlCharacters(error instanceof Error ? error.message : String(error));
        if (delivery.attempts + 1 >= retryDelaysMs.length + 1) return { outcome: "failed", error: `Discord did not answer: ${message}` };
        return { outcome: "retry", retryAt: new Date(nowMs() + later(delivery)), error: `Discord did not answer: ${message}` };
      }
      const remaining = response.headers.get("x-ratelimit-remaining");
      const resetAfter = Number(response.headers.get("x-ratelimit-reset-after"));
      if (remaining === "0" && Number.isFinite(resetAfter)) waitUntil = Math.max(waitUntil, nowMs() + resetAfter * 1000);
      if (response.ok) {
        await response.body?.cancel().catch(() => {});
        // A test Discord accepted enables the channel again (the admin fixed the webhook).
        if (event.test && (await disabled(sql))) await setChannelDisabled(sql, "discord", destination, null);
        return { outcome: "delivered", statusCode: response.status };
      }
      const statusCode = response.status;
      if (statusCode === 429) {
        const body = (await response.json().catch(() => ({}))) as { retry_after?: unknown };
        const seconds = Math.max(Number(response.headers.get("retry-after")) || 0, Number(body.retry_after) || 0, 0.05);
        waitUntil = Math.max(waitUntil, nowMs() + seconds * 1000 + 50);
        return { outcome: "retry", retryAt: new Date(waitUntil), statusCode, error: `429 rate limited: retry after ${seconds} s` };
      }
      const answer = await answerText(response);
      if (statusCode === 404 || statusCode === 401) {
        const why = `Discord answered ${answer}: the webhook is ${statusCode === 404 ? "gone" : "refused (wrong token)"}. Set a new DISCORD_WEBHOOK_URL, or send a test once it is fixed.`;
        await setChannelDisabled(sql, "discord", destination, why);
        logger?.error({ msg: "Discord channel disabled", statusCode, reason: why });
        return { outcome: "failed", statusCode, error: answer };
      }
      if (statusCode >= 500 && delivery.attempts < retryDelaysMs.length) {
        return { outcome: "retry", retryAt: new Date(nowMs() + later(delivery)), statusCode, error: answer };
      }
      return { outcome: "failed", statusCode, error: answer };
    },
  };
}
