/**
 * `proposals list|create|results|delete`. Rules and writes are db/queries/proposals.server.ts (audit
 * actor `cli`); input texts are app/domain/validation.ts, statuses app/domain/governance.ts.
 */
import type { Command } from "commander";
import { z } from "zod";
import { proposalDetailSchema, proposalSchema, voteReceiptSchema } from "../../app/api/proposals.ts";
import { countOf, formatNumber } from "../../app/domain/format.ts";
import { quorumCountText, VOTE_TYPES, type Quorum } from "../../app/domain/governance.ts";
import { createProposalSchema } from "../../app/domain/validation.ts";
import { verifyVotes, type VotesVerification } from "../../app/domain/vote-receipts.ts";
import { catalogueInscriptionIds } from "../../db/queries/catalogue.server.ts";
import {
  createProposal,
  deleteProposal,
  getProposalDetail,
  listProposals,
  voteReceipts,
  type Proposal,
  type ProposalDetail,
} from "../../db/queries/proposals.server.ts";
import { dateTime } from "../format.ts";
import {
  action,
  CLI_ACTOR,
  CliError,
  destructiveLeaf,
  leaf,
  output,
  outputAnswer,
  parseId,
  parseOptions,
  withConfirmedChange,
  withDatabase,
  type DestructiveOptions,
  type OutputOptions,
} from "../runtime.ts";
import { recordTableView, recordView, statusView } from "../views.tsx";

type CreateOptions = OutputOptions & {
  title?: string;
  description?: string;
  start?: string;
  end?: string;
  type: string;
  option: string[];
  allowVoteChange?: boolean;
  quorum?: string;
};

/** The schema field each `create` option fills. */
const CREATE_FIELDS = {
  title: "title",
  description: "description",
  startDate: "start",
  endDate: "end",
  voteType: "type",
  options: "option",
  allowVoteChange: "allowVoteChange",
  quorum: "quorum",
} as const satisfies Record<string, keyof CreateOptions>;

const VOTE_TYPE_LABELS = { yes_no: "Yes/No Vote", multiple_choice: "Multiple Choice" } as const;

export function registerProposals(program: Command): void {
  const group = program.command("proposals").description("governance proposals");
  leaf(group, "list", "every proposal with its status").action(action(list));
  leaf(group, "create", "create a proposal (yes_no gets the options Yes and No)")
    .option("--title <text>", "title")
    .option("--description <text>", "description")
    .option("--start <iso>", "start date, ISO 8601, not in the past")
    .option("--end <iso>", "end date, ISO 8601, after the start")
    .option("--type <type>", `vote type: ${VOTE_TYPES.join(" or ")}`, "yes_no")
    .option("--option <text>", "an option of a multiple_choice proposal (repeat, at least 2)", collect, [])
    .option("--allow-vote-change", "a wallet may vote again, its latest signed vote counting (default: one vote per wallet)")
    .option("--quorum <n|n%>", "a quorum: voting power (150), or a percent of the power staked at the start (20%); default none")
    .action(action(create));
  leaf(group, "results <id>", "a proposal's votes per option, voters and total").action(action(results));
  destructiveLeaf(group, "delete <id>", "delete a proposal and its votes").action(action(remove));
  leaf(group, "verify <id>", "check every vote's signature and message, and recompute the tally (exit 1 when anything disagrees)").action(
    action(verify),
  );
}

/** `--quorum`: "150" (voting power), "20%" (of the power staked at the start), "none". */
function parseQuorum(text: string): Quorum | null | string {
  const trimmed = text.trim();
  if (trimmed === "none") return null;
  const match = /^(\d{1,10})(%?)$/.exec(trimmed);
  // Anything else goes to the schema as text, which refuses it with its own message.
  if (!match) return trimmed;
  return { kind: match[2] ? "percent" : "power", value: Number(match[1]) };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function dateRange(proposal: Pick<Proposal, "startDate" | "endDate">): string {
  return `${dateTime(proposal.startDate)} → ${dateTime(proposal.endDate)}`;
}

function optionTexts(proposal: Pick<Proposal, "options">): string {
  return proposal.options.map((option) => option.optionText).join(" | ");
}

/** The rows every view of one proposal starts with. */
function summaryRows(proposal: Pick<Proposal, "status" | "voteType" | "startDate" | "endDate">): [label: string, value: string][] {
  return [
    ["Status", proposal.status],
    ["Type", VOTE_TYPE_LABELS[proposal.voteType]],
    ["Dates", dateRange(proposal)],
  ];
}

async function list(options: OutputOptions) {
  const proposals = await withDatabase(({ sql }) => listProposals(sql));
  await outputAnswer(options, z.array(proposalSchema), proposals, () =>
    recordTableView(proposals, "No proposals found. Create your first proposal.", [
      { header: "Status", value: (p) => p.status },
      { header: "Type", value: (p) => VOTE_TYPE_LABELS[p.voteType] },
      { header: "Dates", value: dateRange },
      { header: "Options", value: optionTexts },
    ]),
  );
}

async function create(options: CreateOptions) {
  const quorum = options.quorum === undefined ? undefined : parseQuorum(options.quorum);
  const input = parseOptions(createProposalSchema, { ...options, quorum }, CREATE_FIELDS);
  const proposal = await withDatabase(({ sql }) => createProposal(sql, { ...input, createdBy: "cli" }, CLI_ACTOR));
  await outputAnswer(options, proposalSchema, proposal, () =>
    recordView("Proposal Created", proposal, [...summaryRows(proposal), ["Options", optionTexts(proposal)]]),
  );
}

async function results(idText: string, options: OutputOptions) {
  const id = parseId(idText, "Proposal");
  const detail = await withDatabase(({ sql }) => getProposalDetail(sql, id));
  await outputAnswer(options, proposalDetailSchema, detail, () => resultsView(detail));
}

function percent(votes: number, total: number): string {
  return total > 0 ? `${Math.round((votes / total) * 100)}%` : "0%";
}

function quorumText(detail: ProposalDetail): string {
  const quorum = detail.quorumStatus;
  if (!quorum) return "none";
  const asked =
    quorum.kind === "power" ? `${formatNumber(quorum.value)} voting power` : `${quorum.value}% of the power staked at the start`;
  if (quorum.requiredPower === null) return asked;
  return quorumCountText(quorum, detail.totalVotes, quorum.requiredPower, detail.quorumMet === true);
}

async function resultsView(detail: ProposalDetail) {
  const { Box, Text } = await import("ink");
  const { Details, Table } = await import("../components/index.ts");
  const byVotes = [...detail.options].sort((a, b) => b.voteCount - a.voteCount);
  return (
    <Box flexDirection="column">
      <Text bold>
        #{detail.id} {detail.title}
      </Text>
      <Details
        rows={[
          ...summaryRows(detail),
          ["Unique voters", formatNumber(detail.uniqueVoters)],
          ["Total votes", formatNumber(detail.totalVotes)],
          ["Votes can change", detail.allowVoteChange ? "yes (the latest signed vote counts)" : "no"],
          ["Quorum", quorumText(detail)],
          ["Outcome", detail.outcome ?? "(voting not finished)"],
        ]}
      />
      <Text> </Text>
      <Table
        rows={byVotes}
        empty="No options"
        columns={[
          { header: "Option", value: (o) => o.optionText },
          { header: "Votes", value: (o) => formatNumber(o.voteCount), align: "right" },
          { header: "Share", value: (o) => percent(o.voteCount, detail.totalVotes), align: "right" },
        ]}
      />
    </Box>
  );
}

async function remove(idText: string, options: DestructiveOptions) {
  const id = parseId(idText, "Proposal");
  await withConfirmedChange(
    options,
    async ({ sql }) => {
      const proposal = await getProposalDetail(sql, id);
      return `Proposal #${id} "${proposal.title}" (${formatNumber(proposal.uniqueVoters)} voters): Are you sure you want to delete this proposal? This action cannot be undone.`;
    },
    ({ sql }) => deleteProposal(sql, id, CLI_ACTOR),
  );
  await output(options, { proposalId: id, deleted: true }, () => statusView(`Proposal Deleted: #${id}`));
}

/**
 * The "Verify votes" view's check, on the public receipts as the API answers them (the contract's wire form):
 * the same domain code, so the terminal and the browser cannot disagree.
 */
async function verify(idText: string, options: OutputOptions) {
  const id = parseId(idText, "Proposal");
  const { published, votes, catalogue } = await withDatabase(async ({ sql }) => ({
    published: proposalDetailSchema.parse(await getProposalDetail(sql, id)),
    votes: z.array(voteReceiptSchema).parse(await voteReceipts(sql, id)),
    catalogue: new Set(await catalogueInscriptionIds(sql)),
  }));
  const verification = await verifyVotes(published, votes, { catalogue });
  const report = {
    proposalId: id,
    votes: votes.length,
    verified: verification.verified,
    failed: verification.failed.map(({ index, address, problems }) => ({ vote: index + 1, address, problems })),
    tally: verification.tally,
    published: { options: published.options, totalVotes: published.totalVotes, uniqueVoters: published.uniqueVoters },
    tallyDifferences: verification.tallyDifferences,
  };
  await output(options, report, () => verifyView(published.title, votes.length, verification));
  if (!verification.verified) {
    throw new CliError(
      `proposal #${id} does not verify: ${countOf(verification.failed.length, "vote")} ${verification.failed.length === 1 ? "does" : "do"} not check out, ` +
        `${countOf(verification.tallyDifferences.length, "difference")} in the tally`,
    );
  }
}

async function verifyView(title: string, count: number, verification: VotesVerification) {
  const { Box, Text } = await import("ink");
  const { StatusLine, Table } = await import("../components/index.ts");
  const problems = verification.failed.flatMap((check) =>
    check.problems.map((problem) => ({ vote: check.index + 1, address: check.address, problem })),
  );
  return (
    <Box flexDirection="column">
      <Text bold>{title}</Text>
      {verification.verified ? (
        <StatusLine status="success">
          Verified: {countOf(count, "vote")}, every signature and message checks out and the tally matches the published results
        </StatusLine>
      ) : (
        <StatusLine status="error">
          Not verified: {formatNumber(verification.failed.length)} of {countOf(count, "vote")}{" "}
          {verification.failed.length === 1 ? "does" : "do"} not check out
        </StatusLine>
      )}
      {problems.length > 0 && (
        <Table
          rows={problems}
          empty=""
          columns={[
            { header: "Vote", value: (row) => String(row.vote), align: "right" },
            { header: "Wallet", value: (row) => row.address },
            { header: "Problem", value: (row) => row.problem },
          ]}
        />
      )}
      {verification.tallyDifferences.map((difference) => (
        <StatusLine key={difference} status="error">
          Tally: {difference}
        </StatusLine>
      ))}
    </Box>
  );
}
