import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkWebServerConfig, ConfigError, loadConfig } from "./env.server.ts";

const ADMIN = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";
const ORD = "https://ord.example.com/";

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("loadConfig", () => {
  it("has working defaults: development, embedded database in .data, port 3000, demo mode", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: "development",
      databaseUrl: undefined,
      dataDir: path.resolve(".data"),
      port: 3000,
      host: "127.0.0.1",
      demo: true,
      uploadDir: path.resolve(".data", "uploads"),
    });
  });

  it("issue 33: webhooks may go to a local receiver in demo mode, unless WEBHOOK_ALLOW_PRIVATE says otherwise; never by default with ORD_URL", () => {
    expect(loadConfig({}).webhooks.allowPrivate).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: "false" }).webhooks.allowPrivate).toBe(false);
    expect(loadConfig({ ORD_URL: "http://127.0.0.1:9" }).webhooks.allowPrivate).toBe(false);
  });

  it("reads only the environment it is given", () => {
    expect(loadConfig({ PORT: "4123" }).port).toBe(4123);
    expect(loadConfig({ DATA_DIR: "/srv/spooks" })).toMatchObject({ dataDir: "/srv/spooks", uploadDir: "/srv/spooks/uploads" });
    expect(loadConfig({ UPLOAD_DIR: "/mnt/uploads" }).uploadDir).toBe("/mnt/uploads");
    expect(loadConfig({ DATABASE_URL: "postgres://db/spooks" }).databaseUrl).toBe("postgres://db/spooks");
  });

  it("reads MIGRATE_DATABASE_URL beside DATABASE_URL, and refuses it alone (the embedded database migrates as its own owner)", () => {
    const both = loadConfig({ DATABASE_URL: "postgres://app@db/spooks", MIGRATE_DATABASE_URL: "postgres://owner@db/spooks" });
    expect(both).toMatchObject({ databaseUrl: "postgres://app@db/spooks", migrateDatabaseUrl: "postgres://owner@db/spooks" });
    expect(loadConfig({}).migrateDatabaseUrl).toBeUndefined();
    expect(configError({ MIGRATE_DATABASE_URL: "postgres://owner@db/spooks" }).message).toMatch(
      /MIGRATE_DATABASE_URL is set without DATABASE_URL/,
    );
  });

  describe("demo mode is on exactly when ORD_URL is unset", () => {
    it.each([
      [{}, true],
      [{ ORD_URL: "" }, true],
      [{ ORD_URL: ORD }, false],
      [{ ORD_URL: "http://127.0.0.1:8080" }, false],
      [{ ORD_URL: ORD, NODE_ENV: "test" }, false],
      [{ NODE_ENV: "test" }, true],
    ] as const)("%j → demo %s", (env, demo) => {
      expect(loadConfig({ ...env }).demo).toBe(demo);
    });

    it("drops trailing slashes from ORD_URL", () => {
      expect(loadConfig({ ORD_URL: "https://ord.example.com//" }).ordUrl).toBe("https://ord.example.com");
    });
  });

  describe("production", () => {
    it("refuses to start without ORD_URL, saying demo mode never runs in production", () => {
      for (const env of [{ NODE_ENV: "production" }, { NODE_ENV: "production", ORD_URL: "", ADMIN_ADDRESS: ADMIN }]) {
        const error = configError(env);
        expect(error.message).toMatch(/ORD_URL is not set/);
        expect(error.message).toMatch(/demo mode/);
        expect(error.message).toMatch(/NODE_ENV=production/);
      }
    });

    it("requires ADMIN_ADDRESS", () => {
      expect(configError({ NODE_ENV: "production", ORD_URL: ORD }).message).toMatch(/ADMIN_ADDRESS is required/);
    });

    it("starts, not in demo mode, with ORD_URL and ADMIN_ADDRESS", () => {
      expect(loadConfig({ NODE_ENV: "production", ORD_URL: ORD, ADMIN_ADDRESS: ADMIN })).toMatchObject({
        nodeEnv: "production",
        demo: false,
        adminAddress: ADMIN,
        ordUrl: "https://ord.example.com",
      });
    });
  });

  describe("bad values are refused with one line naming the variable", () => {
    it.each([
      ["PORT", { PORT: "abc" }],
      ["PORT", { PORT: "70000" }],
      ["PORT", { PORT: "-1" }],
      ["PORT", { PORT: "80.5" }],
      ["ORD_URL", { ORD_URL: "not a url" }],
      ["ADMIN_ADDRESS", { ADMIN_ADDRESS: "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2" }],
      ["NODE_ENV", { NODE_ENV: "staging" }],
      ["LOG_LEVEL", { LOG_LEVEL: "loud" }],
      ["LOG_FORMAT", { LOG_FORMAT: "colour" }],
      ["INDEXER_CONCURRENCY", { INDEXER_CONCURRENCY: "0" }],
      ["PUBLIC_URL", { PUBLIC_URL: "spooks.example" }],
      ["PUBLIC_URL", { PUBLIC_URL: "ftp://spooks.example" }],
      ["PUBLIC_URL", { PUBLIC_URL: "https://spooks.example/app" }],
      ["PUBLIC_URL", { PUBLIC_URL: "https://user:pw@spooks.example" }],
      ["TRUST_PROXY", { TRUST_PROXY: "true" }],
      ["TRUST_PROXY", { TRUST_PROXY: "10.0.0.300" }],
      ["TRUST_PROXY", { TRUST_PROXY: "10.0.0.0/33" }],
      ["SESSION_TTL_HOURS", { SESSION_TTL_HOURS: "0" }],
      ["RATE_LIMIT_SIGNIN_PER_MIN", { RATE_LIMIT_SIGNIN_PER_MIN: "-1" }],
      ["RATE_LIMIT_SIGNED_PER_MIN", { RATE_LIMIT_SIGNED_PER_MIN: "lots" }],
      ["IMAGE_HOSTS", { IMAGE_HOSTS: "images.example" }],
    ])("%s in %j", (name, env) => {
      const { message } = configError(env);
      expect(message.startsWith(`${name}: `), message).toBe(true);
      expect(message.split("\n")).toHaveLength(1);
    });

    it("says what is wrong with ADMIN_ADDRESS", () => {
      expect(configError({ ADMIN_ADDRESS: "nope" }).message).toBe("ADMIN_ADDRESS: ADMIN_ADDRESS is not a valid Dogecoin address");
    });

    it("refuses an ADMIN_ADDRESS of another network than ORD_CHAIN's holders (ord prints n… on every test chain)", () => {
      const testnetAdmin = "nUqKQtZkcDR28K6aAeVuFeFY5pYZtf92ht";
      expect(configError({ ADMIN_ADDRESS: testnetAdmin }).message).toBe(
        "ADMIN_ADDRESS: with ORD_CHAIN=mainnet it must be a mainnet address (D…), as the ord server names holders",
      );
      expect(configError({ ADMIN_ADDRESS: ADMIN, ORD_CHAIN: "regtest" }).message).toMatch(/^ADMIN_ADDRESS: .*a test-chain address \(n…\)/);
      for (const chain of ["testnet", "signet", "regtest"]) {
        expect(loadConfig({ ADMIN_ADDRESS: testnetAdmin, ORD_CHAIN: chain }).adminAddress).toBe(testnetAdmin);
      }
    });

    it("reads INDEXER_VALIDATE_TIMEOUT_MS (default 10 s)", () => {
      expect(loadConfig({}).indexer.validateTimeoutMs).toBe(10_000);
      expect(loadConfig({ INDEXER_VALIDATE_TIMEOUT_MS: "30000" }).indexer.validateTimeoutMs).toBe(30_000);
      expect(configError({ INDEXER_VALIDATE_TIMEOUT_MS: "10" }).message).toMatch(/^INDEXER_VALIDATE_TIMEOUT_MS: /);
    });
  });

  describe("hardening settings (docs/security.md)", () => {
    it("defaults: no public URL, no trusted proxy, 12 h sessions, 30, 300, 600 and 600 requests a minute", () => {
      expect(loadConfig({})).toMatchObject({
        publicUrl: undefined,
        trustProxy: false,
        sessionTtlMs: 12 * 3_600_000,
        rateLimits: { signInPerMin: 30, signedPerMin: 300, contentPerMin: 600, readsPerMin: 600, logPerMin: 12_000 },
        imageHosts: [],
      });
    });

    it("reads them", () => {
      expect(loadConfig({ PUBLIC_URL: "https://Spooks.Example/" }).publicUrl).toBe("https://spooks.example");
      expect(loadConfig({ PUBLIC_URL: "http://localhost:3000" }).publicUrl).toBe("http://localhost:3000");
      expect(loadConfig({ TRUST_PROXY: "1" }).trustProxy).toBe(1);
      expect(loadConfig({ TRUST_PROXY: "0" }).trustProxy).toBe(false);
      expect(loadConfig({ TRUST_PROXY: "10.0.0.2, 172.16.0.0/12,loopback,::1" }).trustProxy).toEqual([
        "10.0.0.2",
        "172.16.0.0/12",
        "loopback",
        "::1",
      ]);
      expect(loadConfig({ SESSION_TTL_HOURS: "0.5" }).sessionTtlMs).toBe(30 * 60_000);
      expect(
        loadConfig({
          RATE_LIMIT_SIGNIN_PER_MIN: "0",
          RATE_LIMIT_SIGNED_PER_MIN: "1000",
          RATE_LIMIT_CONTENT_PER_MIN: "5",
          RATE_LIMIT_READS_PER_MIN: "0",
          RATE_LIMIT_INTERACTIONS_PER_MIN: "7",
          RATE_LIMIT_LOG_PER_MIN: "8",
        }).rateLimits,
      ).toMatchObject({ signInPerMin: 0, signedPerMin: 1000, contentPerMin: 5, readsPerMin: 0, interactionsPerMin: 7, logPerMin: 8 });
      expect(loadConfig({ IMAGE_HOSTS: "https://images.example/x, http://cdn.example:8080" }).imageHosts).toEqual([
        "https://images.example",
        "http://cdn.example:8080",
      ]);
    });

    it("DISCORD_WEBHOOK_URL: https on a Discord host, or on DISCORD_API_URL's origin when that is set (issue 32, item 8)", () => {
      const path = "/api/webhooks/1187654321098765432/tok-en_1";
      for (const host of ["discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com"]) {
        expect(loadConfig({ DISCORD_WEBHOOK_URL: `https://${host}${path}` }).notifications.discordWebhookUrl).toBe(
          `https://${host}${path}`,
        );
      }
      // A double in tests and the demo: the origin of DISCORD_API_URL, http included.
      expect(
        loadConfig({ DISCORD_API_URL: "http://127.0.0.1:4567/api", DISCORD_WEBHOOK_URL: `http://127.0.0.1:4567${path}` }).notifications
          .discordWebhookUrl,
      ).toBe(`http://127.0.0.1:4567${path}`);
      for (const [url, api] of [
        [`http://discord.com${path}`, undefined],
        [`https://discord.com.evil.example${path}`, undefined],
        [`https://evil.example${path}`, undefined],
        [`https://169.254.169.254${path}`, undefined],
        [`http://127.0.0.1:4567${path}`, undefined],
        [`http://127.0.0.1:9999${path}`, "http://127.0.0.1:4567/api"],
        [`https://user:pass@discord.com${path}`, undefined],
      ] as const) {
        const env: NodeJS.ProcessEnv = { DISCORD_WEBHOOK_URL: url };
        if (api) env.DISCORD_API_URL = api;
        expect(configError(env).message, url).toMatch(/DISCORD_WEBHOOK_URL must be/);
      }
    });

    it("reads the email subscription and Discord link start limits (issue 32, items 1 and 7)", () => {
      expect(loadConfig({}).rateLimits).toMatchObject({ emailPerMin: 5, discordLinkPerMin: 10 });
      expect(loadConfig({ RATE_LIMIT_EMAIL_PER_MIN: "2", RATE_LIMIT_DISCORD_LINK_PER_MIN: "0" }).rateLimits).toMatchObject({
        emailPerMin: 2,
        discordLinkPerMin: 0,
      });
    });

    it("the web server refuses production without PUBLIC_URL; the indexer and CLI do not need it", () => {
      const production = loadConfig({ NODE_ENV: "production", ORD_URL: ORD, ADMIN_ADDRESS: ADMIN });
      expect(() => checkWebServerConfig(production)).toThrow(/^PUBLIC_URL is required with NODE_ENV=production/);
      expect(() =>
        checkWebServerConfig(
          loadConfig({ NODE_ENV: "production", ORD_URL: ORD, ADMIN_ADDRESS: ADMIN, PUBLIC_URL: "https://spooks.example" }),
        ),
      ).not.toThrow();
      expect(() => checkWebServerConfig(loadConfig({}))).not.toThrow();
    });
  });
});
