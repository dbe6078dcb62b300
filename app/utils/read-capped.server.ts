/**
 * Reads a byte stream to its end, keeping at most `limit` bytes: what a request body (app/utils/api.server.ts,
 * 413) and an ord server's answer (app/utils/content-cache.server.ts, 502) both need, whether or not a
 * Content-Length told the truth.
 */
export type CappedRead = { bytes: Uint8Array<ArrayBuffer> } | { exceeded: true; bytesRead: number };

/**
 * The whole stream as one array, or `exceeded` as soon as more than `limit` bytes came, with the reader
 * left open so the caller chooses to drain or cancel the rest. A read error rejects.
 */
export async function readCapped(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number): Promise<CappedRead> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) return { exceeded: true, bytesRead: size };
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes };
}
