/**
 * Discord's signature as POST /api/discord/interactions checks it (REAL-WORLD.md "Slash commands over HTTP"):
 * Ed25519 over X-Signature-Timestamp + the raw body, made here by another library (@noble/curves) than the one
 * checking it (node:crypto); and DISCORD_PUBLIC_KEY as the configuration reads it.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { describe, expect, it } from "vitest";
import { checkInteractionSignature } from "./discord-interactions.server.ts";
import { ConfigError, loadConfig } from "./env.server.ts";

const secretKey = ed25519.utils.randomSecretKey();
const publicKey = Buffer.from(ed25519.getPublicKey(secretKey)).toString("hex");
const body = new TextEncoder().encode(JSON.stringify({ id: "1300000000000000001", type: 1 }));
const at = new Date("2030-06-01T12:00:00Z");
const seconds = (date: Date) => String(Math.floor(date.getTime() / 1000));

function signed(timestamp = seconds(at), bytes = body, key = secretKey) {
  const message = new Uint8Array([...new TextEncoder().encode(timestamp), ...bytes]);
  return { signature: Buffer.from(ed25519.sign(message, key)).toString("hex"), timestamp };
}

describe("checkInteractionSignature", () => {
  it("accepts the application's signature of timestamp + raw body, within 5 minutes either way", () => {
    expect(checkInteractionSignature(publicKey, signed(), body, at)).toEqual({ ok: true });
    for (const offset of [-300, 300]) {
      const timestamp = String(Number(seconds(at)) + offset);
      expect(checkInteractionSignature(publicKey, signed(timestamp), body, at), String(offset)).toEqual({ ok: true });
    }
  });

  it("refuses a signature by another key, of another body or timestamp, a flipped bit, or none", () => {
    const good = signed();
    const flipped = good.signature.slice(0, -1) + (good.signature.endsWith("0") ? "1" : "0");
    const changedBody = new TextEncoder().encode(JSON.stringify({ id: "1300000000000000001", type: 2 }));
    const refused = [
      checkInteractionSignature(publicKey, signed(undefined, body, ed25519.utils.randomSecretKey()), body, at),
      checkInteractionSignature(publicKey, good, changedBody, at),
      checkInteractionSignature(publicKey, { ...good, timestamp: String(Number(good.timestamp) + 1) }, body, at),
      checkInteractionSignature(publicKey, { ...good, signature: flipped }, body, at),
      checkInteractionSignature(publicKey, { ...good, signature: "zz".repeat(64) }, body, at),
      checkInteractionSignature(publicKey, { ...good, timestamp: "12:00" }, body, at),
    ];
    for (const check of refused) expect(check).toEqual({ ok: false, reason: "Invalid request signature" });
    for (const headers of [
      { signature: null, timestamp: good.timestamp },
      { signature: good.signature, timestamp: null },
      { signature: null, timestamp: null },
    ]) {
      expect(checkInteractionSignature(publicKey, headers, body, at)).toEqual({
        ok: false,
        reason: "X-Signature-Ed25519 and X-Signature-Timestamp are required",
      });
    }
  });

  it("refuses a good signature more than 5 minutes old or ahead (a replay later on)", () => {
    for (const offset of [-301, 301, -86_400]) {
      const timestamp = String(Number(seconds(at)) + offset);
      expect(checkInteractionSignature(publicKey, signed(timestamp), body, at)).toEqual({
        ok: false,
        reason: "The request's timestamp is more than 5 minutes from server time",
      });
    }
  });
});

describe("DISCORD_PUBLIC_KEY", () => {
  const four = {
    DISCORD_CLIENT_ID: "1100000000000000001",
    DISCORD_CLIENT_SECRET: "secret",
    DISCORD_BOT_TOKEN: "token",
    DISCORD_GUILD_ID: "1187000000000000000",
  };

  it("turns slash commands on beside the four settings (lowercased, deferral after 400 ms unless DISCORD_DEFER_AFTER_MS)", () => {
    expect(loadConfig(four).discord?.publicKey).toBeUndefined();
    expect(loadConfig({ ...four, DISCORD_PUBLIC_KEY: publicKey.toUpperCase() }).discord).toMatchObject({ publicKey, deferAfterMs: 400 });
    expect(loadConfig({ ...four, DISCORD_PUBLIC_KEY: publicKey, DISCORD_DEFER_AFTER_MS: "0" }).discord?.deferAfterMs).toBe(0);
  });

  it("refuses what is not a public key, a deferral past Discord's 3 s, and the key without the four", () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error("expected a refusal");
    };
    expect(refusal({ ...four, DISCORD_PUBLIC_KEY: "abc" })).toContain("64 hex digits");
    // 64 hex digits that are no point of the curve (about half of all 32-byte strings).
    let notAPoint = "";
    for (let n = 0; !notAPoint; n++) {
      const candidate = n.toString(16).padStart(64, "f");
      try {
        ed25519.Point.fromHex(candidate);
      } catch {
        notAPoint = candidate;
      }
    }
    expect(refusal({ ...four, DISCORD_PUBLIC_KEY: notAPoint })).toContain("is not an Ed25519 public key");
    expect(refusal({ ...four, DISCORD_PUBLIC_KEY: publicKey, DISCORD_DEFER_AFTER_MS: "3000" })).toContain("DISCORD_DEFER_AFTER_MS");
    expect(refusal({ DISCORD_PUBLIC_KEY: publicKey })).toBe(
      "DISCORD_PUBLIC_KEY is set without DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET, DISCORD_BOT_TOKEN, DISCORD_GUILD_ID: slash commands need Discord holder roles configured",
    );
  });
});
