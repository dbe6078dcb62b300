/** Public vote receipts: GET /api/proposals/{id}/votes (JSON and CSV), checked by the same verifier as the page. */
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { voteMessage } from "../../app/domain/messages.ts";
import { verifyVotes } from "../../app/domain/vote-receipts.ts";
import { giveItems, minutesFromNow, newWallet, spooks, useApi, type Wallet } from "./support.ts";

const ctx = useApi();

let nextItem = 300;
/** Stakes `count` fresh items for `wallet` from `start` on; answers their inscription ids. */
async function stake(wallet: Wallet, count: number, start: Date): Promise<string[]> {
  const items = await giveItems(ctx.sql, wallet.address, spooks(...Array.from({ length: count }, () => nextItem++)));
  for (const item of items) {
    await ctx.sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${wallet.address}, ${start})`;
  }
  return items.map((item) => item.inscriptionId).sort();
}

async function activeProposal(title: string): Promise<{ id: number; yes: number; no: number; start: Date }> {
  const start = minutesFromNow(-30);
  const [{ id }] = await ctx.sql<{ id: number }[]>`
    insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at)
    values (${title}, 'Described', ${start}, ${minutesFromNow(60)}, 'yes_no', 'test', now()) returning id`;
  const [yes, no] = await ctx.sql<{ id: number }[]>`
    insert into proposal_options (proposal_id, position, option_text) values (${id}, 0, 'Yes'), (${id}, 1, 'No') returning id`;
  return { id, yes: yes.id, no: no.id, start };
}

async function vote(wallet: Wallet, proposal: { id: number }, title: string, optionId: number, magic: "bitcoin" | "dogecoin") {
  const message = voteMessage(proposal.id, title, optionId, new Date());
  const signature = magic === "bitcoin" ? wallet.sign(message) : wallet.signIndependently(message, "dogecoin");
  const answer = await ctx.call("POST", `/api/proposals/${proposal.id}/vote`, { address: wallet.address, optionId, message, signature });
  expect(answer.status).toBe(200);
  return { message, signature };
}

describe("GET /api/proposals/{id}/votes", () => {
  it("answers every vote with its signed message, signature, power and the items that made it; they verify and add up", async () => {
    const title = 'Receipts, "quoted", and a comma';
    const proposal = await activeProposal(title);
    const [alice, bob] = [newWallet(), newWallet()];
    const aliceItems = await stake(alice, 3, new Date(proposal.start.getTime() - 60_000));
    const bobItems = await stake(bob, 2, new Date(proposal.start.getTime() - 60_000));
    await stake(bob, 4, minutesFromNow(-1)); // staked after the start: no power on this proposal
    const aliceVote = await vote(alice, proposal, title, proposal.yes, "bitcoin");
    const bobVote = await vote(bob, proposal, title, proposal.no, "dogecoin");

    const answer = await ctx.call("GET", `/api/proposals/${proposal.id}/votes`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      proposalId: proposal.id,
      votes: [
        {
          address: alice.address,
          option: proposal.yes,
          optionText: "Yes",
          votingPower: 3,
          ...aliceVote,
          votedAt: expect.any(String),
          stakedAtStart: aliceItems,
          id: expect.any(Number),
          supersededBy: null,
        },
        {
          address: bob.address,
          option: proposal.no,
          optionText: "No",
          votingPower: 2,
          ...bobVote,
          votedAt: expect.any(String),
          stakedAtStart: bobItems,
          id: expect.any(Number),
          supersededBy: null,
        },
      ],
    });

    const published = await ctx.call("GET", `/api/proposals/${proposal.id}`);
    const verification = await verifyVotes(published.body, answer.body.votes);
    expect(verification.failed).toEqual([]);
    expect(verification.tally).toEqual({
      options: [
        { id: proposal.yes, voteCount: 3 },
        { id: proposal.no, voteCount: 2 },
      ],
      totalVotes: published.body.totalVotes,
      uniqueVoters: published.body.uniqueVoters,
    });
    expect(verification.verified).toBe(true);
  });

  it("answers ?format=csv with the same votes as a download", async () => {
    const title = "CSV\nwith a line break";
    const proposal = await activeProposal(title);
    const carol = newWallet();
    const items = await stake(carol, 2, new Date(proposal.start.getTime() - 1000));
    const signed = await vote(carol, proposal, title, proposal.no, "bitcoin");

    const answer = await ctx.call("GET", `/api/proposals/${proposal.id}/votes?format=csv`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(answer.headers.get("content-disposition")).toBe(`attachment; filename="proposal-${proposal.id}-votes.csv"`);
    const rows = parse<Record<string, string>>(answer.body as string, { columns: true });
    const json = await ctx.call("GET", `/api/proposals/${proposal.id}/votes`);
    expect(rows).toEqual([
      {
        address: carol.address,
        option: String(proposal.no),
        option_text: "No",
        voting_power: "2",
        message: signed.message,
        signature: signed.signature,
        voted_at: json.body.votes[0].votedAt,
        staked_at_start: items.join(" "),
        id: String(json.body.votes[0].id),
        superseded_by: "",
      },
    ]);
  });

  it("?format=csv defuses option texts a spreadsheet would read as a formula; the signed message stays byte-exact", async () => {
    const title = "Formulas";
    const start = minutesFromNow(-30);
    const [{ id }] = await ctx.sql<{ id: number }[]>`
      insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at)
      values (${title}, 'Described', ${start}, ${minutesFromNow(60)}, 'multiple_choice', 'test', now()) returning id`;
    const texts = ['=HYPERLINK("http://evil.example")', "+1+2", "-2+3", "@SUM(A1)", "\tTab", "\rReturn", "Plain -1"];
    const options = await ctx.sql<{ id: number }[]>`
      insert into proposal_options (proposal_id, position, option_text)
      select ${id}, position - 1, text from unnest(${texts}::text[]) with ordinality as t(text, position) returning id`;
    const signed = [];
    for (const option of options) {
      const voter = newWallet();
      await stake(voter, 1, new Date(start.getTime() - 1000));
      signed.push(await vote(voter, { id }, title, option.id, "bitcoin"));
    }

    const answer = await ctx.call("GET", `/api/proposals/${id}/votes?format=csv`);
    const rows = parse<Record<string, string>>(answer.body as string, { columns: true });
    expect(rows.map((row) => row.option_text)).toEqual([
      '\'=HYPERLINK("http://evil.example")',
      "'+1+2",
      "'-2+3",
      "'@SUM(A1)",
      "'\tTab",
      "'\rReturn",
      "Plain -1",
    ]);
    expect(rows.map((row) => [row.message, row.signature])).toEqual(signed.map((vote) => [vote.message, vote.signature]));
    const json = await ctx.call("GET", `/api/proposals/${id}/votes`);
    expect(json.body.votes.map((vote: { optionText: string }) => vote.optionText)).toEqual(texts);
  });

  it("answers an empty list for a proposal without votes, 404 for none, 400 for an unknown format", async () => {
    const proposal = await activeProposal("Nobody voted");
    expect((await ctx.call("GET", `/api/proposals/${proposal.id}/votes`)).body).toEqual({ proposalId: proposal.id, votes: [] });
    expect(await ctx.call("GET", "/api/proposals/999999/votes")).toMatchObject({ status: 404, body: { message: "Proposal not found" } });
    expect(await ctx.call("GET", `/api/proposals/${proposal.id}/votes?format=xml`)).toMatchObject({
      status: 400,
      body: { message: "format must be json or csv" },
    });
  });
});
