/** A request sent exactly as written: no URL resolution (`//x/…` and `%73` reach the server as they are). */
import http from "node:http";

export type RawAnswer = { status: number; type: string; allow?: string; body: unknown };

/**
 * Sends `target` to the server at `base` with exactly these headers (no Content-Type unless given; a
 * Content-Length for a body) and answers the status, the content type, `Allow`, and the body parsed as JSON
 * when it is JSON, else as text.
 */
export function sendRaw(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  const sized = body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: target, headers: sized }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: the text as it came
        }
        resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"] ?? "", allow: res.headers.allow, body: parsed });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
