/**
 * A mail server for tests (doubles/mail/README.md): smtp-server on 127.0.0.1, as
 * ../shared/spec/REAL-WORLD.md "Email" describes, receiving what the product's own nodemailer sends and
 * keeping each message raw and parsed (mailparser). A test scripts refusals per recipient: an error passed
 * to onRcptTo answers its responseCode (450-452 a soft bounce, 550 a hard one), to onData likewise.
 */
import { simpleParser, type ParsedMail } from "mailparser";
import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerAddress } from "smtp-server";

export type ReceivedMail = {
  from: string;
  to: string[];
  raw: string;
  parsed: ParsedMail;
  receivedAt: Date;
};

export type MailDouble = {
  /** smtp://127.0.0.1:{port} */
  url: string;
  received: ReceivedMail[];
  /** Refuse RCPT TO for this address with this reply code, `times` times (default: always). */
  refuseRecipient(address: string, code: number, times?: number): void;
  /** Refuse the next DATA with this reply code. */
  refuseData(code: number): void;
  /** Resolves when `count` messages have arrived in all. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
};

type Refusal = { code: number; left: number };

function smtpError(code: number): Error & { responseCode: number } {
  const text = code >= 500 ? "Mailbox unavailable" : "Mailbox busy, try again later";
  return Object.assign(new Error(text), { responseCode: code });
}

export async function startMailDouble(): Promise<MailDouble> {
  const received: ReceivedMail[] = [];
  const recipients = new Map<string, Refusal>();
  const dataRefusals: number[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const refusal = recipients.get(address.address.toLowerCase());
      if (refusal && refusal.left !== 0) {
        refusal.left -= 1;
        return callback(smtpError(refusal.code));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const code = dataRefusals.shift();
        if (code !== undefined) return callback(smtpError(code));
        const raw = Buffer.concat(chunks).toString("utf8");
        void simpleParser(raw).then((parsed) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw,
            parsed,
            receivedAt: new Date(),
          });
          waiters.splice(0).forEach((wake) => wake());
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuseRecipient(address, code, times = -1) {
      recipients.set(address.toLowerCase(), { code, left: times });
    },
    refuseData(code) {
      dataRefusals.push(code);
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${count} messages; ${received.length} arrived`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
