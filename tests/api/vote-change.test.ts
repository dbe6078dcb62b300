/**
 * Votes that can change, and quorum (issue 26, item 4): frozen into the proposal at creation, answered by
 * GET /api/proposals and /api/proposals/{id}; the latest signed vote counts; receipts keep every vote with
 * `supersededBy`, and the verifier recomputes the results from each wallet's latest vote.
 */
import { describe, expect, it } from "vitest";
import { signatureDigest } from "../../app/domain/governance.ts";
import { voteMessage } from "../../app/domain/messages.ts";
import { verifyVotes } from "../../app/domain/vote-receipts.ts";
import { giveItems, minutesFromNow, newWallet, spooks, useApi, type Wallet } from "./support.ts";

const ctx = useApi();

let nextItem = 500;
async function stake(wallet: Wallet, count: number, start: Date): Promise<void> {
  const items = await giveItems(ctx.sql, wallet.address, spooks(...Array.from({ length: count }, () => nextItem++)));
  for (const item of items) {
    await ctx.sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${wallet.address}, ${start})`;
  }
}

type Created = { id: number; title: string; yes: number; no: number; start: Date };

/** Creates a proposal over the API, then moves its window so it is active (the API only opens future ones). */
async function proposal(rules: { allowVoteChange?: boolean; quorum?: unknown }, title = `Change ${Math.random()}`): Promise<Created> {
  const answer = await ctx.call(
    "POST",
    "/api/proposals",
    {
      title,
      description: "Described",
      startDate: minutesFromNow(5).toISOString(),
      endDate: minutesFromNow(60).toISOString(),
      voteType: "yes_no",
      ...rules,
    },
    { cookie: await ctx.adminCookie() },
  );
  expect(answer.status).toBe(201);
  const start = minutesFromNow(-30);
  await ctx.sql`update proposals set start_date = ${start} where id = ${answer.body.id}`;
  const [yes, no] = answer.body.options;
  return { id: answer.body.id, title, yes: yes.id, no: no.id, start };
}

async function vote(wallet: Wallet, p: Created, optionId: number, signedAt = new Date()) {
  const message = voteMessage(p.id, p.title, optionId, signedAt);
  const signature = wallet.sign(message);
  return ctx.call("POST", `/api/proposals/${p.id}/vote`, { address: wallet.address, optionId, message, signature });
}

const end = async (p: Created) => ctx.sql`update proposals set end_date = ${minutesFromNow(-1)} where id = ${p.id}`;

describe("votes that can change", () => {
  it("by default a second vote is refused (409), as before", async () => {
    const p = await proposal({});
    const alice = newWallet();
    await stake(alice, 2, new Date(p.start.getTime() - 60_000));
    expect((await vote(alice, p, p.yes)).status).toBe(200);
    const again = await vote(alice, p, p.no);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe("You've already voted on this proposal");
    const detail = await ctx.call("GET", `/api/proposals/${p.id}`);
    expect(detail.body).toMatchObject({ allowVoteChange: false, quorum: null, quorumStatus: null, quorumMet: null, outcome: null });
  });

  it("refuses a vote dated more than a minute ahead of the server (401), so no vote can pin a later change (issue 32, item 11)", async () => {
    const p = await proposal({ allowVoteChange: true });
    const alice = newWallet();
    await stake(alice, 1, new Date(p.start.getTime() - 60_000));
    const ahead = await vote(alice, p, p.yes, new Date(Date.now() + 9 * 60_000));
    expect(ahead.status).toBe(401);
    expect(ahead.body.message).toBe("The signed vote's timestamp is more than a minute ahead of server time: check your device's clock");
    expect(await ctx.sql`select 1 from votes where proposal_id = ${p.id}`).toEqual([]);
    // Within a minute: a clock a little fast is fine, and a vote signed after it still replaces it.
    expect((await vote(alice, p, p.yes, new Date(Date.now() + 30_000))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [{ signedAt }] = await ctx.sql<{ signedAt: Date }[]>`select signed_at from votes where proposal_id = ${p.id}`;
    const later = await vote(alice, p, p.no, new Date(signedAt.getTime() + 1));
    expect(later.status).toBe(200);
    expect(later.body.vote.supersededBy).toBeNull();
  });

  it("with allowVoteChange the later signed vote replaces the earlier; receipts keep both and the verifier agrees", async () => {
    const p = await proposal({ allowVoteChange: true });
    const [alice, bob] = [newWallet(), newWallet()];
    await stake(alice, 3, new Date(p.start.getTime() - 60_000));
    await stake(bob, 1, new Date(p.start.getTime() - 60_000));
    const first = await vote(alice, p, p.yes, new Date(Date.now() - 60_000));
    const second = await vote(alice, p, p.no);
    expect(second.status).toBe(200);
    expect(second.body.vote.supersededBy).toBeNull();
    // Signed before the vote that counts, arriving after it: kept, not counted.
    const late = await vote(alice, p, p.yes, new Date(Date.now() - 30_000));
    expect(late.status).toBe(200);
    expect(late.body.vote.supersededBy).toBe(second.body.vote.id);
    expect((await vote(bob, p, p.yes)).status).toBe(200);

    const detail = await ctx.call("GET", `/api/proposals/${p.id}`);
    expect(detail.body).toMatchObject({
      allowVoteChange: true,
      totalVotes: 4,
      uniqueVoters: 2,
      options: [
        { id: p.yes, voteCount: 1 },
        { id: p.no, voteCount: 3 },
      ],
    });
    const listed = (await ctx.call("GET", "/api/proposals")).body.find((row: { id: number }) => row.id === p.id);
    expect(listed).toMatchObject({ allowVoteChange: true, quorum: null });
    expect((await ctx.call("GET", `/api/proposals/user/${alice.address}`)).body).toEqual([{ proposalId: p.id, optionId: p.no }]);

    const receipts = await ctx.call("GET", `/api/proposals/${p.id}/votes`);
    const mine = receipts.body.votes.filter((v: { address: string }) => v.address === alice.address);
    expect(mine.map((v: { id: number; supersededBy: number | null }) => [v.id, v.supersededBy])).toEqual([
      [first.body.vote.id, second.body.vote.id],
      [second.body.vote.id, null],
      [late.body.vote.id, second.body.vote.id],
    ]);
    const verification = await verifyVotes(detail.body, receipts.body.votes);
    expect(verification.failed).toEqual([]);
    expect(verification.tallyDifferences).toEqual([]);
    expect(verification.verified).toBe(true);

    // Published as if the earlier vote counted: the verifier, recomputing from the latest vote, says so.
    const forged = receipts.body.votes.map((v: { id: number; supersededBy: number | null }) =>
      v.id === first.body.vote.id ? { ...v, supersededBy: null } : v,
    );
    const caught = await verifyVotes(detail.body, forged);
    expect(caught.verified).toBe(false);
    expect(caught.failed[0].problems).toContain("Published as counted, but the same wallet signed a later vote");
    const inflated = await verifyVotes(
      { ...detail.body, options: [{ ...detail.body.options[0], voteCount: 4 }, detail.body.options[1]] },
      receipts.body.votes,
    );
    expect(inflated.tallyDifferences).toEqual(['"Yes": 4 published, 1 in the receipts']);
  });

  it("equal signed timestamps: the higher SHA-256 of the signature wins, whichever arrives first", async () => {
    const p = await proposal({ allowVoteChange: true });
    const alice = newWallet();
    await stake(alice, 1, new Date(p.start.getTime() - 60_000));
    const at = new Date(Date.now() - 5_000);
    const a = await vote(alice, p, p.yes, at);
    const b = await vote(alice, p, p.no, at);
    const receipts = (await ctx.call("GET", `/api/proposals/${p.id}/votes`)).body.votes;
    const digests = receipts.map((v: { signature: string }) => signatureDigest(v.signature));
    const winner = digests[0] > digests[1] ? a.body.vote.id : b.body.vote.id;
    expect(receipts.filter((v: { supersededBy: number | null }) => v.supersededBy === null).map((v: { id: number }) => v.id)).toEqual([
      winner,
    ]);
  });
});

describe("quorum", () => {
  it("is frozen into the proposal, refused when malformed, and decides the outcome", async () => {
    const cookie = await ctx.adminCookie();
    const bad = async (quorum: unknown) =>
      (
        await ctx.call(
          "POST",
          "/api/proposals",
          {
            title: "Bad",
            description: "x",
            startDate: minutesFromNow(5).toISOString(),
            endDate: minutesFromNow(60).toISOString(),
            voteType: "yes_no",
            quorum,
          },
          { cookie },
        )
      ).body.message;
    expect(await bad({ kind: "percent", value: 101 })).toBe("quorum.value must be at most 100 for a percent quorum");
    expect(await bad({ kind: "votes", value: 1 })).toBe('quorum.kind must be "power" or "percent"');
    expect(await bad({ kind: "power", value: 0 })).toBe("quorum.value must be at least 1");

    // Power staked at the start: whatever other tests staked before it, plus ours.
    const p = await proposal({ quorum: { kind: "percent", value: 100 } });
    const [alice, bob] = [newWallet(), newWallet()];
    await stake(alice, 2, new Date(p.start.getTime() - 60_000));
    await stake(bob, 1, new Date(p.start.getTime() - 60_000));
    const [{ staked }] = await ctx.sql`
      select count(*)::int as staked from stakes where started_at <= ${p.start} and (ended_at is null or ended_at > ${p.start})`;
    expect((await vote(alice, p, p.yes)).status).toBe(200);
    await expect(ctx.sql`update proposals set quorum_value = 1 where id = ${p.id}`).rejects.toThrow(/never change/);
    await end(p);
    const detail = (await ctx.call("GET", `/api/proposals/${p.id}`)).body;
    expect(detail).toMatchObject({
      quorum: { kind: "percent", value: 100 },
      quorumStatus: { kind: "percent", value: 100, requiredPower: staked, stakedAtStart: staked },
      quorumMet: false,
      outcome: "quorum not met",
    });

    const met = await proposal({ quorum: { kind: "power", value: 2 } });
    const carol = newWallet();
    await stake(carol, 2, new Date(met.start.getTime() - 60_000));
    expect((await vote(carol, met, met.no)).status).toBe(200);
    await end(met);
    expect((await ctx.call("GET", `/api/proposals/${met.id}`)).body).toMatchObject({ quorumMet: true, outcome: "failed" });

    const passed = await proposal({});
    const dave = newWallet();
    await stake(dave, 1, new Date(passed.start.getTime() - 60_000));
    expect((await vote(dave, passed, passed.yes)).status).toBe(200);
    expect((await ctx.call("GET", `/api/proposals/${passed.id}`)).body.outcome).toBeNull(); // still active
    await end(passed);
    expect((await ctx.call("GET", `/api/proposals/${passed.id}`)).body).toMatchObject({ quorumMet: null, outcome: "passed" });
  });
});
