/**
 * `giveaways list|create|end|activate|set-image|entries|claims|draw|verify|delete` (also `giveaway …`). Rules and
 * writes are db/queries/giveaways.server.ts and indexer/draws.server.ts (audit actor `cli`); input texts are
 * app/domain/validation.ts; `verify` recomputes a draw with app/domain/draw.ts, as the site's view does.
 */
import type { Command } from "commander";
import { z } from "zod";
import {
  drawResultSchema,
  drawV2ResultSchema,
  giveawayDeletedSchema,
  giveawayClaimsSchema,
  giveawayEntrySchema,
  giveawaySchema,
  publishedDrawSchema,
} from "../../app/api/giveaways.ts";
import { verifyDraw, type DrawVerdict, type PublishedDraw } from "../../app/domain/draw.ts";
import { now } from "../../app/domain/clock.ts";
import { formatNumber } from "../../app/domain/format.ts";
import { drawProgressText, giveawayStatusLabel } from "../../app/domain/giveaways.ts";
import { createGiveawaySchema } from "../../app/domain/validation.ts";
import {
  createGiveaway,
  deleteGiveaway,
  getGiveaway,
  listEntries,
  listGiveaways,
  setGiveawayActive,
  setGiveawayImage,
  type Giveaway,
  type GiveawayEntry,
} from "../../db/queries/giveaways.server.ts";
import { claimsOf } from "../../db/queries/claims.server.ts";
import { getGiveawayDraw } from "../../db/queries/draws.server.ts";
import { readDemoChainUrl, withDrawChain } from "../../indexer/draw-chain.server.ts";
import { selectWinners, type SelectWinnersResult } from "../../indexer/draws.server.ts";
import { OrdError } from "../../indexer/ord-client.server.ts";
import { dateTime, points } from "../format.ts";
import { withImage } from "../image-source.ts";
import {
  action,
  CliError,
  CLI_ACTOR,
  destructiveLeaf,
  leaf,
  outputAnswer,
  parseId,
  parseOptions,
  withConfirmedChange,
  withDatabase,
  type DestructiveOptions,
  type OutputOptions,
  type Session,
} from "../runtime.ts";
import { detailsView, recordTableView, recordView, statusView, tableView, titledTableView } from "../views.tsx";

/** `draw` and `delete` print the API's answer with the giveaway's id (and the points refunded). */
const drawnSchema = z.union([
  z.object({ giveawayId: giveawaySchema.shape.id, ...drawResultSchema.shape }),
  z.object({ giveawayId: giveawaySchema.shape.id, ...drawV2ResultSchema.shape }),
]);
const verifiedSchema = z.object({
  giveawayId: giveawaySchema.shape.id,
  outcome: z.enum(["verified", "pending", "failed"]),
  steps: z.array(z.object({ step: z.string(), title: z.string(), ok: z.boolean(), pending: z.boolean().optional(), detail: z.string() })),
});
const deletedSchema = z.object({
  giveawayId: giveawaySchema.shape.id,
  refunded: giveawayDeletedSchema.shape.refunded,
  refundedPoints: z.number().min(0),
});

type CreateOptions = OutputOptions & {
  title?: string;
  description?: string;
  image?: string;
  cost?: string;
  end?: string;
  winners?: string;
};

/** The schema field each `create` option fills. */
const CREATE_FIELDS = {
  title: "title",
  description: "description",
  imageUrl: "image",
  pointsCost: "cost",
  endDate: "end",
  winners: "winners",
} as const satisfies Record<string, keyof CreateOptions>;

export function registerGiveaways(program: Command): void {
  const group = program.command("giveaways").alias("giveaway").description("create, run, draw and verify giveaways");
  leaf(group, "list", "every giveaway, newest first").action(action(list));
  leaf(group, "create", "create a giveaway (all options but --cost are required)")
    .option("--title <text>", "title")
    .option("--description <text>", "description")
    .option("--image <file|url>", "an image file to upload (png, jpeg, gif, webp; max 5 MB) or an image URL")
    .option("--cost <points>", "points per ticket (default 100, at least 1)")
    .option("--end <iso>", "end date, ISO 8601 (e.g. 2030-01-31T18:00:00Z)")
    .option("--winners <count>", "how many winners the draw picks (default 1, at most 100)")
    .action(action(create));
  destructiveLeaf(group, "end <id>", "end a giveaway now (inactive: no more entries)").action(action(end));
  leaf(group, "activate <id>", "make a giveaway active again").action(action(activate));
  leaf(group, "set-image <id> <image>", "replace a giveaway's image with a file (uploaded) or a URL").action(action(setImage));
  leaf(group, "entries <id>", "a giveaway's entries, in ticket order").action(action(entries));
  leaf(group, "claims <id>", "a drawn giveaway's winners: each one's claim and contact, or not claimed yet").action(action(claims));
  destructiveLeaf(
    group,
    "draw <id>",
    "select the winners: close entries and draw at the next block once 6 sit on top (version 1: draw now); in demo mode on the running `npm start`'s chain",
  ).action(action(draw));
  leaf(group, "verify <id>", "recompute a giveaway's draw from its published data (verified, or the first step that disagrees)")
    .option("--url <origin>", "read the published draw from this Spooks site (e.g. https://spooks.example) instead of the database")
    .action(action(verify));
  destructiveLeaf(group, "delete <id>", "delete a giveaway and its entries (refunded when no winner was drawn)").action(action(remove));
}

/** Drawn, Drawing, Inactive, Ended or Active: the admin page's words (app/domain/giveaways.ts). */
function statusOf(giveaway: Giveaway): string {
  return giveawayStatusLabel({ ...giveaway, drawn: giveaway.drawSeed !== null }, now());
}

async function list(options: OutputOptions) {
  const giveaways = await withDatabase(({ sql }) => listGiveaways(sql));
  await outputAnswer(options, z.array(giveawaySchema), giveaways, () =>
    recordTableView(giveaways, "No giveaways created yet", [
      { header: "Status", value: statusOf },
      { header: "Cost", value: (g) => formatNumber(g.pointsCost), align: "right" },
      { header: "Ends", value: (g) => dateTime(g.endDate) },
      { header: "Entries", value: (g) => formatNumber(g.entriesCount), align: "right" },
      { header: "Tickets", value: (g) => formatNumber(g.ticketsCount), align: "right" },
      { header: "Winners", value: (g) => winnersText(g) },
    ]),
  );
}

async function create(options: CreateOptions) {
  const input = parseOptions(createGiveawaySchema, options, CREATE_FIELDS);
  const giveaway = await withDatabase(({ sql, config }) =>
    withImage(input.imageUrl, { sql, uploadDir: config.uploadDir, pictures: config }, (tx, imageUrl) =>
      createGiveaway(tx, { ...input, imageUrl }, CLI_ACTOR),
    ),
  );
  await outputAnswer(options, giveawaySchema, giveaway, () => giveawayView("Giveaway Created", giveaway));
}

async function activate(idText: string, options: OutputOptions) {
  const id = parseId(idText, "Giveaway");
  const giveaway = await withDatabase(({ sql }) => setGiveawayActive(sql, id, true, CLI_ACTOR));
  await outputAnswer(options, giveawaySchema, giveaway, () => giveawayView("Giveaway Updated: now active", giveaway));
}

/** Ending shuts holders out of a giveaway, so it is confirmed as the other lasting changes are (--yes without a terminal). */
async function end(idText: string, options: DestructiveOptions) {
  const id = parseId(idText, "Giveaway");
  const giveaway = await withConfirmedChange(
    options,
    async ({ sql }) => {
      const giveaway = await getGiveaway(sql, id);
      return `End giveaway #${id} "${giveaway.title}" now? No more entries are taken.`;
    },
    ({ sql }) => setGiveawayActive(sql, id, false, CLI_ACTOR),
  );
  await outputAnswer(options, giveawaySchema, giveaway, () => giveawayView("Giveaway Updated: now inactive", giveaway));
}

async function setImage(idText: string, image: string, options: OutputOptions) {
  const id = parseId(idText, "Giveaway");
  const giveaway = await withDatabase(async ({ sql, config }) => {
    await getGiveaway(sql, id);
    return withImage(image, { sql, uploadDir: config.uploadDir, pictures: config }, (tx, imageUrl) =>
      setGiveawayImage(tx, id, imageUrl, CLI_ACTOR),
    );
  });
  await outputAnswer(options, giveawaySchema, giveaway, () => giveawayView("Image updated", giveaway));
}

/** Every winner in draw order, or where the draw stands. */
function winnersText(giveaway: Giveaway): string {
  if (giveaway.winnerAddresses.length > 0) return giveaway.winnerAddresses.join(", ");
  if (giveaway.drawSeed !== null) return "none (no entries)";
  if (giveaway.drawBlockHeight === null) return "";
  const progress = giveaway.drawProgress ? ` (${drawProgressText(giveaway.drawProgress)})` : "";
  return `Drawing at block ${giveaway.drawBlockHeight}${progress}`;
}

function giveawayView(headline: string, giveaway: Giveaway) {
  return recordView(headline, giveaway, [
    ["Status", statusOf(giveaway)],
    ["Cost", `${formatNumber(giveaway.pointsCost)} SPOOK per ticket`],
    ["Ends", dateTime(giveaway.endDate)],
    ["Image", giveaway.imageUrl],
    ["Entries", `${formatNumber(giveaway.entriesCount)} (${formatNumber(giveaway.ticketsCount)} tickets)`],
    ["Winners", winnersText(giveaway) || "none yet"],
    ["Number of winners", formatNumber(giveaway.winners)],
    ["Draw commitment", giveaway.drawCommitment],
  ]);
}

async function entries(idText: string, options: OutputOptions) {
  const id = parseId(idText, "Giveaway");
  const rows = await withDatabase(({ sql }) => listEntries(sql, id));
  await outputAnswer(options, z.array(giveawayEntrySchema), rows, () =>
    tableView({
      rows,
      empty: "No Entries Yet",
      columns: [
        { header: "Entry", value: (e: GiveawayEntry) => String(e.id), align: "right" },
        { header: "Address", value: (e) => e.address },
        { header: "Tickets", value: (e) => formatNumber(e.tickets), align: "right" },
        { header: "Entered", value: (e) => dateTime(e.enteredAt) },
        { header: "Winner", value: (e) => (e.isWinner ? "Winner!" : "") },
      ],
    }),
  );
}

async function draw(idText: string, options: DestructiveOptions) {
  const id = parseId(idText, "Giveaway");
  const result = await withConfirmedChange(
    options,
    async ({ sql }) => {
      const giveaway = await getGiveaway(sql, id);
      return `Draw the winner of giveaway #${id} "${giveaway.title}" among ${formatNumber(giveaway.ticketsCount)} tickets? This cannot be undone.`;
    },
    async ({ sql, config }) => ({ giveawayId: id, ...(await selectWinnersWithChain(sql, config, id)) }),
  );
  await outputAnswer(options, drawnSchema, result, () => drawView(result));
}

/**
 * Draws on ORD_URL's chain; in demo mode (no ORD_URL) on the simulated chain the running `npm start`
 * published in DATA_DIR. Without either, a version-2 draw is refused saying what to start.
 */
async function selectWinnersWithChain(sql: Session["sql"], config: Session["config"], id: number): Promise<SelectWinnersResult> {
  const ordUrl = config.ordUrl ?? (config.demo ? readDemoChainUrl(config.dataDir) : undefined);
  try {
    return await withDrawChain({ ...config, ordUrl }, (chain) => selectWinners(sql, chain, id, CLI_ACTOR));
  } catch (error) {
    if (!(error instanceof OrdError)) throw error;
    if (!ordUrl) {
      throw new CliError(
        `demo mode (no ORD_URL): a version-2 draw reads the simulated chain of a running \`npm start\`, and none runs with DATA_DIR=${config.dataDir}; start \`npm start\` with the same DATA_DIR (or set ORD_URL) and draw again: entries stay open`,
      );
    }
    throw new CliError(`the ord server did not answer (${error.message}): entries stay open`);
  }
}

function drawView(result: SelectWinnersResult) {
  if (result.version === 1) {
    return detailsView(`Winner Selected: ${result.winner.address} (${formatNumber(result.winner.tickets)} tickets)`, [
      ["Winning ticket", `${formatNumber(result.winningTicket)} of ${formatNumber(result.totalTickets)} (0-based)`],
      ["Seed", result.drawSeed],
      ["Commitment", result.drawCommitment],
    ]);
  }
  if (result.status === "drawing") {
    return statusView(
      `Drawing at block ${result.blockHeight}: entries closed at ${dateTime(result.closedAt)}; the indexer draws once 6 blocks sit on top of it`,
    );
  }
  return detailsView(`Winners Selected at block ${result.blockHeight}`, [
    ["Entries closed", dateTime(result.closedAt)],
    ["Winners", result.winnerAddresses.join(", ") || "none (no entries)"],
    ["Block hash", result.blockHash ?? ""],
    ["Seed", result.seed ?? ""],
  ]);
}

type VerifyOptions = OutputOptions & { url?: string };

async function verify(idText: string, options: VerifyOptions) {
  const id = parseId(idText, "Giveaway");
  const draw = options.url ? await fetchPublishedDraw(options.url, id) : await withDatabase(({ sql }) => getGiveawayDraw(sql, id));
  const verdict = verifyDraw(draw);
  await outputAnswer(options, verifiedSchema, { giveawayId: id, ...verdict }, () => verdictView(id, verdict));
  if (verdict.outcome === "failed") process.exitCode = 1;
}

async function fetchPublishedDraw(origin: string, id: number): Promise<PublishedDraw> {
  const url = new URL(`/api/giveaways/${id}/draw`, origin);
  const response = await fetch(url, { headers: { accept: "application/json" } }).catch((error: Error) => {
    throw new CliError(`${url.origin} did not answer: ${error.message}`);
  });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw new CliError(`${url.href} answered ${response.status}: ${(body as { message?: string } | null)?.message ?? ""}`);
  const parsed = publishedDrawSchema.safeParse(body);
  if (!parsed.success) throw new CliError(`${url.href} did not answer a published draw`);
  return parsed.data;
}

function verdictView(id: number, verdict: DrawVerdict) {
  const headline = {
    verified: `Giveaway #${id}: verified, every step of the draw checks out`,
    pending: `Giveaway #${id}: not drawn yet; every step that can be checked so far checks out`,
    failed: `Giveaway #${id}: the draw does not check out at "${verdict.steps.at(-1)?.title}"`,
  }[verdict.outcome];
  const rows = verdict.steps.map((step): [string, string] => [
    `${step.pending ? "…" : step.ok ? "✓" : "✗"} ${step.title}${step.pending ? " (pending)" : ""}`,
    step.link ? `${step.detail} Mainnet explorer: ${step.link}` : step.detail,
  ]);
  return detailsView(headline, rows, verdict.outcome === "failed" ? "error" : verdict.outcome === "pending" ? "warning" : "success");
}

async function remove(idText: string, options: DestructiveOptions) {
  const id = parseId(idText, "Giveaway");
  const result = await withConfirmedChange(
    options,
    async ({ sql }) => {
      const giveaway = await getGiveaway(sql, id);
      const refund = giveaway.winnerAddress ? "" : ", refunding their points";
      return `Delete giveaway #${id} "${giveaway.title}" and its ${formatNumber(giveaway.entriesCount)} entries${refund}? This cannot be undone.`;
    },
    async ({ sql }) => ({ giveawayId: id, ...(await deleteGiveaway(sql, id, CLI_ACTOR)) }),
  );
  await outputAnswer(options, deletedSchema, result, () =>
    statusView(`Giveaway Deleted: #${id} (${formatNumber(result.refunded)} entries refunded, ${points(result.refundedPoints)} points)`),
  );
}

async function claims(idText: string, options: OutputOptions) {
  const id = parseId(idText, "Giveaway");
  const answer = await withDatabase(({ sql }) => claimsOf(sql, id));
  await outputAnswer(options, giveawayClaimsSchema, answer, () =>
    titledTableView(
      `Claims of giveaway #${answer.giveawayId} ${answer.title}: ${formatNumber(answer.claimed)} claimed, ${formatNumber(answer.unclaimed)} not claimed`,
      {
        rows: answer.winners,
        empty: answer.drawn ? "No winners (the draw had no entries)" : "Not drawn yet: no winners to claim",
        columns: [
          { header: "#", value: (w) => String(w.place), align: "right" },
          { header: "Winner", value: (w) => w.address },
          { header: "Claimed", value: (w) => (w.claimedAt ? dateTime(w.claimedAt) : "not claimed") },
          { header: "Contact", value: (w) => w.contact ?? "" },
        ],
      },
    ),
  );
}
