/**
 * The outside hosts an inscription's picture is tried from, in the spec's order after the local folder
 * (market CDN, inscription API, content host). The page builds its image URLs from these, and the
 * server's Content-Security-Policy allows exactly their origins (plus IMAGE_HOSTS) in `img-src`.
 */
export const IMAGE_HOSTS = {
  marketCdn: (id: string) => `https://cdn.doggy.market/content/${id}`,
  inscriptionApi: (id: string) => `https://dogeturbo.ordinalswallet.com/inscription/content/${id}`,
  contentHost: (id: string) => `https://wonky-ord.dogeord.io/content/${id}`,
};

/** The origins of IMAGE_HOSTS, e.g. `https://cdn.doggy.market`. */
export const IMAGE_HOST_ORIGINS: string[] = Object.values(IMAGE_HOSTS).map((build) => new URL(build("x")).origin);
