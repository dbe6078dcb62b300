/** Governance: admin proposals, snapshot voting power, signed one-per-wallet votes. */
import { describe, expect, it } from "vitest";
import { voteMessage } from "../../app/domain/messages.ts";
import { giveItems, minutesFromNow, newWallet, nonAdminSession, spooks, useApi, type Wallet } from "./support.ts";

const ctx = useApi();

const proposalInput = (overrides: Record<string, unknown> = {}) => ({
  title: "Add a third collection?",
  description: "Should we?",
  startDate: minutesFromNow(60).toISOString(),
  endDate: minutesFromNow(120).toISOString(),
  voteType: "multiple_choice",
  options: ["  Alpha ", "Beta", "   "],
  createdBy: "someone-else",
  ...overrides,
});

type Seeded = { id: number; title: string; options: number[] };

/** A proposal inserted directly with any window (the API only creates future ones). */
async function insertProposal(start: Date, end: Date, title = `Proposal ${Math.random()}`): Promise<Seeded> {
  const [{ id }] = await ctx.sql<{ id: number }[]>`
    insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at)
    values (${title}, 'Described', ${start}, ${end}, 'yes_no', 'test', now()) returning id`;
  const options = await ctx.sql<{ id: number }[]>`
    insert into proposal_options (proposal_id, position, option_text) values (${id}, 0, 'Yes'), (${id}, 1, 'No') returning id`;
  return { id, title, options: options.map((option) => option.id) };
}

/** Stakes `count` fresh items for `wallet` over [start, end). */
let nextItem = 100;
async function stakeHistory(wallet: Wallet, count: number, start: Date, end: Date | null = null): Promise<void> {
  const items = await giveItems(ctx.sql, wallet.address, spooks(...Array.from({ length: count }, () => nextItem++)));
  for (const item of items) {
    await ctx.sql`
      insert into stakes (item_id, address, started_at, ended_at, end_reason)
      values (${item.id}, ${wallet.address}, ${start}, ${end}, ${end ? "unstaked" : null})`;
  }
}

function voteBody(wallet: Wallet, proposal: Seeded, optionId: number, at = new Date(), title = proposal.title) {
  const message = voteMessage(proposal.id, title, optionId, at);
  return { address: wallet.address, optionId, message, signature: wallet.sign(message) };
}

describe("proposals (admin)", () => {
  it("creates with 201 in list shape; the creator is the signed-in admin", async () => {
    const answer = await ctx.call("POST", "/api/proposals", proposalInput(), { cookie: await ctx.adminCookie() });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.any(Number),
      title: "Add a third collection?",
      description: "Should we?",
      startDate: expect.any(String),
      endDate: expect.any(String),
      status: "upcoming",
      voteType: "multiple_choice",
      options: [
        { id: expect.any(Number), optionText: "Alpha" },
        { id: expect.any(Number), optionText: "Beta" },
      ],
      createdBy: ctx.admin.address,
      allowVoteChange: false,
      quorum: null,
    });
    const yesNo = await ctx.call("POST", "/api/proposals", proposalInput({ voteType: "yes_no", options: [] }), {
      cookie: await ctx.adminCookie(),
    });
    expect(yesNo.body.options.map((option: { optionText: string }) => option.optionText)).toEqual(["Yes", "No"]);
    const detail = await ctx.call("GET", `/api/proposals/${answer.body.id}`);
    expect(detail.body).toMatchObject({
      id: answer.body.id,
      totalVotes: 0,
      uniqueVoters: 0,
      options: [{ voteCount: 0 }, { voteCount: 0 }],
    });
    const list = await ctx.call("GET", "/api/proposals");
    expect(list.body.map((p: { id: number }) => p.id)).toEqual(expect.arrayContaining([answer.body.id, yesNo.body.id]));
  });

  it("refuses invalid proposals with the spec's texts (400) and non-admins (401/403)", async () => {
    const cookie = await ctx.adminCookie();
    const cases: [Record<string, unknown>, string | RegExp][] = [
      [{ options: ["Only one"] }, "Multiple choice proposals require at least two options"],
      [{ startDate: minutesFromNow(-5).toISOString() }, "Start date must be in the future"],
      [{ endDate: minutesFromNow(30).toISOString() }, "End date must be after start date"],
      [{ title: "  " }, "Please fill out all required fields"],
      [{ title: "t".repeat(201) }, /at most 200/],
      [{ voteType: "ranked" }, /voteType/],
      [{ options: "Alpha,Beta" }, /options/],
    ];
    for (const [overrides, message] of cases) {
      const answer = await ctx.call("POST", "/api/proposals", proposalInput(overrides), { cookie });
      expect(answer.status, JSON.stringify(overrides)).toBe(400);
      expect(answer.body.message).toMatch(message);
    }
    const body = { ...proposalInput(), adminAddress: ctx.admin.address };
    expect((await ctx.call("POST", "/api/proposals", body)).status).toBe(401);
    expect((await ctx.call("POST", "/api/proposals", body, { cookie: await nonAdminSession(ctx.sql) })).status).toBe(403);
  });

  it("deletes (admin only) and answers 404 for unknown ids", async () => {
    const proposal = await insertProposal(minutesFromNow(10), minutesFromNow(20));
    expect((await ctx.call("DELETE", `/api/proposals/${proposal.id}`, { adminAddress: ctx.admin.address })).status).toBe(401);
    const answer = await ctx.call("DELETE", `/api/proposals/${proposal.id}`, {}, { cookie: await ctx.adminCookie() });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true });
    expect((await ctx.call("GET", `/api/proposals/${proposal.id}`)).status).toBe(404);
    expect((await ctx.call("DELETE", `/api/proposals/${proposal.id}`, {}, { cookie: await ctx.adminCookie() })).status).toBe(404);
    expect((await ctx.call("GET", "/api/proposals/0")).status).toBe(404);
    expect((await ctx.call("GET", "/api/proposals/-3")).status).toBe(404);
  });
});

describe("voting", () => {
  it("weights a vote by the wallet's staked items at the proposal's start (snapshot)", async () => {
    const proposal = await insertProposal(minutesFromNow(-60), minutesFromNow(60));
    const whale = newWallet();
    const late = newWallet();
    const leaver = newWallet();
    await stakeHistory(whale, 3, minutesFromNow(-120));
    await stakeHistory(late, 2, minutesFromNow(-30));
    await stakeHistory(leaver, 1, minutesFromNow(-120), minutesFromNow(-10));

    const power = async (wallet: Wallet, query = "") =>
      (await ctx.call("GET", `/api/proposals/voting-power/${wallet.address}${query}`)).body.votingPower;
    expect(await power(late)).toBe(2);
    expect(await power(late, `?proposalId=${proposal.id}`)).toBe(0);
    expect(await power(leaver)).toBe(0);
    expect(await power(leaver, `?proposalId=${proposal.id}&_t=1`)).toBe(1);
    expect(await power(whale, `?proposalId=${proposal.id}`)).toBe(3);
    expect((await ctx.call("GET", `/api/proposals/voting-power/${whale.address}?proposalId=999999`)).status).toBe(404);
    expect((await ctx.call("GET", `/api/proposals/voting-power/${whale.address}?proposalId=abc`)).status).toBe(404);
    expect((await ctx.call("GET", "/api/proposals/voting-power/nope")).status).toBe(400);

    const [yes, no] = proposal.options;
    const vote = await ctx.call("POST", `/api/proposals/${proposal.id}/vote`, voteBody(whale, proposal, yes));
    expect(vote.status).toBe(200);
    expect(vote.body).toMatchObject({ success: true, vote: { proposalId: proposal.id, optionId: yes, weight: 3 } });
    expect((await ctx.call("POST", `/api/proposals/${proposal.id}/vote`, voteBody(leaver, proposal, no))).status).toBe(200);
    const noPower = await ctx.call("POST", `/api/proposals/${proposal.id}/vote`, voteBody(late, proposal, no));
    expect(noPower.status).toBe(403);

    const detail = await ctx.call("GET", `/api/proposals/${proposal.id}`);
    expect(detail.body).toMatchObject({
      status: "active",
      totalVotes: 4,
      uniqueVoters: 2,
      options: [
        { id: yes, optionText: "Yes", voteCount: 3 },
        { id: no, optionText: "No", voteCount: 1 },
      ],
    });
    expect((await ctx.call("GET", `/api/proposals/user/${whale.address}`)).body).toEqual([{ proposalId: proposal.id, optionId: yes }]);
    expect((await ctx.call("GET", `/api/proposals/user/${late.address}`)).body).toEqual([]);
  });

  it("refuses a second vote (409), and bad signatures and messages (401)", async () => {
    const proposal = await insertProposal(minutesFromNow(-60), minutesFromNow(60));
    const voter = newWallet();
    const other = newWallet();
    await stakeHistory(voter, 1, minutesFromNow(-120));
    const [yes, no] = proposal.options;
    const path = `/api/proposals/${proposal.id}/vote`;
    const good = voteBody(voter, proposal, yes);
    const cases: unknown[] = [
      voteBody(voter, proposal, yes, new Date(), "Another title"),
      { ...voteBody(voter, proposal, no), optionId: yes },
      voteBody(voter, proposal, yes, minutesFromNow(-11)),
      { ...voteBody(other, proposal, yes), address: voter.address },
      { ...good, signature: good.signature.slice(0, -4) + "AAAA" },
    ];
    for (const body of cases) expect((await ctx.call("POST", path, body)).status).toBe(401);
    expect((await ctx.call("POST", path, good)).status).toBe(200);
    expect((await ctx.call("POST", path, good)).status).toBe(401);
    const second = await ctx.call("POST", path, voteBody(voter, proposal, no, minutesFromNow(-1)));
    expect(second.status).toBe(409);
    expect((await ctx.call("GET", `/api/proposals/${proposal.id}`)).body.totalVotes).toBe(1);
  });

  it("refuses votes outside the window (409), on other proposals' options (400), on unknown proposals (404)", async () => {
    const upcoming = await insertProposal(minutesFromNow(30), minutesFromNow(60));
    const completed = await insertProposal(minutesFromNow(-120), minutesFromNow(-60));
    const active = await insertProposal(minutesFromNow(-200), minutesFromNow(60));
    const voter = newWallet();
    await stakeHistory(voter, 1, minutesFromNow(-300));
    expect((await ctx.call("POST", `/api/proposals/${upcoming.id}/vote`, voteBody(voter, upcoming, upcoming.options[0]))).status).toBe(409);
    expect((await ctx.call("POST", `/api/proposals/${completed.id}/vote`, voteBody(voter, completed, completed.options[0]))).status).toBe(
      409,
    );
    const foreign = await ctx.call("POST", `/api/proposals/${active.id}/vote`, voteBody(voter, active, completed.options[0]));
    expect(foreign.status).toBe(400);
    expect((await ctx.call("POST", "/api/proposals/999999/vote", voteBody(voter, { ...active, id: 999999 }, 1))).status).toBe(404);
    expect((await ctx.call("POST", `/api/proposals/${active.id}/vote`, { ...voteBody(voter, active, 1), optionId: "1" })).status).toBe(400);
    expect((await ctx.call("POST", `/api/proposals/${active.id}/vote`, { ...voteBody(voter, active, 1), optionId: 2 ** 33 })).status).toBe(
      400,
    );
    expect((await ctx.call("POST", `/api/proposals/${active.id}/vote`, voteBody(voter, active, active.options[1]))).status).toBe(200);
  });

  it("20 concurrent votes from one wallet: exactly one counts", async () => {
    const proposal = await insertProposal(minutesFromNow(-60), minutesFromNow(60));
    const voter = newWallet();
    await stakeHistory(voter, 2, minutesFromNow(-120));
    const base = Date.now();
    const bodies = Array.from({ length: 20 }, (_, i) => voteBody(voter, proposal, proposal.options[i % 2], new Date(base - i)));
    const answers = await Promise.all(bodies.map((body) => ctx.call("POST", `/api/proposals/${proposal.id}/vote`, body)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(19);
    const detail = await ctx.call("GET", `/api/proposals/${proposal.id}`);
    expect(detail.body).toMatchObject({ totalVotes: 2, uniqueVoters: 1 });
  });
});
