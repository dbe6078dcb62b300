/**
 * Configuration, parsed once from the environment (README has the table). Demo mode is on exactly when
 * ORD_URL is unset, and never in production.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import net from "node:net";
import path from "node:path";
import { z } from "zod";
import { isDogecoinAddress, networkOfChain, ORD_CHAINS, parseAddress, type OrdChain } from "../domain/address.ts";
import { parseItemImageUrl } from "../domain/image-hosts.ts";
import { ALG_COSIGNATURE_V1, ALG_ED25519, parseSignerKey, parseVerifierKey } from "../domain/tlog/note.ts";
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from "./logger.server.ts";

const cron = z.string().trim().min(1);

/** PUBLIC_URL: the site's one public origin (scheme, host, port), without path, query or credentials. */
const publicUrl = z
  .url({ protocol: /^https?$/, error: "PUBLIC_URL must be an http:// or https:// URL, e.g. https://spooks.example" })
  .refine((value) => {
    if (!URL.canParse(value)) return true; // the url check above has said so
    const url = new URL(value);
    return url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
  }, "PUBLIC_URL must be an origin only (e.g. https://spooks.example), without path, query or credentials")
  .transform((value) => new URL(value).origin);

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

function isProxyAddress(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split("/");
  if (rest.length > 0 || !net.isIP(address)) return false;
  if (bits === undefined) return true;
  const max = net.isIPv4(address) ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

/**
 * TRUST_PROXY: which peers' X-Forwarded-* headers are believed (Express's `trust proxy`). A hop count, or a
 * comma-separated list of proxy addresses/CIDRs (or loopback, linklocal, uniquelocal). Unset or 0: none.
 * `true` (every hop) is refused: it would let any client choose its own IP and protocol.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((value, ctx): false | number | string[] => {
    if (/^\d+$/.test(value)) return Number(value) === 0 ? false : Number(value);
    if (value === "false") return false;
    const entries = value
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.length === 0 || !entries.every(isProxyAddress)) {
      ctx.addIssue({
        code: "custom",
        message: "TRUST_PROXY must be a hop count (e.g. 1) or a comma-separated list of proxy addresses/CIDRs (e.g. 10.0.0.2,loopback)",
      });
      return z.NEVER;
    }
    return entries;
  });

/** Whether 64 hex digits are a point of Ed25519 (Discord's "Public Key" of an application). */
function isEd25519PublicKey(hex: string): boolean {
  try {
    ed25519.Point.fromHex(hex.toLowerCase());
    return true;
  } catch {
    return false;
  }
}

/** A per-minute request limit; 0 turns the limit off. */
const perMinute = z.coerce.number().int().min(0).max(1_000_000);

/** IMAGE_HOSTS: extra origins pictures may come from (giveaway images kept elsewhere), comma-separated. */
const imageHosts = z
  .string()
  .trim()
  .transform((value, ctx) => {
    const origins: string[] = [];
    for (const entry of value
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean)) {
      const url = URL.canParse(entry) ? new URL(entry) : null;
      if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.origin === "null") {
        ctx.addIssue({ code: "custom", message: `IMAGE_HOSTS: "${entry}" is not an http(s) origin such as https://images.example` });
        return z.NEVER;
      }
      origins.push(url.origin);
    }
    return origins;
  });

/**
 * ITEM_IMAGE_URLS: the outside hosts an item's picture is tried from after the local folder and this site's
 * /content/{id}, in order: comma-separated http(s) URL templates in which `{id}` stands for the inscription id.
 */
const itemImageUrls = z
  .string()
  .trim()
  .transform((value, ctx) => {
    const templates: string[] = [];
    for (const entry of value
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean)) {
      const problem = parseItemImageUrl(entry);
      if (typeof problem === "string") {
        ctx.addIssue({ code: "custom", message: `"${entry}" ${problem}` });
        return z.NEVER;
      }
      templates.push(entry);
    }
    return templates;
  });

/** A yes/no setting: `true` or `false`. */
const booleanText = z.enum(["true", "false"], { error: "must be true or false" }).transform((value) => value === "true");

/** SMTP_URL: nodemailer's connection URL, smtp:// (STARTTLS when offered) or smtps:// (TLS from the start). */
const smtpUrl = z.url({
  protocol: /^smtps?$/,
  error: "SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtps://user:pass@smtp.example:465",
});

/** LOG_WITNESSES: `<verifier key> <url>` pairs, comma-separated (a witness key is a cosignature/v1 key). */
const logWitnesses = z
  .string()
  .trim()
  .transform((text, ctx) => {
    const witnesses: { key: string; url: string }[] = [];
    for (const part of text
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean)) {
      const [key, url, ...rest] = part.split(/\s+/);
      let problem: string | null = null;
      try {
        if (parseVerifierKey(key ?? "").alg !== ALG_COSIGNATURE_V1) problem = "is not a cosignature/v1 witness key";
      } catch (error) {
        problem = (error as Error).message;
      }
      if (!problem && (rest.length > 0 || !url || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))) {
        problem = "must be followed by the witness's http(s) URL";
      }
      if (problem) {
        ctx.addIssue({
          code: "custom",
          message: `LOG_WITNESSES: ${key ?? part} ${problem} (each: "<verifier key> <url>", comma-separated)`,
        });
        return z.NEVER;
      }
      witnesses.push({ key, url: url.replace(/\/+$/, "") });
    }
    return witnesses;
  });

/** LOG_SIGNING_KEY: a signer key string `PRIVATE+KEY+<name>+<id>+<base64>` (`spooks-admin log keygen` prints one). */
const logSigningKey = z
  .string()
  .trim()
  .refine((text) => {
    try {
      return parseSignerKey(text).alg === ALG_ED25519;
    } catch {
      return false;
    }
  }, "LOG_SIGNING_KEY must be a signer key PRIVATE+KEY+<name>+<id>+<base64> (spooks-admin log keygen prints one)");

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().trim().min(1).optional(),
  MIGRATE_DATABASE_URL: z.string().trim().min(1).optional(),
  DATA_DIR: z.string().trim().min(1).default(".data"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().trim().min(1).default("127.0.0.1"),
  ORD_URL: z.url().optional(),
  ORD_CHAIN: z.enum(ORD_CHAINS).default("mainnet"),
  ORD_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(1024 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  ADMIN_ADDRESS: z.string().trim().refine(isDogecoinAddress, "ADMIN_ADDRESS is not a valid Dogecoin address").optional(),
  UPLOAD_DIR: z.string().trim().min(1).optional(),
  PUBLIC_URL: publicUrl.optional(),
  LOG_SIGNING_KEY: logSigningKey.optional(),
  LOG_WITNESSES: logWitnesses.optional(),
  LOG_WITNESS_QUORUM: z.coerce.number().int().min(0).max(16).default(0),
  LOG_CHECKPOINT_INTERVAL_S: z.coerce.number().int().min(1).max(60).default(10),
  TRUST_PROXY: trustProxy.optional(),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(12),
  RATE_LIMIT_SIGNIN_PER_MIN: perMinute.default(30),
  RATE_LIMIT_SIGNED_PER_MIN: perMinute.default(300),
  RATE_LIMIT_CONTENT_PER_MIN: perMinute.default(600),
  RATE_LIMIT_READS_PER_MIN: perMinute.default(600),
  RATE_LIMIT_INTERACTIONS_PER_MIN: perMinute.default(1200),
  RATE_LIMIT_EMAIL_PER_MIN: perMinute.default(5),
  RATE_LIMIT_DISCORD_LINK_PER_MIN: perMinute.default(10),
  RATE_LIMIT_LOG_PER_MIN: perMinute.default(12_000),
  IMAGE_HOSTS: imageHosts.optional(),
  ITEM_IMAGE_URLS: itemImageUrls.optional(),
  CONTENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(5 * 1024 * 1024),
  CONTENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  INDEXER_SYNC_CRON: cron.default("* * * * *"),
  INDEXER_ACCRUAL_CRON: cron.default("0 * * * *"),
  INDEXER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  INDEXER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  INDEXER_VALIDATE_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  INDEXER_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  ACCRUAL_CATCHUP_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 365)
    .default(72),
  LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
  LOG_FORMAT: z.enum(LOG_FORMATS).optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().trim().min(1).default("127.0.0.1"),
  INDEXER_STALE_AFTER_S: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(600),
  NOTIFY_INTERVAL_S: z.coerce.number().min(0.05).max(3600).default(10),
  DISCORD_WEBHOOK_URL: z
    .url({
      protocol: /^https?$/,
      error: "DISCORD_WEBHOOK_URL must be a Discord channel webhook URL (https://discord.com/api/webhooks/{id}/{token})",
    })
    .refine(
      (url) => /\/webhooks\/\d{17,20}\/[^/]+\/?$/.test(new URL(url).pathname),
      "DISCORD_WEBHOOK_URL must be a Discord channel webhook URL (https://discord.com/api/webhooks/{id}/{token})",
    )
    .optional(),
  // Signed webhooks and email (issue 24; docs/notifications.md).
  // Unset: false, except in demo mode (no ORD_URL), where a webhook to a local receiver is the way to try one.
  WEBHOOK_ALLOW_PRIVATE: booleanText.optional(),
  SMTP_URL: smtpUrl.optional(),
  MAIL_FROM: z.string().trim().min(3).max(320).optional(),
  MAIL_DKIM_DOMAIN: z.string().trim().min(1).optional(),
  MAIL_DKIM_SELECTOR: z.string().trim().min(1).optional(),
  MAIL_DKIM_KEY_FILE: z.string().trim().min(1).optional(),
  DISCORD_CLIENT_ID: z
    .string()
    .trim()
    .regex(/^\d{17,20}$/, "DISCORD_CLIENT_ID must be the application's id (17-20 digits)")
    .optional(),
  DISCORD_CLIENT_SECRET: z.string().trim().min(1).optional(),
  DISCORD_BOT_TOKEN: z.string().trim().min(1).optional(),
  DISCORD_GUILD_ID: z
    .string()
    .trim()
    .regex(/^\d{17,20}$/, "DISCORD_GUILD_ID must be the server's id (17-20 digits)")
    .optional(),
  DISCORD_API_URL: z.url({ protocol: /^https?$/ }).default("https://discord.com/api"),
  DISCORD_AUTHORIZE_URL: z.url({ protocol: /^https?$/ }).default("https://discord.com/oauth2/authorize"),
  DISCORD_SYNC_INTERVAL_S: z.coerce.number().int().min(1).max(3600).default(15),
  // Slash commands over HTTP (issue 37; docs/discord.md "Slash commands").
  DISCORD_PUBLIC_KEY: z
    .string()
    .trim()
    .regex(
      /^[0-9a-fA-F]{64}$/,
      "DISCORD_PUBLIC_KEY must be the application's public key: 64 hex digits (developer portal, General Information)",
    )
    .refine(isEd25519PublicKey, "DISCORD_PUBLIC_KEY is not an Ed25519 public key (copy it again from the developer portal)")
    .transform((key) => key.toLowerCase())
    .optional(),
  DISCORD_DEFER_AFTER_MS: z.coerce.number().int().min(0).max(2500).default(400),
  DISCORD_SWEEP_INTERVAL_H: z.coerce
    .number()
    .positive()
    .max(24 * 7)
    .default(6),
});

/** The four settings that turn Discord holder roles on (all or none). */
export const DISCORD_SETTINGS = ["DISCORD_CLIENT_ID", "DISCORD_CLIENT_SECRET", "DISCORD_BOT_TOKEN", "DISCORD_GUILD_ID"] as const;

/** Discord holder roles (issue 25, docs/discord.md); absent when the four settings are unset: the feature is off. */
export type DiscordConfig = {
  clientId: string;
  clientSecret: string;
  botToken: string;
  guildId: string;
  /** What @discordjs/rest takes as `api` (it adds /v10). */
  apiUrl: string;
  authorizeUrl: string;
  /** How often the indexer's role sync compares earned roles with granted ones (DISCORD_SYNC_INTERVAL_S). */
  syncIntervalMs: number;
  /** How often the reconciliation sweep reads every linked member from Discord (DISCORD_SWEEP_INTERVAL_H). */
  sweepIntervalMs: number;
  /** Slash commands (issue 37): the application's Ed25519 public key (hex); absent: POST /api/discord/interactions is 404. */
  publicKey?: string;
  /** A command's answer not ready within this is deferred (type 5) and edited in later (DISCORD_DEFER_AFTER_MS). */
  deferAfterMs?: number;
};

export type Config = {
  nodeEnv: "development" | "production" | "test";
  databaseUrl?: string;
  /** The owner role migrations run as (DATABASE_URL's role when unset); only with DATABASE_URL. */
  migrateDatabaseUrl?: string;
  dataDir: string;
  port: number;
  host: string;
  ordUrl?: string;
  demo: boolean;
  /** Set from ADMIN_ADDRESS, or in demo mode from the demo admin key once it is known. */
  adminAddress?: string;
  uploadDir: string;
  /** The site's public origin (PUBLIC_URL, e.g. https://spooks.example); required in production. */
  publicUrl?: string;
  /** Express's `trust proxy`: which peers' X-Forwarded-* are believed (TRUST_PROXY); false = none. */
  trustProxy: false | number | string[];
  /** How long an admin session lasts (SESSION_TTL_HOURS, default 12 h). */
  sessionTtlMs: number;
  /** Requests per minute per client IP (0 = off): sign-in and challenge, other signed actions, /content, and the rest. */
  rateLimits: {
    signInPerMin: number;
    signedPerMin: number;
    contentPerMin: number;
    readsPerMin: number;
    /** POST /api/discord/interactions (RATE_LIMIT_INTERACTIONS_PER_MIN). */
    interactionsPerMin: number;
    /** POST /api/notifications/email (RATE_LIMIT_EMAIL_PER_MIN): each may queue a confirmation mail. */
    emailPerMin: number;
    /** GET /discord/link (RATE_LIMIT_DISCORD_LINK_PER_MIN): each anonymous start stores a row. */
    discordLinkPerMin: number;
    /** The public log's files (RATE_LIMIT_LOG_PER_MIN), counted in each web process's memory. */
    logPerMin: number;
  };
  /** Origins besides the item image hosts (ITEM_IMAGE_URLS) that pictures may be loaded from (IMAGE_HOSTS). */
  imageHosts: string[];
  /** Outside URL templates (`{id}` = inscription id) an item's picture falls back to, in order (ITEM_IMAGE_URLS). */
  itemImageUrls: string[];
  /** GET /content/{id}: largest inscription content fetched from ORD_URL and cached, and that fetch's timeout. */
  content: { maxBytes: number; timeoutMs: number };
  indexer: {
    syncCron: string;
    accrualCron: string;
    concurrency: number;
    timeoutMs: number;
    /** A validate batch's own timeout (INDEXER_VALIDATE_TIMEOUT_MS): each id costs the ord server a node call. */
    validateTimeoutMs: number;
    retries: number;
    catchUpHours: number;
    /** The chain ord answers must be about (ORD_CHAIN); answers about another, or naming its addresses, are errors. */
    chain: OrdChain;
    /** Largest decoded ord answer accepted (ORD_MAX_BODY_BYTES): wonky-ord inlines each item's content. */
    maxBodyBytes: number;
  };
  /** LOG_LEVEL; unset: info, or warn for the CLI and under NODE_ENV=test (app/utils/logger.server.ts). */
  logLevel?: LogLevel;
  /** LOG_FORMAT; unset: readable in development on a terminal, JSON otherwise. */
  logFormat?: LogFormat;
  /**
   * The private operations listener (server/ops-server.ts): /metrics, and the indexer's /health, on METRICS_PORT
   * (unset: none) at METRICS_HOST (default loopback), never on the public port. The indexer is unhealthy when no
   * ownership pass was applied for INDEXER_STALE_AFTER_S seconds (held-back passes do not count).
   */
  ops: { metricsPort?: number; metricsHost: string; indexerStaleAfterSeconds: number };
  /**
   * Notifications (docs/notifications.md): the indexer's worker runs every NOTIFY_INTERVAL_S seconds (default 10);
   * with DISCORD_WEBHOOK_URL every public event is posted to that Discord channel webhook.
   */
  notifications: { intervalS: number; discordWebhookUrl?: string };
  /** Signed webhooks: WEBHOOK_ALLOW_PRIVATE also allows http and private/loopback destinations (tests, demo). */
  webhooks: { allowPrivate: boolean };
  /**
   * Email (SMTP_URL, MAIL_FROM; DKIM signing with MAIL_DKIM_*). Email is on when both are set, or in demo mode,
   * where mail is captured for the admin's outbox view instead of sent (`capture`).
   */
  mail: {
    smtpUrl?: string;
    from?: string;
    capture: boolean;
    dkim?: { domainName: string; keySelector: string; keyFile: string };
  };
  /**
   * The public log (docs/transparency.md): LOG_SIGNING_KEY (unset: a key made once and kept), the witnesses
   * each checkpoint goes to (LOG_WITNESSES), how many cosignatures browsers and `log verify` require
   * (LOG_WITNESS_QUORUM, default 0) and how often new entries are integrated and signed (LOG_CHECKPOINT_INTERVAL_S).
   */
  log: { signingKey?: string; witnesses: { key: string; url: string }[]; quorum: number; intervalS: number };
  /** Discord holder roles; undefined: off (no page, route or tab of it shows). */
  discord?: DiscordConfig;
};

export class ConfigError extends Error {}

/** Discord's own hosts of channel webhooks (the app's, its canary and PTB clients', the old domain). */
const DISCORD_WEBHOOK_HOSTS = new Set(["discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com"]);

/**
 * DISCORD_WEBHOOK_URL goes only to Discord: https on one of its hosts, or, when DISCORD_API_URL is set (a double
 * in tests and the demo), on that URL's origin. The worker posts there with no other check (issue 32, item 8).
 */
function checkDiscordWebhookUrl(text: string, apiUrl: string | undefined): void {
  const url = new URL(text);
  const discordHost = url.protocol === "https:" && DISCORD_WEBHOOK_HOSTS.has(url.hostname) && url.port === "";
  const apiOrigin = apiUrl !== undefined && url.origin === new URL(apiUrl).origin;
  if ((!discordHost && !apiOrigin) || url.username || url.password) {
    throw new ConfigError(
      "DISCORD_WEBHOOK_URL must be https on a Discord host (https://discord.com/api/webhooks/{id}/{token}), or on the origin of DISCORD_API_URL when that is set",
    );
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== "")));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${issue.path.join(".")}: ${issue.message}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === "production" && !e.ORD_URL) {
    throw new ConfigError("ORD_URL is not set: demo mode (simulated chain, demo wallets) never runs with NODE_ENV=production");
  }
  if (e.NODE_ENV === "production" && !e.ADMIN_ADDRESS) {
    throw new ConfigError("ADMIN_ADDRESS is required with NODE_ENV=production");
  }
  const adminNetwork = e.ADMIN_ADDRESS && parseAddress(e.ADMIN_ADDRESS).network;
  if (adminNetwork && adminNetwork !== networkOfChain(e.ORD_CHAIN)) {
    // wonky-ord names holders on testnet, signet and regtest alike with 0x71 (n…) addresses, on mainnet D….
    const expected = networkOfChain(e.ORD_CHAIN) === "mainnet" ? "a mainnet address (D…)" : "a test-chain address (n…)";
    throw new ConfigError(`ADMIN_ADDRESS: with ORD_CHAIN=${e.ORD_CHAIN} it must be ${expected}, as the ord server names holders`);
  }
  if (e.MIGRATE_DATABASE_URL && !e.DATABASE_URL) {
    throw new ConfigError("MIGRATE_DATABASE_URL is set without DATABASE_URL: the embedded database migrates as its own owner role");
  }
  const dkimSettings = [e.MAIL_DKIM_DOMAIN, e.MAIL_DKIM_SELECTOR, e.MAIL_DKIM_KEY_FILE].filter(Boolean).length;
  if (dkimSettings !== 0 && dkimSettings !== 3) {
    throw new ConfigError("MAIL_DKIM_DOMAIN, MAIL_DKIM_SELECTOR and MAIL_DKIM_KEY_FILE go together: set all three or none");
  }
  if (e.NODE_ENV === "production" && e.WEBHOOK_ALLOW_PRIVATE) {
    throw new ConfigError(
      "WEBHOOK_ALLOW_PRIVATE=true is for tests and the demo: with NODE_ENV=production webhooks go to public https URLs only",
    );
  }
  if (e.SMTP_URL && !e.MAIL_FROM) throw new ConfigError("SMTP_URL is set without MAIL_FROM: the address mail is sent from");
  if (e.DISCORD_WEBHOOK_URL) checkDiscordWebhookUrl(e.DISCORD_WEBHOOK_URL, env.DISCORD_API_URL ? e.DISCORD_API_URL : undefined);
  const dataDir = path.resolve(e.DATA_DIR);
  const discordSet = DISCORD_SETTINGS.filter((name) => e[name] !== undefined);
  if (e.DISCORD_PUBLIC_KEY && discordSet.length === 0) {
    throw new ConfigError(
      `DISCORD_PUBLIC_KEY is set without ${DISCORD_SETTINGS.join(", ")}: slash commands need Discord holder roles configured`,
    );
  }
  if (discordSet.length > 0 && discordSet.length < DISCORD_SETTINGS.length) {
    const missing = DISCORD_SETTINGS.filter((name) => e[name] === undefined);
    throw new ConfigError(
      `${missing.join(", ")}: Discord holder roles need all of ${DISCORD_SETTINGS.join(", ")} (or none: the feature is off)`,
    );
  }
  if (e.LOG_WITNESS_QUORUM > (e.LOG_WITNESSES ?? []).length) {
    throw new ConfigError(
      `LOG_WITNESS_QUORUM is ${e.LOG_WITNESS_QUORUM} but LOG_WITNESSES lists ${(e.LOG_WITNESSES ?? []).length} witness(es)`,
    );
  }
  return {
    nodeEnv: e.NODE_ENV,
    databaseUrl: e.DATABASE_URL,
    migrateDatabaseUrl: e.MIGRATE_DATABASE_URL,
    dataDir,
    port: e.PORT,
    host: e.HOST,
    ordUrl: e.ORD_URL?.replace(/\/+$/, ""),
    demo: !e.ORD_URL,
    adminAddress: e.ADMIN_ADDRESS,
    uploadDir: path.resolve(e.UPLOAD_DIR ?? path.join(dataDir, "uploads")),
    publicUrl: e.PUBLIC_URL,
    trustProxy: e.TRUST_PROXY ?? false,
    sessionTtlMs: Math.round(e.SESSION_TTL_HOURS * 3_600_000),
    rateLimits: {
      signInPerMin: e.RATE_LIMIT_SIGNIN_PER_MIN,
      signedPerMin: e.RATE_LIMIT_SIGNED_PER_MIN,
      contentPerMin: e.RATE_LIMIT_CONTENT_PER_MIN,
      readsPerMin: e.RATE_LIMIT_READS_PER_MIN,
      interactionsPerMin: e.RATE_LIMIT_INTERACTIONS_PER_MIN,
      emailPerMin: e.RATE_LIMIT_EMAIL_PER_MIN,
      discordLinkPerMin: e.RATE_LIMIT_DISCORD_LINK_PER_MIN,
      logPerMin: e.RATE_LIMIT_LOG_PER_MIN,
    },
    imageHosts: e.IMAGE_HOSTS ?? [],
    itemImageUrls: e.ITEM_IMAGE_URLS ?? [],
    content: { maxBytes: e.CONTENT_MAX_BYTES, timeoutMs: e.CONTENT_TIMEOUT_MS },
    indexer: {
      syncCron: e.INDEXER_SYNC_CRON,
      accrualCron: e.INDEXER_ACCRUAL_CRON,
      concurrency: e.INDEXER_CONCURRENCY,
      timeoutMs: e.INDEXER_TIMEOUT_MS,
      validateTimeoutMs: e.INDEXER_VALIDATE_TIMEOUT_MS,
      retries: e.INDEXER_RETRIES,
      catchUpHours: e.ACCRUAL_CATCHUP_HOURS,
      chain: e.ORD_CHAIN,
      maxBodyBytes: e.ORD_MAX_BODY_BYTES,
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    ops: { metricsPort: e.METRICS_PORT, metricsHost: e.METRICS_HOST, indexerStaleAfterSeconds: e.INDEXER_STALE_AFTER_S },
    notifications: { intervalS: e.NOTIFY_INTERVAL_S, discordWebhookUrl: e.DISCORD_WEBHOOK_URL },
    webhooks: { allowPrivate: e.WEBHOOK_ALLOW_PRIVATE ?? !e.ORD_URL },
    log: {
      signingKey: e.LOG_SIGNING_KEY,
      witnesses: e.LOG_WITNESSES ?? [],
      quorum: e.LOG_WITNESS_QUORUM,
      intervalS: e.LOG_CHECKPOINT_INTERVAL_S,
    },
    mail: {
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM ?? (e.ORD_URL ? undefined : DEMO_MAIL_FROM),
      // Demo mode without SMTP_URL: nothing leaves the machine.
      capture: !e.ORD_URL && !e.SMTP_URL,
      dkim:
        e.MAIL_DKIM_DOMAIN && e.MAIL_DKIM_SELECTOR && e.MAIL_DKIM_KEY_FILE
          ? { domainName: e.MAIL_DKIM_DOMAIN, keySelector: e.MAIL_DKIM_SELECTOR, keyFile: path.resolve(e.MAIL_DKIM_KEY_FILE) }
          : undefined,
    },
    discord:
      e.DISCORD_CLIENT_ID && e.DISCORD_CLIENT_SECRET && e.DISCORD_BOT_TOKEN && e.DISCORD_GUILD_ID
        ? {
            clientId: e.DISCORD_CLIENT_ID,
            clientSecret: e.DISCORD_CLIENT_SECRET,
            botToken: e.DISCORD_BOT_TOKEN,
            guildId: e.DISCORD_GUILD_ID,
            apiUrl: e.DISCORD_API_URL.replace(/\/+$/, ""),
            authorizeUrl: e.DISCORD_AUTHORIZE_URL,
            syncIntervalMs: e.DISCORD_SYNC_INTERVAL_S * 1000,
            sweepIntervalMs: Math.round(e.DISCORD_SWEEP_INTERVAL_H * 3_600_000),
            ...(e.DISCORD_PUBLIC_KEY ? { publicKey: e.DISCORD_PUBLIC_KEY, deferAfterMs: e.DISCORD_DEFER_AFTER_MS } : {}),
          }
        : undefined,
  };
}

/** The sender of demo mode's captured mail when MAIL_FROM is unset. */
export const DEMO_MAIL_FROM = "Spooks <notifications@spooks.invalid>";

/**
 * What the web server needs beyond loadConfig (the indexer and the CLI do not serve pages): in production
 * one public origin, to which sign-in challenges, cookies and the CSRF check are bound.
 */
export function checkWebServerConfig(config: Config): void {
  if (config.nodeEnv === "production" && !config.publicUrl) {
    throw new ConfigError(
      "PUBLIC_URL is required with NODE_ENV=production: the site's public origin (e.g. https://spooks.example), which sign-in challenges and cookies are bound to",
    );
  }
}
