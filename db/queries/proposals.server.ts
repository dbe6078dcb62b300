/**
 * Governance: proposals with their options, one vote per wallet per proposal (database constraint),
 * weighted by the wallet's snapshot voting power at the proposal's start (DECISIONS "Governance").
 */
import type { z } from "zod";
import { now } from "../../app/domain/clock.ts";
import { badRequest, conflict, forbidden, notFound } from "../../app/domain/errors.ts";
import {
  proposalOutcome,
  proposalStatus,
  replaces,
  requiredPower,
  type ProposalStatus,
  type Quorum,
  type VoteType,
} from "../../app/domain/governance.ts";
import { parseVoteMessage } from "../../app/domain/messages.ts";
import { createProposalSchema } from "../../app/domain/validation.ts";
import type { Queryable } from "../client.server.ts";
import { recordAudit, type Actor } from "./audit.server.ts";
import { isRowId, parseOrRefuse, requireRowId } from "./input.server.ts";
import { notify, proposalOpened } from "./notifications.server.ts";
import { inTransaction } from "./transaction.server.ts";

export type ProposalOption = { id: number; optionText: string };

export type Proposal = {
  id: number;
  title: string;
  description: string;
  startDate: Date;
  endDate: Date;
  status: ProposalStatus;
  voteType: VoteType;
  options: ProposalOption[];
  createdBy: string;
  /** Frozen at creation (issue 26): whether a later signed vote replaces a wallet's earlier one. */
  allowVoteChange: boolean;
  quorum: Quorum | null;
};

export type ProposalDetail = Omit<Proposal, "options"> & {
  options: (ProposalOption & { voteCount: number })[];
  totalVotes: number;
  uniqueVoters: number;
  /** The quorum with the power it asks for (null before the start, when the power staked then is not known yet). */
  quorumStatus: (Quorum & { requiredPower: number | null; stakedAtStart: number | null }) | null;
  quorumMet: boolean | null;
  outcome: string | null;
};

export type CreateProposalInput = z.input<typeof createProposalSchema> & { createdBy: string };

export type CastVoteInput = {
  proposalId: number;
  optionId: number;
  address: string;
  signature: string;
  message: string;
  /** The timestamp the signed message carries: which of a wallet's votes is its latest (default: read from `message`). */
  signedAt?: Date;
};

export type Vote = {
  id: number;
  proposalId: number;
  optionId: number;
  address: string;
  weight: number;
  votedAt: Date;
  /** Set when a vote of the same wallet signed later already counts (this one is kept, not counted). */
  supersededBy: number | null;
};

export type UserVote = { proposalId: number; optionId: number };

type ProposalRow = Omit<Proposal, "status" | "options" | "quorum"> & { quorumKind: Quorum["kind"] | null; quorumValue: number | null };

const proposalColumns = (sql: Queryable) =>
  sql`id, title, description, start_date, end_date, vote_type, created_by, allow_vote_change, quorum_kind, quorum_value`;

function withStatus<T extends ProposalRow>(
  { quorumKind, quorumValue, ...row }: T,
  at: Date,
): Omit<T, "quorumKind" | "quorumValue"> & { status: ProposalStatus; quorum: Quorum | null } {
  const quorum = quorumKind && quorumValue !== null ? { kind: quorumKind, value: quorumValue } : null;
  return { ...row, quorum, status: proposalStatus(row.startDate, row.endDate, at) };
}

async function optionsOf(sql: Queryable, proposalIds: number[]): Promise<Map<number, (ProposalOption & { voteCount: number })[]>> {
  const rows = await sql<{ proposalId: number; id: number; optionText: string; voteCount: number }[]>`
    select o.proposal_id, o.id, o.option_text,
           coalesce((select sum(v.weight) from votes v
                     where v.proposal_id = o.proposal_id and v.option_id = o.id and v.superseded_by is null), 0)::int8 as vote_count
    from proposal_options o
    where o.proposal_id = any(${proposalIds}::int[])
    order by o.proposal_id, o.position`;
  const byProposal = new Map<number, (ProposalOption & { voteCount: number })[]>();
  for (const { proposalId, ...option } of rows) {
    byProposal.set(proposalId, [...(byProposal.get(proposalId) ?? []), option]);
  }
  return byProposal;
}

/** Every proposal (or those with `ids`), latest start first, with its status at `at` and its options. */
export async function listProposals(sql: Queryable, at: Date = now(), ids?: number[]): Promise<Proposal[]> {
  const rows = await sql<ProposalRow[]>`
    select ${proposalColumns(sql)} from proposals
    ${ids ? sql`where id = any(${ids}::int[])` : sql``}
    order by start_date desc, id desc`;
  const options = await optionsOf(
    sql,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    ...withStatus(row, at),
    options: (options.get(row.id) ?? []).map(({ id, optionText }) => ({ id, optionText })),
  }));
}

export async function getProposalDetail(sql: Queryable, id: number, at: Date = now()): Promise<ProposalDetail> {
  requireRowId(id, "Proposal");
  const [row] = await sql<ProposalRow[]>`select ${proposalColumns(sql)} from proposals where id = ${id}`;
  if (!row) throw notFound("Proposal not found");
  const [totals] = await sql<{ totalVotes: number; uniqueVoters: number }[]>`
    select coalesce(sum(weight), 0)::int8 as total_votes, count(*)::int as unique_voters
    from votes where proposal_id = ${id} and superseded_by is null`;
  const options = (await optionsOf(sql, [id])).get(id) ?? [];
  const proposal = withStatus(row, at);
  let quorumStatus: ProposalDetail["quorumStatus"] = null;
  let quorumMet: boolean | null = null;
  if (proposal.quorum) {
    const started = proposal.startDate.getTime() <= at.getTime();
    const staked = started ? await powerStakedAt(sql, proposal.startDate) : null;
    const required = staked === null ? null : requiredPower(proposal.quorum, staked);
    quorumStatus = { ...proposal.quorum, requiredPower: required, stakedAtStart: staked };
    quorumMet = required === null ? null : totals.totalVotes >= required;
  }
  const outcome = proposalOutcome({ status: proposal.status, voteType: proposal.voteType, options, quorumMet });
  return { ...proposal, options, ...totals, quorumStatus, quorumMet, outcome };
}

/** The voting power staked at `at`: every stake open at that instant, whoever's (what a percent quorum is of). */
export async function powerStakedAt(sql: Queryable, at: Date): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from stakes where started_at <= ${at} and (ended_at is null or ended_at > ${at})`;
  return row.count;
}

export async function createProposal(sql: Queryable, input: CreateProposalInput, actor: Actor): Promise<Proposal> {
  const { title, description, startDate, endDate, voteType, options, allowVoteChange, quorum } = parseOrRefuse(createProposalSchema, input);
  const createdBy = String(input.createdBy ?? "").trim() || (actor.kind === "web" ? actor.address : actor.kind);
  return inTransaction(sql, async (tx) => {
    const [{ id }] = await tx<{ id: number }[]>`
      insert into proposals (title, description, start_date, end_date, vote_type, created_by, created_at,
                             allow_vote_change, quorum_kind, quorum_value)
      values (${title}, ${description}, ${startDate}, ${endDate}, ${voteType}, ${createdBy}, ${now()},
              ${allowVoteChange}, ${quorum?.kind ?? null}, ${quorum?.value ?? null})
      returning id`;
    const optionRows = options.map((optionText, position) => ({ proposalId: id, position, optionText }));
    await tx`insert into proposal_options ${tx(optionRows, "proposalId", "position", "optionText")}`;
    const [created] = await listProposals(tx, now(), [id]);
    await recordAudit(
      tx,
      actor,
      "proposal.create",
      `proposal:${id}`,
      { title, voteType, startDate, endDate, options, allowVoteChange, quorum },
      { after: created },
    );
    // Open already: announced with its creation; one starting later is announced by the notification worker at its start.
    if (created.status === "active") await notify(tx, [proposalOpened(created)]);
    return created;
  });
}

/**
 * Opens an upcoming proposal's voting now: its start becomes the present moment (its snapshot is taken now).
 * Refused (409) once voting has started. Audited with its start before → after.
 */
export async function startProposalNow(sql: Queryable, id: number, actor: Actor): Promise<Proposal> {
  requireRowId(id, "Proposal");
  return inTransaction(sql, async (tx) => {
    const [row] = await tx<{ startDate: Date; endDate: Date }[]>`select start_date, end_date from proposals where id = ${id} for update`;
    if (!row) throw notFound("Proposal not found");
    const at = now();
    if (row.startDate.getTime() <= at.getTime()) throw conflict("Voting on this proposal has already started");
    if (row.endDate.getTime() <= at.getTime()) throw conflict("This proposal has already ended");
    await tx`update proposals set start_date = ${at} where id = ${id}`;
    const [started] = await listProposals(tx, at, [id]);
    await recordAudit(
      tx,
      actor,
      "proposal.start",
      `proposal:${id}`,
      { title: started.title },
      {
        before: { startDate: row.startDate },
        after: { startDate: at },
      },
    );
    return started;
  });
}

/** The proposal's title (what a vote message names), or 404. */
export async function proposalTitle(sql: Queryable, id: number): Promise<string> {
  requireRowId(id, "Proposal");
  const [row] = await sql<{ title: string }[]>`select title from proposals where id = ${id}`;
  if (!row) throw notFound("Proposal not found");
  return row.title;
}

export async function deleteProposal(sql: Queryable, id: number, actor: Actor): Promise<void> {
  requireRowId(id, "Proposal");
  await inTransaction(sql, async (tx) => {
    const [locked] = await tx`select 1 from proposals where id = ${id} for update`;
    if (!locked) throw notFound("Proposal not found");
    const before = await getProposalDetail(tx, id);
    await tx`delete from proposals where id = ${id}`;
    await recordAudit(tx, actor, "proposal.delete", `proposal:${id}`, { title: before.title }, { before });
  });
}

/** The inscription ids of the items the wallet had staked at `at` (stake history), sorted: its power's receipt. */
async function stakedItemsAt(sql: Queryable, address: string, at: Date): Promise<string[]> {
  const rows = await sql<{ inscriptionId: string }[]>`
    select i.inscription_id from stakes s join items i on i.id = s.item_id
    where s.address = ${address} and s.started_at <= ${at} and (s.ended_at is null or s.ended_at > ${at})
    order by i.inscription_id`;
  return rows.map((row) => row.inscriptionId);
}

/** Items the wallet had staked at `at` (stake history): open at that instant. */
async function stakedCountAt(sql: Queryable, address: string, at: Date): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from stakes
    where address = ${address} and started_at <= ${at} and (ended_at is null or ended_at > ${at})`;
  return row.count;
}

/**
 * Without a proposal: the wallet's current staked count. With one: its snapshot power, the items it had
 * staked at the proposal's start (for an upcoming proposal, what it has staked now).
 */
export async function votingPower(sql: Queryable, address: string, proposalId?: number): Promise<number> {
  return (await votingPowerSnapshot(sql, address, proposalId)).votingPower;
}

/**
 * The voting power and when it was counted: without a proposal, now (`snapshotAt` null: the current staked
 * count); with one, the proposal's start, or now for an upcoming proposal (its power is not fixed yet).
 */
export async function votingPowerSnapshot(
  sql: Queryable,
  address: string,
  proposalId?: number,
): Promise<{ votingPower: number; snapshotAt: Date | null }> {
  if (proposalId === undefined) {
    const [row] = await sql<{ count: number }[]>`
      select count(*)::int as count from stakes where address = ${address} and ended_at is null`;
    return { votingPower: row.count, snapshotAt: null };
  }
  requireRowId(proposalId, "Proposal");
  const [proposal] = await sql<{ startDate: Date }[]>`select start_date from proposals where id = ${proposalId}`;
  if (!proposal) throw notFound("Proposal not found");
  const at = now();
  const snapshotAt = proposal.startDate.getTime() > at.getTime() ? at : proposal.startDate;
  return { votingPower: await stakedCountAt(sql, address, snapshotAt), snapshotAt };
}

export async function votesOfAddress(sql: Queryable, address: string): Promise<UserVote[]> {
  return sql<UserVote[]>`
    select proposal_id, option_id from votes where address = ${address} and superseded_by is null order by proposal_id`;
}

/**
 * Records one vote. Checks run under a share lock on the proposal (a delete waits), and the wallet's votes on
 * it are locked by an advisory lock, so two votes of one wallet are settled one after the other. Without
 * allowVoteChange a second vote is refused (409); with it, every vote is kept and the latest signed one
 * counts (the later signed timestamp; equal: the higher SHA-256 of the signature): the vote it replaces
 * names it in `superseded_by`, or, arriving late, it names the vote that replaces it.
 */
export async function castVote(sql: Queryable, input: CastVoteInput): Promise<Vote> {
  requireRowId(input.proposalId, "Proposal");
  if (!isRowId(input.optionId)) {
    throw badRequest("This option does not belong to this proposal");
  }
  return inTransaction(sql, async (tx) => {
    const [proposal] = await tx<{ startDate: Date; endDate: Date; allowVoteChange: boolean }[]>`
      select start_date, end_date, allow_vote_change from proposals where id = ${input.proposalId} for share`;
    if (!proposal) throw notFound("Proposal not found");
    const [option] = await tx`
      select 1 from proposal_options where id = ${input.optionId} and proposal_id = ${input.proposalId}`;
    if (!option) throw badRequest("This option does not belong to this proposal");
    const status = proposalStatus(proposal.startDate, proposal.endDate, now());
    if (status !== "active") throw conflict(status === "upcoming" ? "Voting hasn't started yet" : "Voting has ended");
    const stakedAtStart = await stakedItemsAt(tx, input.address, proposal.startDate);
    const weight = stakedAtStart.length;
    if (weight <= 0) throw forbidden("No voting power: you need Spooks staked when the proposal started");
    await tx`select pg_advisory_xact_lock(${VOTE_LOCK_CLASS}, hashtext(${`${input.proposalId}:${input.address}`}))`;
    const [current] = await tx<{ id: number; signedAt: Date; signature: string }[]>`
      select id, signed_at, signature from votes
      where proposal_id = ${input.proposalId} and address = ${input.address} and superseded_by is null`;
    if (current && !proposal.allowVoteChange) throw conflict("You've already voted on this proposal");
    const [{ id }] = await tx<{ id: number }[]>`select nextval(pg_get_serial_sequence('votes', 'id'))::int as id`;
    const signedAt = input.signedAt ?? parseVoteMessage(input.message)?.timestamp ?? now();
    const wins = !current || replaces({ signedAt, signature: input.signature }, current);
    // The foreign key is checked at commit: the vote replaced may name this one before it is written.
    if (current && wins) await tx`update votes set superseded_by = ${id} where id = ${current.id}`;
    const [vote] = await tx<Vote[]>`
      insert into votes (id, proposal_id, option_id, address, weight, signature, message, voted_at, staked_at_start, signed_at, superseded_by)
      values (${id}, ${input.proposalId}, ${input.optionId}, ${input.address}, ${weight}, ${input.signature}, ${input.message}, ${now()},
              ${stakedAtStart}::text[], ${signedAt}, ${wins ? null : current.id})
      returning id, proposal_id, option_id, address, weight, voted_at, superseded_by`;
    return vote;
  });
}

/** The advisory lock class serialising one wallet's votes on one proposal. */
const VOTE_LOCK_CLASS = 727_105;

/** A vote as anyone can check it: the signed message and signature, and the items its power came from. */
export type VoteReceipt = {
  address: string;
  option: number;
  optionText: string;
  votingPower: number;
  message: string;
  signature: string;
  votedAt: Date;
  stakedAtStart: string[] | null;
  /** The receipt's id (its place among the proposal's votes). */
  id: number;
  /** The id of the vote of the same wallet that replaced this one (null: this one counts). */
  supersededBy: number | null;
};

/** The proposal's votes in the order they were cast: those after vote id `after`, up to vote id `upTo`, at most `limit`. */
function voteReceiptRows(sql: Queryable, proposalId: number, range: { after?: number; upTo?: number; limit?: number } = {}) {
  return sql<VoteReceipt[]>`
    select v.id, v.address, v.option_id as option, o.option_text, v.weight as voting_power, v.message, v.signature, v.voted_at,
           v.staked_at_start, v.superseded_by
    from votes v join proposal_options o on o.id = v.option_id
    where v.proposal_id = ${proposalId}
      ${range.after === undefined ? sql`` : sql`and v.id > ${range.after}`}
      ${range.upTo === undefined ? sql`` : sql`and v.id <= ${range.upTo}`}
    order by v.id
    ${range.limit === undefined ? sql`` : sql`limit ${range.limit}`}`;
}

/** Every vote on the proposal (404 when there is none), in the order they were cast. */
export async function voteReceipts(sql: Queryable, proposalId: number): Promise<VoteReceipt[]> {
  await proposalTitle(sql, proposalId);
  return voteReceiptRows(sql, proposalId);
}

/** Where an export of the receipts goes on: the votes after `after`, up to `upTo` (the last vote when it began). */
export type VoteReceiptsCursor = { after: number; upTo: number };

/**
 * One page of an export of the receipts (app/utils/export.server.ts), each its own short statement; the
 * first fixes the last vote, so a vote cast during the download is not in it.
 */
export async function voteReceiptsExportPage(
  sql: Queryable,
  proposalId: number,
  cursor: VoteReceiptsCursor | null,
  limit: number,
): Promise<{ rows: VoteReceipt[]; next: VoteReceiptsCursor | null }> {
  const [{ upTo }] = cursor
    ? [cursor]
    : await sql<{ upTo: number }[]>`select coalesce(max(id), 0) as up_to from votes where proposal_id = ${proposalId}`;
  const rows = await voteReceiptRows(sql, proposalId, { after: cursor?.after, upTo, limit });
  const last = rows.at(-1);
  return {
    rows,
    next: last && rows.length === limit ? { after: last.id, upTo } : null,
  };
}
