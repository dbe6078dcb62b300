/**
 * A notification worker as a process of its own, for the crash test (indexer/notifications/crash.test.ts): the
 * real worker passes on DATABASE_URL with one channel posting each delivery to RECEIVER_URL with its delivery id
 * as `webhook-id` (the receiver's idempotency key, as the Standard Webhooks channel sends it). Not product code.
 */
import { createSql } from "../../../db/client.server.ts";
import type { NotificationChannel } from "../channel.server.ts";
import { runNotificationPass } from "../worker.server.ts";

const sql = createSql(process.env.DATABASE_URL!, { max: 2 });
const receiver = process.env.RECEIVER_URL!;
const leaseMs = Number(process.env.LEASE_MS ?? 1000);

const channel: NotificationChannel = {
  name: "webhook",
  targets: async () => ["receiver"],
  async deliver(_sql, event, delivery) {
    const response = await fetch(receiver, {
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": `msg_${delivery.id}` },
      body: JSON.stringify({ type: event.event, data: { subject: event.subject } }),
    });
    await response.body?.cancel();
    return response.ok
      ? { outcome: "delivered", statusCode: response.status }
      : { outcome: "retry", retryAt: new Date(Date.now() + 100), statusCode: response.status, error: String(response.status) };
  },
};

for (;;) {
  await runNotificationPass({ sql, channels: [channel], leaseMs });
  process.stdout.write("pass\n");
  await new Promise((resolve) => setTimeout(resolve, 50));
}
