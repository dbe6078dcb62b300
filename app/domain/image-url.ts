/**
 * Where a giveaway's picture may come from: an image uploaded to this site (`/uploads/{file}`, as POST
 * /api/upload-image and the CLI save them) or an https URL with a host. Nothing else: no http (mixed
 * content, and readable on the way), no other scheme, no credentials, no backslash (`/\host/…` is another
 * host to a browser), no whitespace or control characters. Shared by the admin form, the API, the CLI and
 * the database layer, so all four refuse the same.
 */

export const IMAGE_URL_RULE = "Image URL must be an uploaded image (/uploads/…) or an https:// URL";

const UPLOADED = /^\/uploads\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Whether `value` (already trimmed) is an accepted giveaway image URL. */
export function isGiveawayImageUrl(value: string): boolean {
  // \p{Cc}: control characters; \s: whitespace; a backslash is a slash to a browser.
  if (value.length > 2000 || /[\\\s\p{Cc}]/u.test(value)) return false;
  if (value.startsWith("/")) return UPLOADED.test(value) && !value.includes("..");
  if (!/^https:\/\/[^/?#]/i.test(value) || !URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === "https:" && url.hostname !== "" && !url.username && !url.password;
}
