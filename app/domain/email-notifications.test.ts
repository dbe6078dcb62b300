import { describe, expect, it } from "vitest";
import { normalizedMailbox } from "./email-notifications.ts";

describe("normalizedMailbox", () => {
  it("spells one mailbox one way: lower case, no +tag, Gmail without dots", () => {
    for (const [email, mailbox] of [
      ["Victim@Example.COM", "victim@example.com"],
      ["victim+1@example.com", "victim@example.com"],
      ["victim+a+b@example.com", "victim@example.com"],
      [" victim@example.com ", "victim@example.com"],
      ["v.i.c.t.i.m@gmail.com", "victim@gmail.com"],
      ["V.ictim+spooks@GoogleMail.com", "victim@gmail.com"],
      ["first.last@example.com", "first.last@example.com"],
      ['"odd@name"@example.com', '"odd@name"@example.com'],
    ]) {
      expect(normalizedMailbox(email), email).toBe(mailbox);
    }
  });
});
