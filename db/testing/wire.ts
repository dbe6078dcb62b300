/** PostgreSQL wire bytes that tests and the flood script send as a client would. */

/** A protocol-3 startup message for user and database `postgres`: what any client sends first. */
export function startupPacket(): Buffer {
  const body = Buffer.from("user\0postgres\0database\0postgres\0\0");
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}
