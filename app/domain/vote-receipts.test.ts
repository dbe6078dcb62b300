import bitcoinMessage from "bitcoinjs-message";
import { describe, expect, it } from "vitest";
import { voteMessage } from "./messages.ts";
import { addressOfPrivateKey, newPrivateKey, signMessage } from "./signature.ts";
import { checkVote, verifyVotes, type PublishedResults, type VoteReceipt } from "./vote-receipts.ts";

const START = new Date("2026-11-01T00:00:00.000Z");
const VOTED = new Date("2026-11-02T10:30:00.000Z");
const item = (n: number) => `${n.toString(16).padStart(64, "0")}i0`;

type Voter = { key: Uint8Array; address: string };
const newVoter = (): Voter => {
  const key = newPrivateKey();
  return { key, address: addressOfPrivateKey(key) };
};

const results = (options: [number, number][]): PublishedResults => ({
  id: 4,
  title: "Add a third collection?",
  startDate: START.toISOString(),
  endDate: "2026-11-08T00:00:00.000Z",
  options: options.map(([id, voteCount]) => ({ id, optionText: `Option ${id}`, voteCount })),
  totalVotes: options.reduce((sum, [, count]) => sum + count, 0),
  uniqueVoters: 0,
});

let nextItem = 1;
/** A vote signed for real: by our signer (Bitcoin magic) or independently with Dogecoin Core's magic. */
function receipt(voter: Voter, option: number, power: number, magic: "bitcoin" | "dogecoin" = "bitcoin"): VoteReceipt {
  const message = voteMessage(4, "Add a third collection?", option, VOTED);
  const signature =
    magic === "bitcoin"
      ? signMessage(voter.key, message)
      : bitcoinMessage.sign(message, Buffer.from(voter.key), true, "\x19Dogecoin Signed Message:\n").toString("base64");
  return {
    address: voter.address,
    option,
    votingPower: power,
    message,
    signature,
    votedAt: new Date(VOTED.getTime() + 1000).toISOString(),
    stakedAtStart: Array.from({ length: power }, () => item(nextItem++)),
  };
}

function honest() {
  const votes = [receipt(newVoter(), 9, 3), receipt(newVoter(), 10, 2, "dogecoin"), receipt(newVoter(), 9, 1)];
  return {
    votes,
    published: {
      ...results([
        [9, 4],
        [10, 2],
      ]),
      uniqueVoters: 3,
    },
  };
}

describe("vote receipts", () => {
  it("verifies honest votes under both magics and recomputes the published tally", async () => {
    const { votes, published } = honest();
    const verification = await verifyVotes(published, votes);
    expect(verification.failed).toEqual([]);
    expect(verification.checks.map((check) => check.magic)).toEqual(["bitcoin", "dogecoin", "bitcoin"]);
    expect(verification.tally).toEqual({
      options: [
        { id: 9, voteCount: 4 },
        { id: 10, voteCount: 2 },
      ],
      totalVotes: 6,
      uniqueVoters: 3,
    });
    expect(verification.tallyDifferences).toEqual([]);
    expect(verification.verified).toBe(true);
  });

  it("fails a forged signature: another wallet's, or a bit flipped", () => {
    const { votes, published } = honest();
    const forged = { ...votes[0], signature: signMessage(newVoter().key, votes[0].message) };
    expect(checkVote(published, forged).problems).toEqual([expect.stringMatching(/^Signature does not check out/)]);
    const bytes = Buffer.from(votes[0].signature, "base64");
    bytes[40] ^= 1;
    expect(checkVote(published, { ...votes[0], signature: bytes.toString("base64") }).problems[0]).toMatch(/^Signature does not check out/);
  });

  it("fails an altered message (its signature no longer matches) and a message naming another proposal", () => {
    const { votes, published } = honest();
    const altered = { ...votes[0], message: votes[0].message.replace("Option: 9", "Option: 10") };
    expect(checkVote(published, altered).problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Signature does not check out/),
        "The signed message names option 10, the vote counts option 9",
      ]),
    );
    const voter = newVoter();
    const elsewhere = receipt(voter, 9, 1);
    elsewhere.message = voteMessage(5, "Add a third collection?", 9, VOTED);
    elsewhere.signature = signMessage(voter.key, elsewhere.message);
    expect(checkVote(published, elsewhere).problems).toEqual(["The signed message names proposal #5, not #4"]);
  });

  it("fails a vote counted for another option than the one signed", () => {
    const { votes, published } = honest();
    expect(checkVote(published, { ...votes[0], option: 10 }).problems).toEqual([
      "The signed message names option 9, the vote counts option 10",
    ]);
  });

  it("fails a changed voting power, and an item counted for two wallets", async () => {
    const { votes, published } = honest();
    expect(checkVote(published, { ...votes[0], votingPower: 30 }).problems).toEqual(["Voting power 30, but 3 staked items listed"]);
    const shared = [...votes];
    shared[2] = { ...votes[2], stakedAtStart: [votes[0].stakedAtStart![0]] };
    const verification = await verifyVotes(published, shared);
    expect(verification.failed.map((check) => [check.index, check.problems])).toEqual([
      [2, [`Item ${votes[0].stakedAtStart![0]} also counted for vote 1`]],
    ]);
    expect(verification.verified).toBe(false);
  });

  it("shows a tally that differs from the published results, and a wallet voting twice", async () => {
    const { votes, published } = honest();
    const inflated = await verifyVotes({ ...published, options: [published.options[0], { ...published.options[1], voteCount: 3 }] }, votes);
    expect(inflated.failed).toEqual([]);
    expect(inflated.tallyDifferences).toEqual(['"Option 10": 3 published, 2 in the receipts']);
    expect(inflated.verified).toBe(false);
    const twice = await verifyVotes(published, [...votes, votes[1]]);
    expect(twice.failed.map((check) => check.problems[0])).toEqual(["This wallet already voted (vote 2)"]);
    expect(twice.tallyDifferences).toEqual(expect.arrayContaining(["Total: 6 published, 8 in the receipts"]));
  });

  it("fails a vote recorded long after it was signed, or outside the window", () => {
    const { votes, published } = honest();
    expect(checkVote(published, { ...votes[0], votedAt: "2026-11-02T11:00:00.000Z" }).problems).toEqual([
      "Signed more than 10 minutes from when it was recorded",
    ]);
    expect(checkVote({ ...published, endDate: "2026-11-02T10:00:00.000Z" }, votes[0]).problems).toEqual([
      "Recorded outside the voting window",
    ]);
  });

  it("fails a forged item list: an id that is not a well-formed inscription id, another spelling of one, or one outside the catalogue", async () => {
    const { votes, published } = honest();
    const [first] = votes;
    const listed = first.stakedAtStart!;
    const withItems = (stakedAtStart: unknown[]) => ({ ...first, stakedAtStart: stakedAtStart as string[] });
    expect(checkVote(published, withItems([listed[0], listed[1], "not-an-id"])).problems).toEqual([
      'Item "not-an-id" is not a well-formed inscription id',
    ]);
    // The same inscription spelled twice (upper-case hex, a leading zero in the index) would dodge the once-only rule.
    const respelled = [listed[0], listed[1], listed[0].toUpperCase().replace("I0", "i0")];
    expect(checkVote(published, withItems(respelled)).problems).toEqual([
      expect.stringMatching(/^Item ".*" is not a well-formed inscription id$/),
    ]);
    expect(checkVote(published, withItems([listed[0], listed[1], `${listed[0]}0`])).problems).toEqual([
      expect.stringMatching(/is not a well-formed inscription id$/),
    ]);
    expect(checkVote(published, withItems([listed[0], listed[1], 7])).problems).toEqual(['Item "7" is not a well-formed inscription id']);

    const catalogue = new Set(votes.flatMap((vote) => vote.stakedAtStart!));
    expect((await verifyVotes(published, votes, { catalogue })).verified).toBe(true);
    const outsider = `${"f".repeat(64)}i0`;
    const forged = [withItems([listed[0], listed[1], outsider]), votes[1], votes[2]];
    const verification = await verifyVotes(published, forged, { catalogue });
    expect(verification.failed.map((check) => [check.index, check.problems])).toEqual([[0, [`Item ${outsider} is not in the catalogue`]]]);
    expect(verification.verified).toBe(false);
  });

  it("fails an item counted twice across votes however the votes are ordered, and a power that is not the count", async () => {
    const { votes, published } = honest();
    const borrowed = { ...votes[1], stakedAtStart: [votes[1].stakedAtStart![0], votes[0].stakedAtStart![2]] };
    for (const order of [
      [votes[0], borrowed, votes[2]],
      [borrowed, votes[2], votes[0]],
    ]) {
      const verification = await verifyVotes(published, order);
      // Whichever comes second is the one that counts it again.
      expect(verification.failed.flatMap((check) => check.problems)).toEqual([
        `Item ${votes[0].stakedAtStart![2]} also counted for vote 1`,
      ]);
    }
    expect(checkVote(published, { ...votes[0], votingPower: 2 }).problems).toEqual(["Voting power 2, but 3 staked items listed"]);
    expect(checkVote(published, { ...votes[0], stakedAtStart: [] }).problems).toEqual(["Voting power 3, but 0 staked items listed"]);
  });

  it("catches a vote left out of the receipts through the published totals", async () => {
    const { votes, published } = honest();
    const omitted = await verifyVotes(published, [votes[0], votes[2]]);
    expect(omitted.failed).toEqual([]);
    expect(omitted.tallyDifferences).toEqual([
      '"Option 10": 2 published, 0 in the receipts',
      "Total: 6 published, 4 in the receipts",
      "Voters: 3 published, 2 in the receipts",
    ]);
    expect(omitted.verified).toBe(false);
  });

  it("checks in batches, pausing between them and reporting progress", async () => {
    const { votes, published } = honest();
    const progress: number[] = [];
    let pauses = 0;
    await verifyVotes(published, votes, { batchSize: 2, pause: async () => void pauses++, onProgress: (done) => progress.push(done) });
    expect(progress).toEqual([2, 3]);
    expect(pauses).toBe(1);
  });
});
