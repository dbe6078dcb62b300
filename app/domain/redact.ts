/**
 * No secret leaves in a URL. ORD_URL and DATABASE_URL may carry a user and password
 * (`https://user:pass@ord.example`), and a URL may carry one in its query (`?password=…`, `?token=…`):
 * everything the app writes or prints (audit rows, logs, CLI output, errors, health answers) shows a URL
 * through these two, so the operator still sees which server it is, and that it has credentials, but
 * never what they are. docs/decisions.md, "No secret in a URL written or printed".
 */
export const REDACTED = "[redacted]";

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
