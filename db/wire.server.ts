/**
 * The PostgreSQL wire protocol's framing, shared by the embedded database's socket (pglite-socket.server.ts)
 * and its runtime-role guard (embedded-runtime.server.ts): a message is its type byte, its length (itself
 * included) and its body.
 */
export function wireMessage(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** A NUL-terminated UTF-8 string, as the protocol writes texts. */
export const cString = (text: string) => Buffer.from(`${text}\0`, "utf8");
