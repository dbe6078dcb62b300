/** Whether a client address (Express's `req.ip`) is this machine's own: 127.0.0.0/8, ::1, or IPv4-mapped 127.x. */
export function isLoopbackAddress(ip: string | undefined): boolean {
  if (!ip) return false;
  const v4 = ip.toLowerCase().replace(/^::ffff:/, "");
  return ip === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}
