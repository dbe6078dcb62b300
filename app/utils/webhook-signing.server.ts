/**
 * Standard Webhooks signing (spec v1.0.0; ../shared/spec/REAL-WORLD.md "Standard Webhooks"): a secret is
 * `whsec_` + base64 of random bytes and the HMAC key is those bytes; a signature is `v1,` + base64 of
 * HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}`, several separated by spaces (key rotation).
 */
import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

/** A new secret: 32 random bytes (the spec allows 24 to 64). */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error("A webhook secret starts with whsec_");
  return Buffer.from(secret.slice(PREFIX.length), "base64");
}

/** One `v1,…` signature of a message: the id, the attempt's Unix seconds and the exact body sent. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one signature per secret (the current one first), space-separated. */
export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signWebhook(secret, id, timestampSeconds, body)).join(" ");
}
