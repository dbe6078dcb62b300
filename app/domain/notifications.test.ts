/** Issue 33: the words of notifications and of the admin's deliveries and channels. */
import { describe, expect, it } from "vitest";
import { channelStateText, deliveryStateText, notificationText } from "./notifications.ts";

const base = { attempts: 1, nextAttemptAt: "2026-12-01T06:12:00.000Z", lastStatusCode: null, lastError: null };

describe("deliveries and channels in words (item 7)", () => {
  it("says what happened, never the raw state", () => {
    expect(deliveryStateText({ ...base, state: "delivered", lastStatusCode: 250 }, "utc")).toBe("250 accepted");
    expect(
      deliveryStateText(
        {
          ...base,
          state: "retrying",
          lastError: "3 personal emails went to this wallet in the last 24 hours: held until 2026-12-01T06:12:00.000Z",
        },
        "utc",
      ),
    ).toBe("held (daily limit) until 06:12 UTC");
    expect(deliveryStateText({ ...base, state: "retrying", lastStatusCode: 429, lastError: "429 rate limited" }, "utc")).toBe(
      "held (rate limit) until 06:12 UTC",
    );
    expect(deliveryStateText({ ...base, state: "retrying", lastError: "SMTP 421 busy" }, "utc")).toBe(
      "retrying at 06:12 UTC (SMTP 421 busy)",
    );
    expect(deliveryStateText({ ...base, state: "pending", attempts: 0 }, "utc")).toBe("waiting to be sent");
    expect(deliveryStateText({ ...base, state: "failed", lastError: "404 gone" }, "utc")).toBe("failed: 404 gone");
  });
  it("a channel that cannot send is never 'Active' (item 8)", () => {
    expect(channelStateText({ channel: "webhook", configured: true, disabledAt: null, targets: 0 })).toBe(
      "No target: add a webhook endpoint below",
    );
    expect(channelStateText({ channel: "email", configured: true, disabledAt: null, targets: 0 })).toMatch(/^No target yet/);
    expect(channelStateText({ channel: "discord", configured: true, disabledAt: "2026-12-01", targets: 1 })).toBe("Disabled");
    expect(channelStateText({ channel: "discord", configured: false, disabledAt: null, targets: 0 })).toBe("Not configured");
    expect(channelStateText({ channel: "webhook", configured: true, disabledAt: null, targets: 2 })).toBe("Active");
  });
});

describe("every message leads to its action (item 2)", () => {
  it("a win says 'Claim your prize' and opens the claim dialog; votes lead to the proposal", () => {
    expect(notificationText.giveawayWon({ id: 7, title: "Lantern" })).toMatchObject({
      title: "You won: Lantern. Claim your prize",
      link: "/rewards?claim=7",
    });
    expect(notificationText.claimReminder({ id: 7, title: "Lantern" }).link).toBe("/rewards?claim=7");
    const proposal = { id: 4, title: "Lights", endDate: new Date("2026-12-01T06:00:00Z") };
    expect(notificationText.proposalOpened(proposal).link).toBe("/governance/4");
    expect(notificationText.proposalClosingSoon(proposal)).toMatchObject({
      link: "/governance/4",
      body: "Voting closes at Dec 1, 2026, 06:00 UTC.",
    });
    expect(notificationText.proposalClosed({ ...proposal, options: [{ text: "Yes", votes: 1 }] }).body).toBe('"Yes" won with 1 of 1 vote.');
  });
});
