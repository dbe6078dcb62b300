/**
 * `giveaways list|create|end|activate|set-image|entries|draw|delete`. Rules and writes are
 * db/queries/giveaways.server.ts (audit actor `cli`); input texts are app/domain/validation.ts.
 */
import type { Command } from "commander";
import { z } from "zod";
import { drawResultSchema, giveawayDeletedSchema, giveawayEntrySchema, giveawaySchema } from "../../app/api/giveaways.ts";
import { now } from "../../app/domain/clock.ts";
import { formatNumber } from "../../app/domain/format.ts";
import { createGiveawaySchema } from "../../app/domain/validation.ts";
import {
  createGiveaway,
  deleteGiveaway,
  drawGiveawayWinner,
  getGiveaway,
  listEntries,
  listGiveaways,
  setGiveawayActive,
  setGiveawayImage,
  type Giveaway,
  type GiveawayEntry,
} from "../../db/queries/giveaways.server.ts";
import { dateTime, points } from "../format.ts";
import { withImage } from "../image-source.ts";
import {
  action,
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
} from "../runtime.ts";
import { detailsView, statusView, tableView } from "../views.tsx";

/** `draw` and `delete` print the API's answer with the giveaway's id (and the points refunded). */
const drawnSchema = z.object({ giveawayId: giveawaySchema.shape.id, ...drawResultSchema.shape });
const deletedSchema = z.object({
  giveawayId: giveawaySchema.shape.id,
  refunded: giveawayDeletedSchema.shape.refunded,
  refundedPoints: z.number().min(0),
});

type CreateOptions = OutputOptions & { title?: string; description?: string; image?: string; cost?: string; end?: string };

/** The schema field each `create` option fills. */
const CREATE_FIELDS = {
  title: "title",
  description: "description",
  imageUrl: "image",
  pointsCost: "cost",
  endDate: "end",
} as const satisfies Record<string, keyof CreateOptions>;

export function registerGiveaways(program: Command): void {
  const group = program.command("giveaways").description("create, run and draw giveaways");
  leaf(group, "list", "every giveaway, newest first").action(action(list));
  leaf(group, "create", "create a giveaway (all options but --cost are required)")
    .option("--title <text>", "title")
    .option("--description <text>", "description")
    .option("--image <file|url>", "an image file to upload (png, jpeg, gif, webp; max 5 MB) or an image URL")
    .option("--cost <points>", "points per ticket (default 100, at least 1)")
    .option("--end <iso>", "end date, ISO 8601 (e.g. 2030-01-31T18:00:00Z)")
    .action(action(create));
  leaf(group, "end <id>", "end a giveaway now (inactive: no more entries)").action(
    action((id: string, o: OutputOptions) => setActive(id, false, o)),
  );
  leaf(group, "activate <id>", "make a giveaway active again").action(action((id: string, o: OutputOptions) => setActive(id, true, o)));
  leaf(group, "set-image <id> <image>", "replace a giveaway's image with a file (uploaded) or a URL").action(action(setImage));
  leaf(group, "entries <id>", "a giveaway's entries, in ticket order").action(action(entries));
  destructiveLeaf(group, "draw <id>", "draw the winner (weighted by tickets, provably fair)").action(action(draw));
  destructiveLeaf(group, "delete <id>", "delete a giveaway and its entries (refunded when no winner was drawn)").action(action(remove));
}

function statusOf(giveaway: Giveaway): string {
  if (!giveaway.active) return "Inactive";
  return giveaway.endDate.getTime() > now().getTime() ? "Active" : "Ended";
}

async function list(options: OutputOptions) {
  const giveaways = await withDatabase(({ sql }) => listGiveaways(sql));
  await outputAnswer(options, z.array(giveawaySchema), giveaways, () =>
    tableView({
      rows: giveaways,
      empty: "No giveaways created yet",
      columns: [
        { header: "ID", value: (g) => String(g.id), align: "right" },
        { header: "Title", value: (g) => g.title },
        { header: "Status", value: statusOf },
        { header: "Cost", value: (g) => formatNumber(g.pointsCost), align: "right" },
        { header: "Ends", value: (g) => dateTime(g.endDate) },
        { header: "Entries", value: (g) => formatNumber(g.entriesCount), align: "right" },
        { header: "Tickets", value: (g) => formatNumber(g.ticketsCount), align: "right" },
        { header: "Winner", value: (g) => g.winnerAddress ?? "" },
      ],
    }),
  );
}

async function create(options: CreateOptions) {
  const input = parseOptions(createGiveawaySchema, options, CREATE_FIELDS);
  const giveaway = await withDatabase(({ sql, config }) =>
    withImage(input.imageUrl, { sql, uploadDir: config.uploadDir }, (tx, imageUrl) =>
      createGiveaway(tx, { ...input, imageUrl }, CLI_ACTOR),
    ),
  );
  await outputAnswer(options, giveawaySchema, giveaway, () => giveawayView("Giveaway Created", giveaway));
}

async function setActive(idText: string, active: boolean, options: OutputOptions) {
  const id = parseId(idText, "Giveaway");
  const giveaway = await withDatabase(({ sql }) => setGiveawayActive(sql, id, active, CLI_ACTOR));
  await outputAnswer(options, giveawaySchema, giveaway, () =>
    giveawayView(`Giveaway Updated: now ${active ? "active" : "inactive"}`, giveaway),
  );
}

async function setImage(idText: string, image: string, options: OutputOptions) {
  const id = parseId(idText, "Giveaway");
  const giveaway = await withDatabase(async ({ sql, config }) => {
    await getGiveaway(sql, id);
    return withImage(image, { sql, uploadDir: config.uploadDir }, (tx, imageUrl) => setGiveawayImage(tx, id, imageUrl, CLI_ACTOR));
  });
  await outputAnswer(options, giveawaySchema, giveaway, () => giveawayView("Image updated", giveaway));
}

function giveawayView(headline: string, giveaway: Giveaway) {
  return detailsView(`${headline}: #${giveaway.id} ${giveaway.title}`, [
    ["Status", statusOf(giveaway)],
    ["Cost", `${formatNumber(giveaway.pointsCost)} SPOOK per ticket`],
    ["Ends", dateTime(giveaway.endDate)],
    ["Image", giveaway.imageUrl],
    ["Entries", `${formatNumber(giveaway.entriesCount)} (${formatNumber(giveaway.ticketsCount)} tickets)`],
    ["Winner", giveaway.winnerAddress ?? "none yet"],
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
    async ({ sql }) => ({ giveawayId: id, ...(await drawGiveawayWinner(sql, id, CLI_ACTOR)) }),
  );
  await outputAnswer(options, drawnSchema, result, () =>
    detailsView(`Winner Selected: ${result.winner.address} (${formatNumber(result.winner.tickets)} tickets)`, [
      ["Winning ticket", `${formatNumber(result.winningTicket)} of ${formatNumber(result.totalTickets)} (0-based)`],
      ["Seed", result.drawSeed],
      ["Commitment", result.drawCommitment],
    ]),
  );
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
