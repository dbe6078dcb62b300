/**
 * The texts a wallet signs, as the API docs show them: each format's template, what its placeholders
 * stand for, and an example made by the very builders the page signs with (app/domain/messages.ts).
 * app/api/contract.test.ts checks that every example fits its template and passes the server's parser,
 * so the docs cannot drift from what the client sends and the server accepts. Routes name theirs in
 * `signedMessage`. Browser-safe.
 */
import { approvalMessage } from "../domain/approvals.ts";
import { discordAccountMessage, linkMessage, unlinkMessage } from "../domain/discord.ts";
import {
  bulkStakeMessage,
  claimMessage,
  emailSubscribeMessage,
  entryMessage,
  SIGN_IN_STATEMENT,
  signInMessage,
  stakeMessage,
  voteMessage,
} from "../domain/messages.ts";

export const SIGNED_MESSAGE_NAMES = [
  "stake",
  "unstake",
  "bulk-stake",
  "bulk-unstake",
  "giveaway-entry",
  "giveaway-claim",
  "vote",
  "sign-in",
  "email-subscribe",
  "discord-link",
  "discord-unlink",
  "approve-action",
  "discord-account",
] as const;

export type SignedMessageName = (typeof SIGNED_MESSAGE_NAMES)[number];

export type SignedMessageFormat = {
  /** What signing it does. */
  purpose: string;
  /** The exact text with `{placeholders}`; everything else is literal, line breaks included. */
  template: string;
  placeholders: Record<string, string>;
  /** A message made by the builder the page uses. */
  example: string;
};

const EXAMPLE_TIME = new Date("2026-10-31T18:00:00.000Z");

const TIMESTAMP =
  "When it was signed: `Date.prototype.toISOString()` (UTC, milliseconds, e.g. 2026-10-31T18:00:00.000Z). " +
  "Accepted within 10 minutes of server time, either side.";

const stakeFormat = (action: "stake" | "unstake"): SignedMessageFormat => ({
  purpose: action === "stake" ? "Stake one item." : "Unstake one item.",
  template:
    action === "stake"
      ? "Staking Spook #{number} for Spook Points. Timestamp: {timestamp}"
      : "Unstaking Spook #{number} from SPOOK Points. Timestamp: {timestamp}",
  placeholders: {
    number: "The item's number in its collection (12 for Spooks #12, 3 for Spook Society #3).",
    timestamp: TIMESTAMP,
  },
  example: stakeMessage(action, 12, EXAMPLE_TIME),
});

const bulkFormat = (action: "stake" | "unstake"): SignedMessageFormat => ({
  purpose: action === "stake" ? "Stake several items at once." : "Unstake several items at once.",
  template:
    action === "stake"
      ? "Staking {count} Spooks for Spook Points: {names}. Timestamp: {timestamp}"
      : "Unstaking {count} Spooks from SPOOK Points: {names}. Timestamp: {timestamp}",
  placeholders: {
    count: "How many items the call names.",
    names:
      'The items\' names as the catalogue spells them (Spooks #12, Spook Society #3), joined by ", ", in the order of `inscriptionIds`.',
    timestamp: TIMESTAMP,
  },
  example: bulkStakeMessage(action, ["Spooks #12", "Spooks #40", "Spook Society #3"], EXAMPLE_TIME),
});

export const SIGNED_MESSAGES: Record<SignedMessageName, SignedMessageFormat> = {
  "approve-action": {
    purpose:
      "A member of the admin team gives the second signature a pending action needs (issue 35): it is applied then. Only a member other than its proposer.",
    template: "Approve Spooks action #{id}: {summary}. Timestamp: {timestamp}",
    placeholders: {
      id: "The approval's id (the path's `{id}`).",
      summary: "The approval's `summary`, exactly as GET /api/admin/approvals lists it.",
      timestamp: TIMESTAMP,
    },
    example: approvalMessage(12, "Clear the points of DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM", EXAMPLE_TIME),
  },
  "discord-link": {
    purpose:
      "Link the wallet to a Discord account. The server writes this message after Discord's authorization (GET /api/discord/pending/{linkToken} answers it); the wallet signs it unchanged.",
    template: "Link Discord user {username} ({discordUserId}) to {address}. Timestamp: {timestamp}",
    placeholders: {
      username: "The Discord account's username.",
      discordUserId: "The Discord account's id (17-20 digits).",
      address: "The wallet being linked.",
      timestamp: "When Discord's authorization came back (ISO 8601, UTC, milliseconds); signed within 10 minutes of it.",
    },
    example: linkMessage("ghostly", "1187654321098765432", "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", EXAMPLE_TIME),
  },
  "discord-unlink": {
    purpose: "Unlink the wallet from its Discord account (its holder roles go within a minute).",
    template: "Unlink Discord from {address}. Timestamp: {timestamp}",
    placeholders: { address: "The wallet, as in the body's `address`.", timestamp: TIMESTAMP },
    example: unlinkMessage("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", EXAMPLE_TIME),
  },
  "discord-account": {
    purpose: "Be shown the Discord account the wallet is linked to (only its owner sees which account it is).",
    template: "Show the Discord account linked to {address}. Timestamp: {timestamp}",
    placeholders: { address: "The wallet, as in the body's `address`.", timestamp: TIMESTAMP },
    example: discordAccountMessage("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", EXAMPLE_TIME),
  },
  stake: stakeFormat("stake"),
  unstake: stakeFormat("unstake"),
  "bulk-stake": bulkFormat("stake"),
  "bulk-unstake": bulkFormat("unstake"),
  "giveaway-entry": {
    purpose: "Spend points on giveaway tickets.",
    template: "Entering giveaway #{giveawayId} with {tickets} ticket(s). Timestamp: {timestamp}",
    placeholders: {
      giveawayId: "The giveaway's id, as in the body's `giveawayId`.",
      tickets: "How many tickets, as in the body's `tickets`.",
      timestamp: TIMESTAMP,
    },
    example: entryMessage(7, 3, EXAMPLE_TIME),
  },
  "giveaway-claim": {
    purpose: "A winner claims the prize and says how the admin can reach them (seen by the admin only).",
    template: "Claim {title} (#{giveawayId}) for {address}. Contact: {contact}. Timestamp: {timestamp}",
    placeholders: {
      title: "The giveaway's title, exactly as stored.",
      giveawayId: "The giveaway's id (the path's `{id}`).",
      address: "The winner's address, as in the body's `address`.",
      contact: "The contact, as in the body's `contact` (trimmed, one line).",
      timestamp: TIMESTAMP,
    },
    example: claimMessage("Golden Spook", 7, "DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM", "spooky@example.com", EXAMPLE_TIME),
  },
  vote: {
    purpose: "Cast a vote on a proposal.",
    template: "Voting on proposal #{proposalId}: {title}. Option: {optionId}. Timestamp: {timestamp}",
    placeholders: {
      proposalId: "The proposal's id (the path's `{id}`).",
      title: "The proposal's title, exactly as stored.",
      optionId: "The chosen option's id, as in the body's `optionId` (not its position).",
      timestamp: TIMESTAMP,
    },
    example: voteMessage(4, "Add a third collection?", 11, EXAMPLE_TIME),
  },
  "email-subscribe": {
    purpose:
      "Consent to email notifications for this wallet at this address (a confirmation email follows; nothing else is sent until it is opened).",
    template: "Send Spooks notifications for {address} to {email}. Timestamp: {timestamp}",
    placeholders: {
      address: "The wallet's address, as in the body's `address`.",
      email: "The email address, exactly as in the body's `email`.",
      timestamp: TIMESTAMP,
    },
    example: emailSubscribeMessage("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", "holder@example.com", EXAMPLE_TIME),
  },
  "sign-in": {
    purpose:
      "Sign in as the admin. The server writes this message (GET /api/auth/challenge answers it); the wallet signs it unchanged. " +
      "Laid out as Sign-In With Ethereum (EIP-4361), with Dogecoin for Ethereum.",
    template: [
      "{domain} wants you to sign in with your Dogecoin account:",
      "{address}",
      "",
      SIGN_IN_STATEMENT,
      "",
      "URI: {uri}",
      "Nonce: {nonce}",
      "Issued At: {issuedAt}",
      "Expiration Time: {expirationTime}",
    ].join("\n"),
    placeholders: {
      domain: "The site's host (PUBLIC_URL's, or the request's).",
      address: "The admin's address.",
      uri: "The site's origin.",
      nonce: "A one-time random value; the challenge can be used once.",
      issuedAt: "When the challenge was issued (ISO 8601, UTC).",
      expirationTime: "When it stops being accepted: 10 minutes later.",
    },
    example: signInMessage({
      domain: "spooks.example",
      address: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
      statement: SIGN_IN_STATEMENT,
      uri: "https://spooks.example",
      nonce: "k3Xq9PzT4wLm2VbR",
      issuedAt: EXAMPLE_TIME,
      expirationTime: new Date(EXAMPLE_TIME.getTime() + 10 * 60_000),
    }),
  },
};

export function isSignedMessageName(name: string | undefined): name is SignedMessageName {
  return (SIGNED_MESSAGE_NAMES as readonly (string | undefined)[]).includes(name);
}
