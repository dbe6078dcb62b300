/**
 * No secret leaves in a URL. ORD_URL and DATABASE_URL may carry a user and password
 * (`https://user:pass@ord.example`), and a URL may carry one in its query (`?password=…`, `?token=…`):
 * everything the app writes or prints (audit rows, logs, CLI output, errors, health answers) shows a URL
 * through these two, so the operator still sees which server it is, and that it has credentials, but
 * never what they are. docs/decisions.md, "No secret in a URL written or printed".
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

export const REDACTED = "[redacted]";

/** The first 12 hex digits of a text's SHA-256: enough to tell two secrets apart, nothing to guess one from. */
export function shortHash(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text))).slice(0, 12);
}

/**
 * A webhook URL as the audit trail keeps it (issue 32, item 6): its origin and a short hash of the whole. Its path
 * is often the receiver's only secret (`/hooks/{token}`, Discord's `/webhooks/{id}/{token}`), and the trail is
 * read by whoever may read the admin page, for ever. Anything not an http(s) URL, or already so written, stays.
 */
export function redactWebhookUrl(url: string): string {
  if (!URL.canParse(url) || /\[path sha256:[0-9a-f]{12}\]$/.test(url)) return url;
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return url;
  return `${parsed.origin}/[path sha256:${shortHash(url)}]`;
}

/** Query parameters whose value is a secret (libpq's `password`, `sslpassword`, tokens and keys). */
const SECRET_PARAMETER = /([?&](?:password|sslpassword|passwd|pwd|secret|token|access_token|api_?key|key|auth)=)[^&#\s"'<>]*/gi;

/** `scheme://user:pass@` (the user alone too) anywhere in a text. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

/** Every URL inside `text` (a message, an error's stack) with its credentials and secret query values replaced. */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_CREDENTIALS, `$1${REDACTED}@`).replace(SECRET_PARAMETER, `$1${REDACTED}`);
}

/**
 * One URL as it may be shown: `http://user:pass@ord:8080` → `http://[redacted]@ord:8080/`. Parsed rather
 * than matched, so that a password the pattern above would misread (one with a space) goes too; a text that
 * is not a URL is treated as a text.
 */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return redactUrlsIn(url);
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return redactUrlsIn(url);
  parsed.username = "";
  parsed.password = "";
  return redactUrlsIn(parsed.href.replace("//", `//${REDACTED}@`));
}

/** A JSON-like value with every string in it passed through redactUrlsIn (plain objects and arrays, 8 levels). */
export function redactUrlsDeep<T>(value: T, depth = 0): T {
  if (typeof value === "string") return redactUrlsIn(value) as T;
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item: unknown) => redactUrlsDeep(item, depth + 1)) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactUrlsDeep(item, depth + 1)])) as T;
}

/** Routes one of whose path segments is a secret: the path before it, and the segment's name (issue 32, item 6). */
const SECRET_SEGMENTS = [
  { prefix: "/api/notifications/email/confirm", name: "token" },
  { prefix: "/api/notifications/email/unsubscribe", name: "token" },
  { prefix: "/api/discord/pending", name: "linkToken" },
];

/**
 * A request path as a log line may show it: a secret segment (an email link's token, a Discord link token) as the
 * route pattern with a short hash in its place (`/api/notifications/email/confirm/{token:3f9a1c2b5d6e}`), enough
 * to follow one link's requests, nothing to use it with. `path` is the path as served (decoded; any case, any
 * trailing slash or `.data`); other paths are answered as given.
 */
export function redactSecretPath(path: string): string {
  const served = path.replace(/\.data$/, "").replace(/\/+$/, "");
  const lower = served.toLowerCase();
  for (const { prefix, name } of SECRET_SEGMENTS) {
    if (!lower.startsWith(`${prefix}/`)) continue;
    const [segment, ...rest] = served.slice(prefix.length + 1).split("/");
    return `${prefix}/{${name}:${shortHash(segment)}}${rest.length ? "/…" : ""}`;
  }
  return path;
}

/** A URL's path with each segment percent-decoded (as it is served), a malformed one left as it is. */
export function decodedPath(url: string): string {
  return new URL(url).pathname
    .split("/")
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join("/");
}
