import { describe, expect, it } from "vitest";
import {
  bulkStakeMessage,
  entryMessage,
  isFreshTimestamp,
  parseBulkStakeMessage,
  parseEntryMessage,
  parseSignInMessage,
  parseStakeMessage,
  parseVoteMessage,
  SIGN_IN_STATEMENT,
  signInMessage,
  SIGNATURE_MAX_AGE_MS,
  stakeMessage,
  voteMessage,
  type SignInChallenge,
} from "./messages.ts";

const AT = new Date("2030-01-02T03:04:05.678Z");
const ISO = "2030-01-02T03:04:05.678Z";

/** Timestamps a strict parser must refuse in place of `ISO`. */
const BAD_TIMESTAMPS = [
  "2030-01-02T03:04:05Z", // no milliseconds: not toISOString output
  "2030-01-02T03:04:05.678+00:00",
  "2030-01-02 03:04:05.678Z",
  "2030-01-02T03:04:05.678z",
  "2030-02-30T03:04:05.678Z", // no such day (Date would roll it to March 2)
  "2030-01-02T24:04:05.678Z",
  "2030-13-02T03:04:05.678Z",
  "1893456245678",
];

describe("stake and unstake messages", () => {
  it("use the spec's wording", () => {
    expect(stakeMessage("stake", 12, AT)).toBe(`Staking Spook #12 for Spook Points. Timestamp: ${ISO}`);
    expect(stakeMessage("unstake", 12, AT)).toBe(`Unstaking Spook #12 from SPOOK Points. Timestamp: ${ISO}`);
  });

  it.each(["stake", "unstake"] as const)("%s round-trips through its parser", (action) => {
    for (const n of [1, 12, 888, 995]) {
      const parsed = parseStakeMessage(action, stakeMessage(action, n, AT));
      expect(parsed).toEqual({ itemNumber: n, timestamp: AT });
    }
  });

  it("a stake message is not an unstake message and vice versa", () => {
    expect(parseStakeMessage("unstake", stakeMessage("stake", 1, AT))).toBeNull();
    expect(parseStakeMessage("stake", stakeMessage("unstake", 1, AT))).toBeNull();
  });

  it.each([
    ["extra space", `Staking Spook #12  for Spook Points. Timestamp: ${ISO}`],
    ["space before number", `Staking Spook # 12 for Spook Points. Timestamp: ${ISO}`],
    ["wrong case", `staking Spook #12 for Spook Points. Timestamp: ${ISO}`],
    ["wrong case of points", `Staking Spook #12 for SPOOK Points. Timestamp: ${ISO}`],
    ["plural name", `Staking Spooks #12 for Spook Points. Timestamp: ${ISO}`],
    ["zero id", `Staking Spook #0 for Spook Points. Timestamp: ${ISO}`],
    ["leading zero id", `Staking Spook #012 for Spook Points. Timestamp: ${ISO}`],
    ["negative id", `Staking Spook #-12 for Spook Points. Timestamp: ${ISO}`],
    ["trailing text", `Staking Spook #12 for Spook Points. Timestamp: ${ISO} and more`],
    ["trailing newline", `Staking Spook #12 for Spook Points. Timestamp: ${ISO}\n`],
    ["leading space", ` Staking Spook #12 for Spook Points. Timestamp: ${ISO}`],
    ["missing period", `Staking Spook #12 for Spook Points Timestamp: ${ISO}`],
    ["two items", `Staking Spook #12 #13 for Spook Points. Timestamp: ${ISO}`],
    ["huge id", `Staking Spook #99999999999999999999 for Spook Points. Timestamp: ${ISO}`],
  ])("refuses a near-miss: %s", (_, message) => {
    expect(parseStakeMessage("stake", message)).toBeNull();
  });

  it.each(BAD_TIMESTAMPS)("refuses the timestamp %j", (timestamp) => {
    expect(parseStakeMessage("stake", `Staking Spook #12 for Spook Points. Timestamp: ${timestamp}`)).toBeNull();
    expect(parseStakeMessage("unstake", `Unstaking Spook #12 from SPOOK Points. Timestamp: ${timestamp}`)).toBeNull();
  });
});

describe("bulk stake and unstake messages", () => {
  const names = ["Spooks #1", "Spook Society #22", "Spooks #888"];

  it("list the count and the items", () => {
    expect(bulkStakeMessage("stake", names, AT)).toBe(
      `Staking 3 Spooks for Spook Points: Spooks #1, Spook Society #22, Spooks #888. Timestamp: ${ISO}`,
    );
    expect(bulkStakeMessage("unstake", ["Spooks #1"], AT)).toBe(`Unstaking 1 Spooks from SPOOK Points: Spooks #1. Timestamp: ${ISO}`);
  });

  it.each(["stake", "unstake"] as const)("%s round-trips through its parser", (action) => {
    expect(parseBulkStakeMessage(action, bulkStakeMessage(action, names, AT))).toEqual({ names, timestamp: AT });
    expect(parseBulkStakeMessage(action, bulkStakeMessage(action, ["Spooks #5"], AT))).toEqual({
      names: ["Spooks #5"],
      timestamp: AT,
    });
    const many = Array.from({ length: 120 }, (_, i) => `Spook Society #${i + 1}`);
    expect(parseBulkStakeMessage(action, bulkStakeMessage(action, many, AT))?.names).toEqual(many);
  });

  it("the stake parser refuses an unstake message and vice versa", () => {
    expect(parseBulkStakeMessage("unstake", bulkStakeMessage("stake", names, AT))).toBeNull();
    expect(parseBulkStakeMessage("stake", bulkStakeMessage("unstake", names, AT))).toBeNull();
  });

  it.each([
    ["count too high", `Staking 4 Spooks for Spook Points: Spooks #1, Spook Society #22, Spooks #888. Timestamp: ${ISO}`],
    ["count too low", `Staking 2 Spooks for Spook Points: Spooks #1, Spook Society #22, Spooks #888. Timestamp: ${ISO}`],
    ["zero count", `Staking 0 Spooks for Spook Points: Spooks #1. Timestamp: ${ISO}`],
    ["leading-zero count", `Staking 01 Spooks for Spook Points: Spooks #1. Timestamp: ${ISO}`],
    ["empty list", bulkStakeMessage("stake", [], AT)],
    ["empty name", `Staking 3 Spooks for Spook Points: Spooks #1, , Spooks #888. Timestamp: ${ISO}`],
    ["padded name", `Staking 2 Spooks for Spook Points: Spooks #1 , Spooks #888. Timestamp: ${ISO}`],
    ["separator without space", `Staking 2 Spooks for Spook Points: Spooks #1,Spooks #888. Timestamp: ${ISO}`],
    ["extra space", `Staking  1 Spooks for Spook Points: Spooks #1. Timestamp: ${ISO}`],
    ["wrong case", `Staking 1 spooks for Spook Points: Spooks #1. Timestamp: ${ISO}`],
    ["trailing text", `Staking 1 Spooks for Spook Points: Spooks #1. Timestamp: ${ISO}.`],
    ["non-ISO timestamp", `Staking 1 Spooks for Spook Points: Spooks #1. Timestamp: 2030-01-02T03:04:05Z`],
    ["non-canonical timestamp", `Staking 1 Spooks for Spook Points: Spooks #1. Timestamp: 2030-02-30T03:04:05.678Z`],
  ])("refuses a near-miss: %s", (_, message) => {
    expect(parseBulkStakeMessage("stake", message)).toBeNull();
  });
});

describe("giveaway entry messages", () => {
  it("round-trip", () => {
    const message = entryMessage(7, 3, AT);
    expect(message).toBe(`Entering giveaway #7 with 3 ticket(s). Timestamp: ${ISO}`);
    expect(parseEntryMessage(message)).toEqual({ giveawayId: 7, tickets: 3, timestamp: AT });
    expect(parseEntryMessage(entryMessage(1, 1_000_000, AT))).toEqual({ giveawayId: 1, tickets: 1_000_000, timestamp: AT });
  });

  it.each([
    ["zero tickets", `Entering giveaway #7 with 0 ticket(s). Timestamp: ${ISO}`],
    ["zero giveaway", `Entering giveaway #0 with 3 ticket(s). Timestamp: ${ISO}`],
    ["leading-zero tickets", `Entering giveaway #7 with 03 ticket(s). Timestamp: ${ISO}`],
    ["leading-zero id", `Entering giveaway #07 with 3 ticket(s). Timestamp: ${ISO}`],
    ["plural wording", `Entering giveaway #7 with 3 tickets. Timestamp: ${ISO}`],
    ["wrong case", `entering giveaway #7 with 3 ticket(s). Timestamp: ${ISO}`],
    ["extra space", `Entering giveaway #7 with 3  ticket(s). Timestamp: ${ISO}`],
    ["trailing text", `Entering giveaway #7 with 3 ticket(s). Timestamp: ${ISO} `],
    ["non-ISO timestamp", `Entering giveaway #7 with 3 ticket(s). Timestamp: 2030-01-02T03:04:05.678+00:00`],
    ["non-canonical timestamp", `Entering giveaway #7 with 3 ticket(s). Timestamp: 2030-02-30T03:04:05.678Z`],
  ])("refuses a near-miss: %s", (_, message) => {
    expect(parseEntryMessage(message)).toBeNull();
  });
});

describe("vote messages", () => {
  it("state the proposal number, its title and the option id, and round-trip", () => {
    const message = voteMessage(4, "Add a third collection?", 11, AT);
    expect(message).toBe(`Voting on proposal #4: Add a third collection?. Option: 11. Timestamp: ${ISO}`);
    expect(parseVoteMessage(message)).toEqual({ proposalId: 4, title: "Add a third collection?", optionId: 11, timestamp: AT });
  });

  it("parse a title that itself contains '. Option: ' correctly", () => {
    const title = "Pick one. Option: 3. Or not";
    const parsed = parseVoteMessage(voteMessage(9, title, 42, AT));
    expect(parsed).toEqual({ proposalId: 9, title, optionId: 42, timestamp: AT });
    const tricky = "Ends like a vote. Option: 5";
    expect(parseVoteMessage(voteMessage(9, tricky, 6, AT))).toEqual({ proposalId: 9, title: tricky, optionId: 6, timestamp: AT });
  });

  it("keep titles with colons, '#', periods and newlines intact", () => {
    for (const title of ["Q: #2. Really?", "Line one\nLine two", "Voting on proposal #3: nested", "  spaced  "]) {
      expect(parseVoteMessage(voteMessage(2, title, 1, AT))?.title).toBe(title);
    }
  });

  it.each([
    ["zero option", `Voting on proposal #4: T. Option: 0. Timestamp: ${ISO}`],
    ["leading-zero option", `Voting on proposal #4: T. Option: 011. Timestamp: ${ISO}`],
    ["zero proposal", `Voting on proposal #0: T. Option: 1. Timestamp: ${ISO}`],
    ["leading-zero proposal", `Voting on proposal #04: T. Option: 1. Timestamp: ${ISO}`],
    ["wrong case", `voting on proposal #4: T. Option: 1. Timestamp: ${ISO}`],
    ["missing option", `Voting on proposal #4: T. Timestamp: ${ISO}`],
    ["extra space", `Voting on proposal #4: T. Option:  1. Timestamp: ${ISO}`],
    ["trailing text", `Voting on proposal #4: T. Option: 1. Timestamp: ${ISO}!`],
    ["non-ISO timestamp", `Voting on proposal #4: T. Option: 1. Timestamp: 2030-01-02`],
    ["non-canonical timestamp", `Voting on proposal #4: T. Option: 1. Timestamp: 2030-01-32T03:04:05.678Z`],
  ])("refuses a near-miss: %s", (_, message) => {
    expect(parseVoteMessage(message)).toBeNull();
  });
});

describe("sign-in message (Sign-In With Ethereum layout, for Dogecoin)", () => {
  const challenge: SignInChallenge = {
    domain: "spooks.example",
    address: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
    statement: SIGN_IN_STATEMENT,
    uri: "https://spooks.example/admin",
    nonce: "a1B2c3D4e5F6g7H8",
    issuedAt: AT,
    expirationTime: new Date("2030-01-02T03:09:05.678Z"),
  };

  it("is laid out line by line as EIP-4361 with 'Dogecoin'", () => {
    expect(signInMessage(challenge).split("\n")).toEqual([
      "spooks.example wants you to sign in with your Dogecoin account:",
      "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
      "",
      "Sign in to Spooks.",
      "",
      "URI: https://spooks.example/admin",
      "Nonce: a1B2c3D4e5F6g7H8",
      `Issued At: ${ISO}`,
      "Expiration Time: 2030-01-02T03:09:05.678Z",
    ]);
  });

  it("round-trips", () => {
    expect(parseSignInMessage(signInMessage(challenge))).toEqual(challenge);
    const local = { ...challenge, domain: "localhost:3000", uri: "http://localhost:3000/admin" };
    expect(parseSignInMessage(signInMessage(local))).toEqual(local);
  });

  it.each([
    ["Ethereum", (m: string) => m.replace("Dogecoin", "Ethereum")],
    ["short nonce", (m: string) => m.replace("Nonce: a1B2c3D4e5F6g7H8", "Nonce: a1B2c3D")],
    ["nonce with symbols", (m: string) => m.replace("Nonce: a1B2c3D4e5F6g7H8", "Nonce: a1B2c3D4-5F6g7H8")],
    ["trailing newline", (m: string) => `${m}\n`],
    ["trailing line", (m: string) => `${m}\nResources: x`],
    ["missing blank line", (m: string) => m.replace("\n\nURI", "\nURI")],
    ["CRLF line ends", (m: string) => m.replaceAll("\n", "\r\n")],
    ["address with a space", (m: string) => m.replace("DH5yaieq", "DH5y aieq")],
    ["non-ISO issued at", (m: string) => m.replace(`Issued At: ${ISO}`, "Issued At: 2030-01-02T03:04:05Z")],
    ["non-canonical expiry", (m: string) => m.replace("2030-01-02T03:09:05.678Z", "2030-02-30T03:09:05.678Z")],
    ["lower-case label", (m: string) => m.replace("Nonce:", "nonce:")],
  ])("refuses a near-miss: %s", (_, mutate) => {
    const message = mutate(signInMessage(challenge));
    expect(message).not.toBe(signInMessage(challenge));
    expect(parseSignInMessage(message)).toBeNull();
  });
});

describe("isFreshTimestamp (within 10 minutes of server time, either side)", () => {
  it("accepts up to exactly 10 minutes, refuses beyond", () => {
    expect(SIGNATURE_MAX_AGE_MS).toBe(600_000);
    const server = AT.getTime();
    expect(isFreshTimestamp(new Date(server), AT)).toBe(true);
    expect(isFreshTimestamp(new Date(server - 600_000), AT)).toBe(true);
    expect(isFreshTimestamp(new Date(server + 600_000), AT)).toBe(true);
    expect(isFreshTimestamp(new Date(server - 600_001), AT)).toBe(false);
    expect(isFreshTimestamp(new Date(server + 600_001), AT)).toBe(false);
  });
});
