/**
 * The texts a wallet signs, with strict parsers. The server parses every signed message and checks that
 * it names exactly what the call acts on. `{ISO}` is always `Date.prototype.toISOString()` output.
 */
export const SIGNATURE_MAX_AGE_MS = 10 * 60 * 1000;

const ISO = String.raw`(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)`;

function parseIso(text: string): Date | null {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) || date.toISOString() !== text ? null : date;
}

function positiveInt(text: string): number | null {
  const value = Number(text);
  return Number.isSafeInteger(value) && value > 0 && String(value) === text ? value : null;
}

export type StakeAction = "stake" | "unstake";

export function stakeMessage(action: StakeAction, itemNumber: number, at: Date): string {
  return action === "stake"
    ? `Staking Spook #${itemNumber} for Spook Points. Timestamp: ${at.toISOString()}`
    : `Unstaking Spook #${itemNumber} from SPOOK Points. Timestamp: ${at.toISOString()}`;
}

const STAKE_PATTERNS: Record<StakeAction, RegExp> = {
  stake: new RegExp(String.raw`^Staking Spook #(\d+) for Spook Points\. Timestamp: ${ISO}$`),
  unstake: new RegExp(String.raw`^Unstaking Spook #(\d+) from SPOOK Points\. Timestamp: ${ISO}$`),
};

export function parseStakeMessage(action: StakeAction, message: string): { itemNumber: number; timestamp: Date } | null {
  const match = STAKE_PATTERNS[action].exec(message);
  if (!match) return null;
  const itemNumber = positiveInt(match[1]);
  const timestamp = parseIso(match[2]);
  return itemNumber && timestamp ? { itemNumber, timestamp } : null;
}

export function bulkStakeMessage(action: StakeAction, names: string[], at: Date): string {
  const list = names.join(", ");
  return action === "stake"
    ? `Staking ${names.length} Spooks for Spook Points: ${list}. Timestamp: ${at.toISOString()}`
    : `Unstaking ${names.length} Spooks from SPOOK Points: ${list}. Timestamp: ${at.toISOString()}`;
}

const BULK_PATTERNS: Record<StakeAction, RegExp> = {
  stake: new RegExp(String.raw`^Staking (\d+) Spooks for Spook Points: (.+)\. Timestamp: ${ISO}$`),
  unstake: new RegExp(String.raw`^Unstaking (\d+) Spooks from SPOOK Points: (.+)\. Timestamp: ${ISO}$`),
};

export function parseBulkStakeMessage(action: StakeAction, message: string): { names: string[]; timestamp: Date } | null {
  const match = BULK_PATTERNS[action].exec(message);
  if (!match) return null;
  const count = positiveInt(match[1]);
  const names = match[2].split(", ");
  const timestamp = parseIso(match[3]);
  if (!count || !timestamp || names.length !== count || names.some((name) => name.trim() !== name || !name)) {
    return null;
  }
  return { names, timestamp };
}

export function entryMessage(giveawayId: number, tickets: number, at: Date): string {
  return `Entering giveaway #${giveawayId} with ${tickets} ticket(s). Timestamp: ${at.toISOString()}`;
}

const ENTRY_PATTERN = new RegExp(String.raw`^Entering giveaway #(\d+) with (\d+) ticket\(s\)\. Timestamp: ${ISO}$`);

export function parseEntryMessage(message: string): { giveawayId: number; tickets: number; timestamp: Date } | null {
  const match = ENTRY_PATTERN.exec(message);
  if (!match) return null;
  const giveawayId = positiveInt(match[1]);
  const tickets = positiveInt(match[2]);
  const timestamp = parseIso(match[3]);
  return giveawayId && tickets && timestamp ? { giveawayId, tickets, timestamp } : null;
}

export function voteMessage(proposalId: number, title: string, optionId: number, at: Date): string {
  return `Voting on proposal #${proposalId}: ${title}. Option: ${optionId}. Timestamp: ${at.toISOString()}`;
}

const VOTE_PATTERN = new RegExp(String.raw`^Voting on proposal #(\d+): ([\s\S]*)\. Option: (\d+)\. Timestamp: ${ISO}$`);

export function parseVoteMessage(message: string): { proposalId: number; title: string; optionId: number; timestamp: Date } | null {
  const match = VOTE_PATTERN.exec(message);
  if (!match) return null;
  const proposalId = positiveInt(match[1]);
  const optionId = positiveInt(match[3]);
  const timestamp = parseIso(match[4]);
  return proposalId && optionId && timestamp ? { proposalId, title: match[2], optionId, timestamp } : null;
}

/** Longest contact text a winner may give with a claim (an e-mail, a Discord or Telegram handle…). */
export const MAX_CLAIM_CONTACT = 200;

/** What a winner signs to claim a prize (issue 27, item 9): the giveaway's title and id, the winner, how to reach them. */
export function claimMessage(title: string, giveawayId: number, address: string, contact: string, at: Date): string {
  return `Claim ${title} (#${giveawayId}) for ${address}. Contact: ${contact}. Timestamp: ${at.toISOString()}`;
}

const CLAIM_PATTERN = new RegExp(String.raw`^Claim ([\s\S]+) \(#(\d+)\) for (\S+)\. Contact: ([\s\S]+)\. Timestamp: ${ISO}$`);

/**
 * A claim message's parts. The title and the contact are free text, so the server does not trust this split:
 * it rebuilds the message from the giveaway's title and the body's fields with this timestamp and compares.
 */
export function parseClaimMessage(
  message: string,
): { title: string; giveawayId: number; address: string; contact: string; timestamp: Date } | null {
  const match = CLAIM_PATTERN.exec(message);
  if (!match) return null;
  const giveawayId = positiveInt(match[2]);
  const timestamp = parseIso(match[5]);
  return giveawayId && timestamp ? { title: match[1], giveawayId, address: match[3], contact: match[4], timestamp } : null;
}

/** The consent to email notifications (issue 24, item 6): the wallet names itself and the mailbox. */
export function emailSubscribeMessage(address: string, email: string, at: Date): string {
  return `Send Spooks notifications for ${address} to ${email}. Timestamp: ${at.toISOString()}`;
}

const EMAIL_SUBSCRIBE_PATTERN = new RegExp(String.raw`^Send Spooks notifications for (\S+) to (\S+)\. Timestamp: ${ISO}$`);

export function parseEmailSubscribeMessage(message: string): { address: string; email: string; timestamp: Date } | null {
  const match = EMAIL_SUBSCRIBE_PATTERN.exec(message);
  if (!match) return null;
  const timestamp = parseIso(match[3]);
  return timestamp ? { address: match[1], email: match[2], timestamp } : null;
}

/** Sign-in challenge, laid out as Sign-In With Ethereum (EIP-4361) with "Dogecoin" for "Ethereum". */
export type SignInChallenge = {
  domain: string;
  address: string;
  statement: string;
  uri: string;
  nonce: string;
  issuedAt: Date;
  expirationTime: Date;
};

export const SIGN_IN_STATEMENT = "Sign in to Spooks.";

export function signInMessage(challenge: SignInChallenge): string {
  return [
    `${challenge.domain} wants you to sign in with your Dogecoin account:`,
    challenge.address,
    "",
    challenge.statement,
    "",
    `URI: ${challenge.uri}`,
    `Nonce: ${challenge.nonce}`,
    `Issued At: ${challenge.issuedAt.toISOString()}`,
    `Expiration Time: ${challenge.expirationTime.toISOString()}`,
  ].join("\n");
}

const SIGN_IN_PATTERN = new RegExp(
  [
    String.raw`^(\S+) wants you to sign in with your Dogecoin account:`,
    String.raw`(\S+)`,
    "",
    "(.*)",
    "",
    String.raw`URI: (\S+)`,
    String.raw`Nonce: ([A-Za-z0-9]{8,})`,
    `Issued At: ${ISO}`,
    `Expiration Time: ${ISO}$`,
  ].join("\n"),
);

export function parseSignInMessage(message: string): SignInChallenge | null {
  const match = SIGN_IN_PATTERN.exec(message);
  if (!match) return null;
  const issuedAt = parseIso(match[6]);
  const expirationTime = parseIso(match[7]);
  if (!issuedAt || !expirationTime) return null;
  return {
    domain: match[1],
    address: match[2],
    statement: match[3],
    uri: match[4],
    nonce: match[5],
    issuedAt,
    expirationTime,
  };
}

/** A signed timestamp is fresh when it lies within 10 minutes of server time, either side. */
export function isFreshTimestamp(timestamp: Date, serverNow: Date): boolean {
  return Math.abs(serverNow.getTime() - timestamp.getTime()) <= SIGNATURE_MAX_AGE_MS;
}
