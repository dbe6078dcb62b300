/**
 * The outside hosts an item's picture is tried from, after the local collection_images folder and this
 * site's own /content/{id}: URL templates from the ITEM_IMAGE_URLS setting, in which `{id}` stands for the
 * inscription id (e.g. `https://cdn.example/content/{id}`). None are built in. The page builds its image
 * URLs from them, and the server's Content-Security-Policy allows exactly their origins (plus IMAGE_HOSTS)
 * in `img-src`.
 */
export const ITEM_ID_PLACEHOLDER = "{id}";

/** A template's origin, or what is wrong with it (a sentence fragment, e.g. `must contain {id}`). */
export function parseItemImageUrl(template: string): { origin: string } | string {
  if (!template.includes(ITEM_ID_PLACEHOLDER)) return `must contain ${ITEM_ID_PLACEHOLDER} where the inscription id goes`;
  const sample = itemImageUrl(template, `${"0".repeat(64)}i0`);
  const url = URL.canParse(sample) ? new URL(sample) : null;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.origin === "null" || url.username || url.password) {
    return "is not an http(s) URL template such as https://cdn.example/content/{id}";
  }
  const other = itemImageUrl(template, "x");
  if (!URL.canParse(other) || new URL(other).origin !== url.origin) return "must keep {id} out of the host";
  return { origin: url.origin };
}

/** The template with the inscription id put in. */
export function itemImageUrl(template: string, inscriptionId: string): string {
  return template.split(ITEM_ID_PLACEHOLDER).join(encodeURIComponent(inscriptionId));
}

/** The origins of the templates (for the CSP's img-src), each once. */
export function itemImageOrigins(templates: readonly string[]): string[] {
  const origins = templates.map(parseItemImageUrl).flatMap((parsed) => (typeof parsed === "string" ? [] : [parsed.origin]));
  return [...new Set(origins)];
}

/**
 * Every outside origin the page's Content-Security-Policy lets pictures come from (server/security.ts
 * img-src): the item image hosts, IMAGE_HOSTS, and the site's own public origin. A giveaway picture URL
 * elsewhere is refused where it is typed (imageHostProblem in app/domain/image-url.ts).
 */
export function pictureOrigins(config: { imageHosts: readonly string[]; itemImageUrls: readonly string[]; publicUrl?: string }): string[] {
  const own = config.publicUrl && URL.canParse(config.publicUrl) ? [new URL(config.publicUrl).origin] : [];
  return [...new Set([...own, ...itemImageOrigins(config.itemImageUrls), ...config.imageHosts])];
}
