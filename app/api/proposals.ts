/**
 * Governance: proposals and their results, snapshot voting power, one signed vote per wallet per
 * proposal, and the admin's create and delete.
 */
import { z } from "zod";
import { QUORUM_KINDS, VOTE_TYPES, type ProposalStatus } from "../domain/governance.ts";
import { createProposalSchema, MESSAGES } from "../domain/validation.ts";
import { dateInput, formBody } from "./forms.ts";
import {
  addressParams,
  badAddressAnswer,
  rowById,
  defineRoute,
  errorBody,
  positiveIdSchema,
  rowIdParam,
  signedFields,
  successTrue,
  logIndexField,
  timestamp,
  type ClientAnswer,
  type RequestBody,
  errorAnswer,
} from "./kit.ts";

const TAG = "Governance";

/** The examples' voter; the vote example's signature is this wallet's real signature of its message. */
const EXAMPLE_ADDRESS = "DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM";
const ADMIN_ADDRESS = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";

const PROPOSAL_STATUSES = ["upcoming", "active", "completed"] as const satisfies readonly ProposalStatus[];

const { params: proposalParams, notFound } = rowById("Proposal");

// Answers ------------------------------------------------------------------------------------------

const optionSchema = z.object({ id: z.number().int().min(1), optionText: z.string() });

export const proposalSchema = z
  .object({
    id: z.number().int().min(1),
    title: z.string(),
    description: z.string(),
    startDate: timestamp,
    endDate: timestamp,
    status: z.enum(PROPOSAL_STATUSES).meta({ description: "From the clock: upcoming before start, active until end, then completed." }),
    voteType: z.enum(VOTE_TYPES),
    options: z.array(optionSchema).meta({ description: "In the order they were given (Yes, No for yes_no)." }),
    createdBy: z.string().meta({ description: "Who created it: the admin's address, or `cli`." }),
    allowVoteChange: z.boolean().meta({
      description: "Frozen at creation. true: a wallet may vote again, its latest signed vote counting; false: one vote per wallet (409).",
    }),
    quorum: z
      .object({ kind: z.enum(QUORUM_KINDS), value: z.number().int().min(1) })
      .nullable()
      .meta({
        description: "Frozen at creation. power: at least `value` voting power cast; percent: `value`% of the power staked at the start.",
      }),
  })
  .meta({ id: "Proposal" });

export const proposalDetailSchema = proposalSchema
  .extend({
    options: z.array(
      optionSchema.extend({
        voteCount: z.number().int().min(0).meta({ description: "The sum of the weights of the votes for this option." }),
      }),
    ),
    totalVotes: z.number().int().min(0).meta({ description: "The sum of every vote's weight." }),
    uniqueVoters: z.number().int().min(0).meta({ description: "How many wallets voted." }),
    quorumStatus: z
      .object({
        kind: z.enum(QUORUM_KINDS),
        value: z.number().int().min(1),
        requiredPower: z.number().int().min(0).nullable().meta({ description: "The voting power it asks for; null before the start." }),
        stakedAtStart: z
          .number()
          .int()
          .min(0)
          .nullable()
          .meta({ description: "The power staked at the start (every wallet's); null before it." }),
      })
      .nullable()
      .meta({ description: "The quorum with the power it asks for (null: no quorum)." }),
    quorumMet: z
      .boolean()
      .nullable()
      .meta({ description: "Whether the counted power reaches the quorum (null: no quorum, or not started)." }),
    outcome: z
      .string()
      .nullable()
      .meta({
        description:
          'Null while upcoming or active. Then "quorum not met" when a quorum was not reached; yes/no: "passed" (more Yes than No power) ' +
          'or "failed" (a tie fails); multiple choice: the winning option\'s text, "failed" on a tie for the most.',
      }),
  })
  .meta({ id: "ProposalDetail" });

export const userVoteSchema = z.object({ proposalId: z.number().int().min(1), optionId: z.number().int().min(1) }).meta({ id: "UserVote" });

export const voteSchema = z
  .object({
    id: z.number().int().min(1),
    proposalId: z.number().int().min(1),
    optionId: z.number().int().min(1),
    address: z.string(),
    weight: z.number().int().min(1).meta({ description: "The wallet's snapshot voting power on this proposal." }),
    votedAt: timestamp,
    supersededBy: z.number().int().min(1).nullable().meta({
      description: "Null: this vote counts. Else the id of the wallet's vote signed later, which counts instead (it arrived late).",
    }),
  })
  .meta({ id: "Vote" });

const proposalExample = {
  id: 4,
  title: "Add a third collection?",
  description: "Should holders of a third collection earn Spook Points too?",
  startDate: "2026-11-01T00:00:00.000Z",
  endDate: "2026-11-08T00:00:00.000Z",
  status: "active",
  voteType: "yes_no",
  options: [
    { id: 9, optionText: "Yes" },
    { id: 10, optionText: "No" },
  ],
  createdBy: ADMIN_ADDRESS,
  allowVoteChange: false,
  quorum: null,
};

// Request bodies -------------------------------------------------------------------------------------

/**
 * The admin form's rules (createProposalSchema, with its texts: options normalized, dates checked) behind a
 * body whose dates are ISO text.
 */
export const createProposalBody = formBody(
  z.object(
    {
      ...createProposalSchema.in.shape,
      startDate: dateInput(MESSAGES.missingFields).meta({ description: "When voting opens (ISO 8601); not in the past." }),
      endDate: dateInput(MESSAGES.missingFields).meta({ description: "When voting closes (ISO 8601); after startDate." }),
      options: createProposalSchema.in.shape.options.meta({
        description: "For multiple_choice: at least two non-blank texts (trimmed, blanks dropped). Ignored for yes_no (Yes, No).",
      }),
    },
    { error: "The body must be a JSON object" },
  ),
  createProposalSchema,
);

export const voteBody = z.object({ ...signedFields, optionId: positiveIdSchema("optionId") });

const votingPowerQuery = z.object({
  proposalId: z
    .preprocess((value) => (value === "" ? undefined : value), rowIdParam("Proposal").optional())
    .meta({ description: "A proposal's id: answers the wallet's snapshot power on it instead of its current staked count." }),
});

// Routes ---------------------------------------------------------------------------------------------

export const listProposals = defineRoute({
  operationId: "listProposals",
  method: "GET",
  path: "/api/proposals",
  tag: TAG,
  summary: "Every proposal with its status and options",
  description: "Latest start first.",
  auth: "none",
  responses: {
    200: { description: "The proposals, latest start first.", schema: z.array(proposalSchema), example: [proposalExample] },
  },
});

export const createProposal = defineRoute({
  operationId: "createProposal",
  method: "POST",
  path: "/api/proposals",
  tag: TAG,
  summary: "Create a proposal",
  description:
    "yes_no proposals get the options Yes and No; multiple_choice ones need at least two. The start must not be in the past and the " +
    "end must follow it. The creator recorded is the signed-in admin, whatever the body says. Audited.",
  auth: "admin-session",
  requires: { permission: "proposals", doing: "create proposals" },
  body: {
    kind: "json",
    schema: createProposalBody,
    example: {
      title: "Next drop theme",
      description: "What should the next drop be about?",
      startDate: "2099-11-01T00:00:00.000Z",
      endDate: "2099-11-08T00:00:00.000Z",
      voteType: "multiple_choice",
      options: ["Ghosts", "Pumpkins"],
    },
  },
  responses: {
    201: {
      description: "The new proposal.",
      schema: proposalSchema,
      example: {
        ...proposalExample,
        id: 5,
        title: "Next drop theme",
        description: "What should the next drop be about?",
        startDate: "2099-11-01T00:00:00.000Z",
        endDate: "2099-11-08T00:00:00.000Z",
        status: "upcoming",
        voteType: "multiple_choice",
        options: [
          { id: 11, optionText: "Ghosts" },
          { id: 12, optionText: "Pumpkins" },
        ],
      },
    },
    400: {
      description: "A field breaks its rule (the admin form's texts), or the body is not JSON.",
      schema: errorBody,
      example: { message: MESSAGES.needMoreOptions },
    },
  },
});

export const listVotesOfAddress = defineRoute({
  operationId: "listVotesOfAddress",
  method: "GET",
  path: "/api/proposals/user/{address}",
  tag: TAG,
  summary: "The proposals a wallet voted on, and its option",
  auth: "none",
  params: addressParams,
  responses: {
    200: { description: "The wallet's votes, by proposal id.", schema: z.array(userVoteSchema), example: [{ proposalId: 4, optionId: 9 }] },
    400: badAddressAnswer,
  },
});

export const getVotingPower = defineRoute({
  operationId: "getVotingPower",
  method: "GET",
  path: "/api/proposals/voting-power/{address}",
  tag: TAG,
  summary: "A wallet's voting power",
  description:
    "Without `proposalId`: the items it has staked now. With one: its snapshot power on that proposal, the items it had staked at " +
    "the proposal's start (for an upcoming proposal, what it has staked now). A vote is weighted by the snapshot power.",
  auth: "none",
  params: addressParams,
  query: votingPowerQuery,
  responses: {
    200: {
      description: "The voting power.",
      schema: z
        .object({
          votingPower: z.number().int().min(0),
          snapshotAt: timestamp.nullable().meta({
            description:
              "When the items were counted: with `proposalId`, the proposal's start (its snapshot), or now for an upcoming proposal " +
              "(not fixed until it starts); without one, null (staked now).",
          }),
        })
        .meta({ id: "VotingPower" }),
      example: { votingPower: 3, snapshotAt: "2026-11-01T00:00:00.000Z" },
    },
    400: badAddressAnswer,
    404: notFound,
  },
});

export const getProposal = defineRoute({
  operationId: "getProposal",
  method: "GET",
  path: "/api/proposals/{id}",
  tag: TAG,
  summary: "A proposal with its results",
  description: "Vote counts are sums of weights (snapshot voting power); uniqueVoters counts wallets.",
  auth: "none",
  params: proposalParams,
  responses: {
    200: {
      description: "The proposal and its results.",
      schema: proposalDetailSchema,
      example: {
        ...proposalExample,
        options: [
          { id: 9, optionText: "Yes", voteCount: 12 },
          { id: 10, optionText: "No", voteCount: 5 },
        ],
        totalVotes: 17,
        uniqueVoters: 6,
        quorumStatus: null,
        quorumMet: null,
        outcome: null,
      },
    },
    404: notFound,
  },
});

export const deleteProposal = defineRoute({
  operationId: "deleteProposal",
  method: "DELETE",
  path: "/api/proposals/{id}",
  tag: TAG,
  summary: "Delete a proposal and its votes",
  description: "Audited.",
  auth: "admin-session",
  requires: { permission: "proposals", doing: "delete proposals" },
  params: proposalParams,
  responses: {
    200: { description: "Deleted.", schema: z.object({ success: successTrue }), example: { success: true } },
    404: notFound,
  },
});

export const castVote = defineRoute({
  operationId: "castVote",
  method: "POST",
  path: "/api/proposals/{id}/vote",
  tag: TAG,
  summary: "Vote on an active proposal",
  description:
    "One vote per wallet per proposal, while it is active, weighted by the wallet's snapshot voting power (items staked at the " +
    "proposal's start); a wallet without any is refused. On a proposal with allowVoteChange a wallet may vote again: every vote is " +
    "kept, and the one signed latest counts (the later signed timestamp; equal: the higher SHA-256 of the signature). The signed message must name this proposal, its exact title and the " +
    "option; each signature is accepted once. A timestamp more than a minute ahead of the server's clock is refused (401): it would " +
    "win every later change of vote until the clock caught up.",
  auth: "signature",
  rateLimit: "signed",
  signedMessage: "vote",
  params: proposalParams,
  body: {
    kind: "json",
    schema: voteBody,
    example: {
      address: EXAMPLE_ADDRESS,
      optionId: 9,
      message: "Voting on proposal #4: Add a third collection?. Option: 9. Timestamp: 2026-11-02T10:30:00.000Z",
      signature: "Hz3sRdhICskNo9I9NcTCWUdifvM9D+Klw/mAji8vDPP9JCM+6Oyb4NP7sfACZ+4wN6ydggtPXvxNt+zz2g0wQZA=",
    },
  },
  responses: {
    200: {
      description: "The recorded vote.",
      schema: z.object({ success: successTrue, vote: voteSchema, logIndex: logIndexField }),
      example: {
        success: true,
        vote: {
          id: 57,
          proposalId: 4,
          optionId: 9,
          address: EXAMPLE_ADDRESS,
          weight: 3,
          votedAt: "2026-11-02T10:30:01.000Z",
          supersededBy: null,
        },
      },
    },
    400: errorAnswer(
      "The option is not one of this proposal's, a field breaks its rule, or the body is not JSON.",
      "This option does not belong to this proposal",
    ),
    403: errorAnswer(
      "The wallet had nothing staked when the proposal started.",
      "No voting power: you need Spooks staked when the proposal started",
    ),
    404: notFound,
    409: errorAnswer("The wallet already voted on it, or voting has not started or has ended.", "You've already voted on this proposal"),
  },
});

export const voteReceiptSchema = z
  .object({
    address: z.string().meta({ description: "The wallet that signed the vote." }),
    option: z.number().int().min(1).meta({ description: "The id of the option counted (the signed message names it)." }),
    optionText: z.string(),
    votingPower: z.number().int().min(1).meta({ description: "The weight counted: the number of items in `stakedAtStart`." }),
    message: z.string().meta({ description: "The exact text the wallet signed." }),
    signature: z.string().meta({ description: "The wallet's signature of `message`, as it sent it (either message magic)." }),
    votedAt: timestamp,
    stakedAtStart: z
      .array(z.string())
      .nullable()
      .meta({
        description:
          "The inscription ids the wallet had staked at the proposal's start (sorted): what made its power. Null only for a vote cast " +
          "before receipts were kept whose items no longer add up to its power.",
      }),
    id: z.number().int().min(1).meta({ description: "The vote's id." }),
    supersededBy: z
      .number()
      .int()
      .min(1)
      .nullable()
      .meta({
        description:
          "Null: this vote counts. Else the id of the same wallet's vote that replaced it (signed later; at the same instant, the " +
          "higher SHA-256 of its signature). Only on proposals with allowVoteChange.",
      }),
  })
  .meta({ id: "VoteReceipt" });

const VOTE_RECEIPTS_CSV_HEADER = "address,option,option_text,voting_power,message,signature,voted_at,staked_at_start,id,superseded_by";

const voteReceiptExample = {
  address: EXAMPLE_ADDRESS,
  option: 9,
  optionText: "Yes",
  votingPower: 1,
  message: "Voting on proposal #4: Add a third collection?. Option: 9. Timestamp: 2026-11-02T10:30:00.000Z",
  signature: "Hz3sRdhICskNo9I9NcTCWUdifvM9D+Klw/mAji8vDPP9JCM+6Oyb4NP7sfACZ+4wN6ydggtPXvxNt+zz2g0wQZA=",
  votedAt: "2026-11-02T10:30:01.000Z",
  stakedAtStart: [`${"a1".repeat(32)}i0`],
  id: 17,
  supersededBy: null,
};

export const voteReceiptsQuery = z.object({
  format: z
    .enum(["json", "csv"], { error: "format must be json or csv" })
    .default("json")
    .meta({ description: "`csv` answers the same votes as a CSV download (header below), in the same order." }),
});

export const listVoteReceipts = defineRoute({
  operationId: "listVoteReceipts",
  method: "GET",
  path: "/api/proposals/{id}/votes",
  tag: TAG,
  summary: "Every vote with its signed message and signature (public receipts)",
  description:
    "Everything needed to check a proposal's result without trusting this server: each vote's wallet, the option counted, its " +
    "voting power and the items that made it, the exact signed message and its signature. Check each signature (Bitcoin-style " +
    "signed message, either the `\x18Bitcoin Signed Message:\n` or the `\x19Dogecoin Signed Message:\n` magic), that its " +
    "message names this proposal, its title and the option, then add up the powers per option and compare with " +
    "GET /api/proposals/{id}. In the order the votes were cast. `?format=csv`: header `" +
    VOTE_RECEIPTS_CSV_HEADER +
    "`, staked items separated by spaces.",
  auth: "none",
  params: proposalParams,
  query: voteReceiptsQuery,
  responses: {
    200: {
      description: "The proposal's votes, oldest first.",
      schema: z.object({ proposalId: z.number().int().min(1), votes: z.array(voteReceiptSchema) }).meta({ id: "VoteReceipts" }),
      example: { proposalId: 4, votes: [voteReceiptExample] },
      headers: { "Content-Disposition": 'With `?format=csv`: `attachment; filename="proposal-{id}-votes.csv"`.' },
      alternatives: {
        "text/csv": {
          schema: z.string().meta({ description: `CSV (RFC 4180), header \`${VOTE_RECEIPTS_CSV_HEADER}\`.` }),
          example:
            `${VOTE_RECEIPTS_CSV_HEADER}\r\n${EXAMPLE_ADDRESS},9,Yes,1,Voting on proposal #4: Add a third collection?. Option: 9. ` +
            `Timestamp: 2026-11-02T10:30:00.000Z,${voteReceiptExample.signature},2026-11-02T10:30:01.000Z,${"a1".repeat(32)}i0,17,\r\n`,
        },
      },
    },
    404: notFound,
    429: {
      description: "With `?format=csv`: your address already has two downloads open; try again after Retry-After seconds.",
      schema: errorBody,
      example: { message: "Too many downloads at once from your address (at most 2); try again in a few seconds" },
      headers: { "Retry-After": "Seconds to wait before trying again." },
    },
  },
});

export { VOTE_RECEIPTS_CSV_HEADER };

// Client types (app/lib/api.ts, app/components/governance/types.ts) -------------------------------

export type Proposal = ClientAnswer<typeof listProposals>[number];
export type ProposalDetail = ClientAnswer<typeof getProposal>;
export type UserVote = ClientAnswer<typeof listVotesOfAddress>[number];
export type VotingPower = ClientAnswer<typeof getVotingPower>;
export type VoteRequest = RequestBody<typeof castVote>;
export type VoteResponse = ClientAnswer<typeof castVote>;
export type VoteReceipts = ClientAnswer<typeof listVoteReceipts>;
