/**
 * Configuration, parsed once from the environment (README has the table). Demo mode is on exactly when
 * ORD_URL is unset, and never in production.
 */
import path from "node:path";
import { z } from "zod";
import { isDogecoinAddress } from "../domain/address.ts";

const cron = z.string().trim().min(1);

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().trim().min(1).optional(),
  DATA_DIR: z.string().trim().min(1).default(".data"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().trim().min(1).default("0.0.0.0"),
  ORD_URL: z.url().optional(),
  ADMIN_ADDRESS: z.string().trim().refine(isDogecoinAddress, "ADMIN_ADDRESS is not a valid Dogecoin address").optional(),
  UPLOAD_DIR: z.string().trim().min(1).optional(),
  PUBLIC_URL: z.url().optional(),
  INDEXER_SYNC_CRON: cron.default("* * * * *"),
  INDEXER_ACCRUAL_CRON: cron.default("0 * * * *"),
  INDEXER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  INDEXER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  INDEXER_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  ACCRUAL_CATCHUP_HOURS: z.coerce.number().int().min(1).max(24 * 365).default(72),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
});

export type Config = {
  nodeEnv: "development" | "production" | "test";
  databaseUrl?: string;
  dataDir: string;
  port: number;
  host: string;
  ordUrl?: string;
  demo: boolean;
  /** Set from ADMIN_ADDRESS, or in demo mode from the demo admin key once it is known. */
  adminAddress?: string;
  uploadDir: string;
  publicUrl?: string;
  indexer: {
    syncCron: string;
    accrualCron: string;
    concurrency: number;
    timeoutMs: number;
    retries: number;
    catchUpHours: number;
  };
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== "")));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${issue.path.join(".")}: ${issue.message}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === "production" && !e.ORD_URL) {
    throw new ConfigError(
      "ORD_URL is not set: demo mode (simulated chain, demo wallets) never runs with NODE_ENV=production",
    );
  }
  if (e.NODE_ENV === "production" && !e.ADMIN_ADDRESS) {
    throw new ConfigError("ADMIN_ADDRESS is required with NODE_ENV=production");
  }
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    nodeEnv: e.NODE_ENV,
    databaseUrl: e.DATABASE_URL,
    dataDir,
    port: e.PORT,
    host: e.HOST,
    ordUrl: e.ORD_URL?.replace(/\/+$/, ""),
    demo: !e.ORD_URL,
    adminAddress: e.ADMIN_ADDRESS,
    uploadDir: path.resolve(e.UPLOAD_DIR ?? path.join(dataDir, "uploads")),
    publicUrl: e.PUBLIC_URL,
    indexer: {
      syncCron: e.INDEXER_SYNC_CRON,
      accrualCron: e.INDEXER_ACCRUAL_CRON,
      concurrency: e.INDEXER_CONCURRENCY,
      timeoutMs: e.INDEXER_TIMEOUT_MS,
      retries: e.INDEXER_RETRIES,
      catchUpHours: e.ACCRUAL_CATCHUP_HOURS,
    },
    logLevel: e.LOG_LEVEL,
  };
}
