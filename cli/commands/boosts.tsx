/**
 * `boosts show|set|cancel`: the boost schedules (issue 26; `cancel`, an upcoming one: issue 33). `set` records a new version from a whole hour (audited,
 * actor `cli`), or with --dry-run prints what it would change: points per day at today's stakes, before → after.
 * Rules and writes are db/queries/boosts.server.ts, the same as PUT /api/admin/boosts.
 */
import type { Command } from "commander";
import { boostScheduleBody, boostScheduleSchema, boostSchedulesSchema, schedulePreviewSchema } from "../../app/api/boosts.ts";
import type { BoostSchedule } from "../../app/domain/boosts.ts";
import { now } from "../../app/domain/clock.ts";
import { formatNumber } from "../../app/domain/format.ts";
import { boostSchedules, cancelSchedule, createSchedule, previewSchedule } from "../../db/queries/boosts.server.ts";
import { dateTime } from "../format.ts";
import {
  action,
  CLI_ACTOR,
  CliError,
  destructiveLeaf,
  leaf,
  outputAnswer,
  parseInput,
  withConfirmedChange,
  withDatabase,
  type DestructiveOptions,
  type OutputOptions,
} from "../runtime.ts";
import { detailsView, tableView } from "../views.tsx";

type SetOptions = OutputOptions & {
  from?: string;
  common?: string;
  rare?: string;
  epic?: string;
  legendary?: string;
  tenure?: string;
  cap?: string;
  dryRun?: boolean;
};

export function registerBoosts(program: Command): void {
  const group = program.command("boosts").description("boost schedules: rarity and tenure percentages");
  leaf(group, "show", "the schedule in force, the upcoming ones and the past ones").action(action(show));
  leaf(group, "set", "a new schedule from a whole hour (percentages: multiples of 10 from 100 to 300)")
    .option("--from <iso>", "when it starts: a whole hour, not in the past (ISO 8601)")
    .option("--common <percent>", "Common items", "100")
    .option("--rare <percent>", "Rare items", "100")
    .option("--epic <percent>", "Epic items", "100")
    .option("--legendary <percent>", "Legendary items", "100")
    .option("--tenure <steps>", 'tenure steps "days:percent,…", ascending days (e.g. 7:110,30:120); none by default', "")
    .option("--cap <percent>", "the most rarity × tenure may reach", "300")
    .option("--dry-run", "print its effect on today's stakes (points per day before → after) and record nothing")
    .action(action(set));
  destructiveLeaf(group, "cancel <version>", "cancel an upcoming schedule: it never comes into force").action(action(cancel));
}

async function cancel(versionText: string, options: DestructiveOptions) {
  const version = Number(versionText);
  if (!Number.isSafeInteger(version) || version < 1) throw new CliError(`<version> must be a schedule version (got '${versionText}')`);
  const cancelled = await withConfirmedChange(
    options,
    async () => `Cancel boost schedule v${version}? It never comes into force, and holders are told.`,
    ({ sql }) => cancelSchedule(sql, version, CLI_ACTOR, now()),
  );
  await outputAnswer(options, boostScheduleSchema, cancelled, () =>
    detailsView(`Boost schedule v${version} cancelled (it was to start ${dateTime(cancelled.effectiveFrom!)})`, [
      ["Rules", rulesText(cancelled)],
    ]),
  );
}

const rulesText = (s: Pick<BoostSchedule, "rarity" | "tenure" | "cap">) =>
  `Common ${s.rarity.Common}%, Rare ${s.rarity.Rare}%, Epic ${s.rarity.Epic}%, Legendary ${s.rarity.Legendary}%; tenure ` +
  `${s.tenure.length ? s.tenure.map((step) => `${step.days}d ${step.percent}%`).join(", ") : "none"}; cap ${s.cap}%`;

async function show(options: OutputOptions) {
  const schedules = await withDatabase(({ sql }) => boostSchedules(sql, now()));
  const rows = [
    { when: "current", ...schedules.current },
    ...schedules.upcoming.map((s) => ({ when: "upcoming", ...s })),
    ...schedules.history.map((s) => ({ when: "past", ...s })),
  ];
  await outputAnswer(options, boostSchedulesSchema, schedules, () =>
    tableView({
      rows,
      empty: "No schedules",
      columns: [
        { header: "Version", value: (s) => (s.version === null ? "defaults" : String(s.version)) },
        { header: "When", value: (s) => s.when },
        { header: "From", value: (s) => (s.effectiveFrom ? dateTime(s.effectiveFrom) : "always") },
        { header: "Rules", value: rulesText },
      ],
    }),
  );
}

function tenureSteps(text: string): { days: number; percent: number }[] {
  if (text.trim() === "") return [];
  return text.split(",").map((part) => {
    const match = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(part);
    if (!match) throw new CliError(`--tenure must be "days:percent,…" (got '${part.trim()}')`);
    return { days: Number(match[1]), percent: Number(match[2]) };
  });
}

async function set(options: SetOptions) {
  if (!options.from) throw new CliError("--from is required: the whole hour the schedule starts at (ISO 8601)");
  const number = (text: string | undefined) => (text === undefined || text.trim() === "" ? text : Number(text));
  const body = parseInput(boostScheduleBody, {
    effectiveFrom: options.from,
    rarity: {
      Common: number(options.common),
      Rare: number(options.rare),
      Epic: number(options.epic),
      Legendary: number(options.legendary),
    },
    tenure: tenureSteps(options.tenure ?? ""),
    cap: number(options.cap),
  });
  if (options.dryRun) {
    const preview = await withDatabase(({ sql }) => previewSchedule(sql, body, body.effectiveFrom));
    const change = preview.after.pointsPerDay - preview.before.pointsPerDay;
    await outputAnswer(options, schedulePreviewSchema, preview, () =>
      detailsView(
        `Preview from ${dateTime(preview.at)} (nothing recorded)`,
        [
          ["Staked now", `${formatNumber(preview.items)} items in ${formatNumber(preview.wallets)} wallets`],
          [
            "Points per day",
            `${formatNumber(preview.before.pointsPerDay)} → ${formatNumber(preview.after.pointsPerDay)} (${change >= 0 ? "+" : ""}${formatNumber(change)})`,
          ],
          ...preview.byRarity.map((row): [string, string] => [
            row.rarity,
            `${formatNumber(row.items)} items: ${formatNumber(row.before)} → ${formatNumber(row.after)} a day`,
          ]),
        ],
        "info",
      ),
    );
    return;
  }
  const created = await withDatabase(({ sql }) => createSchedule(sql, body, CLI_ACTOR, now()));
  await outputAnswer(options, boostScheduleSchema, created, () =>
    detailsView(`Boost schedule v${created.version} from ${dateTime(created.effectiveFrom!)}`, [["Rules", rulesText(created)]]),
  );
}
