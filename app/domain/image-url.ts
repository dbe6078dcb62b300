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

/** The setting that names the outside hosts a picture may come from. */
export const IMAGE_HOSTS_SETTING = "IMAGE_HOSTS";

/**
 * Whether the page may show a picture from `value`: an upload of this site always; an https URL only from an
 * origin the page's Content-Security-Policy allows (`allowedOrigins`: IMAGE_HOSTS and the item image hosts),
 * otherwise the picture is saved and then blocked in every browser. Null when it may; the refusal otherwise,
 * naming the setting. A URL that breaks IMAGE_URL_RULE is that rule's to refuse (null here).
 */
export function imageHostProblem(value: string, allowedOrigins: readonly string[]): string | null {
  const text = value.trim();
  if (!/^https:\/\//i.test(text) || !URL.canParse(text)) return null;
  const { origin } = new URL(text);
  if (allowedOrigins.includes(origin)) return null;
  return (
    `The page cannot show pictures from ${origin}: it is not in ${IMAGE_HOSTS_SETTING}. ` +
    `Upload the image, or add ${origin} to ${IMAGE_HOSTS_SETTING} and restart the server`
  );
}
