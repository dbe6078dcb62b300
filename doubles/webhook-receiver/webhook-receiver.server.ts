/**
 * A community bot's webhook receiver, for tests (doubles/webhook-receiver/README.md): real HTTP on
 * 127.0.0.1, verifying each message with the `standardwebhooks` package exactly as a bot would, and
 * answering what the test scripted (a status, headers, a delay) in order, then 204.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export type ScriptedAnswer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };

export type ReceivedMessage = {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: Date;
  /** Verified with each of `secrets` in turn: which verified (standardwebhooks' Webhook.verify). */
  verifiedWith: string[];
};

export type WebhookReceiver = {
  url: string;
  received: ReceivedMessage[];
  /** The next answers, in order; once used up every request gets 204. */
  script(...answers: ScriptedAnswer[]): void;
  /** Secrets to verify with (a bot that knows one, or during a rotation both). */
  secrets: string[];
  close(): Promise<void>;
};

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const queue: ScriptedAnswer[] = [];
  const received: ReceivedMessage[] = [];
  const receiver = { received, secrets: [] as string[] } as WebhookReceiver;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
      );
      const verifiedWith = receiver.secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      received.push({ path: request.url ?? "/", headers: request.headers, body, receivedAt: new Date(), verifiedWith });
      const answer = queue.shift() ?? { status: 204 };
      const send = () => {
        if (response.destroyed) return;
        response.writeHead(answer.status, answer.headers ?? {});
        response.end(answer.body ?? "");
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.script = (...answers) => void queue.push(...answers);
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
