/**
 * RFC 8785 (JSON Canonicalization Scheme) through the RFC author's `canonicalize` package: keys sorted by
 * UTF-16 code units, no whitespace, ECMAScript number and string forms. A log entry is canonical JSON.
 */
import canonicalize from "canonicalize";

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("this value has no JSON form");
  return text;
}

/** Whether `text` is exactly the canonical form of the JSON it holds. */
export function isCanonicalJson(text: string): boolean {
  try {
    return canonicalJson(JSON.parse(text)) === text;
  } catch {
    return false;
  }
}
