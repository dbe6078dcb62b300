/**
 * The path a request is served as, one answer for the rate limits and for the URL React Router is given.
 * The request target's path is read as a URL on this site reads it: `//other.host/admin`, `/\other.host/admin`
 * or an absolute-form `http://other.host/admin` name no host here, only the path `/admin`. React Router then
 * decodes each segment (`%73take` is `stake`) and matches without regard to case; the limits do the same, so
 * no spelling of a path escapes the limit of the route it reaches.
 */

const NO_HOST = "http://served.invalid";

/** The target's path (still percent-encoded) and query, with whatever host it names dropped. */
export function servedTarget(originalUrl: string): { pathname: string; search: string } {
  const url = URL.canParse(originalUrl, NO_HOST) ? new URL(originalUrl, NO_HOST) : new URL(NO_HOST);
  return { pathname: url.pathname, search: url.search };
}

/** React Router's own decoding (decodePath): each segment decoded, an encoded `/` kept as `%2F`; left as is when malformed. */
export function decodeServedPath(pathname: string): string {
  try {
    return pathname
      .split("/")
      .map((segment) => decodeURIComponent(segment).replace(/\//g, "%2F"))
      .join("/");
  } catch {
    return pathname;
  }
}

/** The route path a request reaches, as the limits compare it: decoded, lower case, without `.data` or trailing slashes. */
export function routePathOf(originalUrl: string): string {
  return decodeServedPath(servedTarget(originalUrl).pathname)
    .toLowerCase()
    .replace(/\.data$/, "")
    .replace(/\/+$/, "");
}
