/** A request sent exactly as written: no URL resolution (`//x/…` and `%73` reach the server as they are). */
import http from "node:http";
import net from "node:net";

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

/** A download whose client reads slowly or not at all (see `slowDownload`). */
export type SlowDownload = {
  /** Bytes the client has taken so far (status line and headers included). */
  taken(): number;
  /** Whether the connection has ended (closed by either side). */
  closed(): boolean;
  close(): void;
};

/**
 * Starts `GET target` on a raw socket and then takes at most `bytesPerSecond` of the answer (0: nothing at
 * all), as a stalled or trickling client does: what it does not take stays in the socket's buffers, and once
 * they are full TCP tells the server to wait.
 */
export function slowDownload(base: string, target: string, bytesPerSecond: number): SlowDownload {
  const { hostname, port } = new URL(base);
  const socket = net.connect({ host: hostname, port: Number(port) });
  let taken = 0;
  let closed = false;
  socket.on("error", () => {});
  socket.on("close", () => (closed = true));
  socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
  // No 'data' listener: the socket stays paused, reading only what read() asks for.
  const trickle =
    bytesPerSecond > 0
      ? setInterval(() => {
          const chunk = socket.read(Math.min(bytesPerSecond, socket.readableLength)) as Buffer | null;
          if (chunk) taken += chunk.length;
        }, 1000)
      : undefined;
  return {
    taken: () => taken,
    closed: () => closed,
    close: () => {
      clearInterval(trickle);
      socket.destroy();
    },
  };
}
