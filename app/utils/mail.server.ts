/**
 * Sending mail (issue 24, item 6): through SMTP_URL with nodemailer (DKIM-signed with MAIL_DKIM_* when
 * set), or, in demo mode without SMTP_URL, captured whole into `captured_mail` for the admin's outbox view.
 * nodemailer never retries: a failure is thrown with its `responseCode` (4xx: try later; 5xx: a bounce), and
 * a recipient the server refused is thrown the same way (../shared/spec/REAL-WORLD.md "Email").
 */
import fs from "node:fs";
import nodemailer from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";
import type { Config } from "./env.server.ts";
import type { Queryable } from "../../db/client.server.ts";

export type MailMessage = {
  to: string;
  subject: string;
  text: string;
  /** The one-click unsubscribe URL (RFC 8058): written as List-Unsubscribe with List-Unsubscribe-Post. */
  unsubscribeUrl?: string;
};

export type Mailer = {
  /** Sends (or captures) one message; throws a MailError when the server refused it or could not be reached. */
  send(message: MailMessage): Promise<{ messageId: string; response: string }>;
  close(): void;
};

export class MailError extends Error {
  constructor(
    message: string,
    /** The SMTP reply code (450, 550…) when the server answered one. */
    readonly responseCode: number | undefined,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

type SmtpFailure = Error & { responseCode?: number; response?: string; code?: string };

/** The headers of RFC 8058 one-click unsubscribe: exactly one of each. */
export function unsubscribeHeaders(url: string): Record<string, string> {
  return { "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
}

function nodemailerMessage(from: string, message: MailMessage) {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    headers: message.unsubscribeUrl ? unsubscribeHeaders(message.unsubscribeUrl) : {},
  };
}

export type MailConfig = Config["mail"];

/** Whether this site sends email notifications at all. */
export function mailEnabled(mail: MailConfig): boolean {
  return Boolean(mail.from && (mail.smtpUrl || mail.capture));
}

/** The mailer for `mail`, or null when email is off (no SMTP_URL and MAIL_FROM, outside demo mode). */
export function createMailer(mail: MailConfig, sql: Queryable): Mailer | null {
  if (!mailEnabled(mail) || !mail.from) return null;
  const from = mail.from;
  if (mail.smtpUrl) {
    const dkim = mail.dkim
      ? { domainName: mail.dkim.domainName, keySelector: mail.dkim.keySelector, privateKey: fs.readFileSync(mail.dkim.keyFile, "utf8") }
      : undefined;
    return smtpMailer(mail.smtpUrl, from, dkim);
  }
  return captureMailer(from, sql);
}

export function smtpMailer(
  smtpUrl: string,
  from: string,
  dkim?: { domainName: string; keySelector: string; privateKey: string },
  timeouts: { connectionMs?: number; socketMs?: number } = {},
): Mailer {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: timeouts.connectionMs ?? 15_000,
    greetingTimeout: timeouts.connectionMs ?? 15_000,
    socketTimeout: timeouts.socketMs ?? 30_000,
    ...(dkim ? { dkim } : {}),
  } as SMTPTransport.Options);
  return {
    async send(message) {
      let info: { messageId: string; response: string; rejected?: unknown[]; rejectedErrors?: SmtpFailure[] };
      try {
        info = await transport.sendMail(nodemailerMessage(from, message));
      } catch (error) {
        const failure = error as SmtpFailure;
        throw new MailError(failure.response ?? failure.message, failure.responseCode, failure.code);
      }
      // With one recipient a refusal throws; with several, a refused one is only listed.
      const refused = info.rejectedErrors?.[0];
      if (refused || (info.rejected?.length ?? 0) > 0) {
        throw new MailError(refused?.response ?? refused?.message ?? "Recipient refused", refused?.responseCode, refused?.code);
      }
      return { messageId: info.messageId, response: info.response };
    },
    close: () => transport.close(),
  };
}

/** Demo mode: the message as it would have gone out, kept for the admin instead of sent. */
export function captureMailer(from: string, sql: Queryable): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    async send(message) {
      const info = (await transport.sendMail(nodemailerMessage(from, message))) as { messageId: string; message: Buffer };
      const raw = info.message.toString("utf8");
      const headerText = raw.split(/\n\n/, 1)[0];
      const headers: Record<string, string> = {};
      for (const line of headerText.replace(/\n[ \t]+/g, " ").split("\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon)] = line.slice(colon + 1).trim();
      }
      await sql`
        insert into captured_mail (recipient, subject, headers, text_body, raw)
        values (${message.to}, ${message.subject}, ${sql.json(headers)}, ${message.text}, ${raw})`;
      return { messageId: info.messageId, response: "captured" };
    },
    close: () => transport.close(),
  };
}
