/**
 * The `spooks-admin` command tree: one file per command group in cli/commands/, each registering its
 * subcommands. Works on DATABASE_URL or on the embedded database in DATA_DIR (attaching to a running
 * `npm start`), applies pending migrations itself, and records every change with actor `cli`.
 */
import { Command } from "commander";
import { appVersion } from "../app/utils/project-root.server.ts";

type Register = (program: Command) => void;

/**
 * Each command group's module, loaded only when the command line names it (or for the whole tree: help, an
 * unknown command): a command does not pay for loading every other one's code and libraries. In help's order.
 */
const COMMAND_GROUPS: Record<string, () => Promise<Register>> = {
  users: () => import("./commands/users.tsx").then((module) => module.registerUsers),
  points: () => import("./commands/points.tsx").then((module) => module.registerPoints),
  boosts: () => import("./commands/boosts.tsx").then((module) => module.registerBoosts),
  giveaways: () => import("./commands/giveaways.tsx").then((module) => module.registerGiveaways),
  proposals: () => import("./commands/proposals.tsx").then((module) => module.registerProposals),
  catalogue: () => import("./commands/catalogue.tsx").then((module) => module.registerCatalogue),
  indexer: () => import("./commands/indexer.tsx").then((module) => module.registerIndexer),
  discord: () => import("./commands/discord.tsx").then((module) => module.registerDiscord),
  audit: () => import("./commands/audit.tsx").then((module) => module.registerAudit),
  notifications: () => import("./commands/notifications.tsx").then((module) => module.registerNotifications),
  team: () => import("./commands/team.tsx").then((module) => module.registerTeam),
  approvals: () => import("./commands/approvals.tsx").then((module) => module.registerApprovals),
  log: () => import("./commands/log.tsx").then((module) => module.registerLog),
};
const ALIASES: Record<string, string> = { giveaway: "giveaways" };

const EXAMPLES = `
Examples:
  spooks-admin users --search DH5y
  spooks-admin points add DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L 250 --description "Contest prize"
  spooks-admin giveaways create --title "Halloween" --description "A Spook" --image spook.png --cost 100 --end 2030-10-31T18:00:00Z
  spooks-admin giveaways draw 3 --yes --json
  spooks-admin catalogue import catalogue.csv
  spooks-admin indexer sync
  spooks-admin audit --since 24h --action points
  spooks-admin proposals verify 4
  spooks-admin notifications list --failed
  spooks-admin notifications test discord
  spooks-admin team add DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM moderator
  spooks-admin approvals list --status pending
  spooks-admin log verify --url https://spooks.example --state spooks-log.state
  spooks-admin boosts set --from 2030-12-01T00:00:00Z --legendary 150 --tenure 7:110,30:120 --cap 200 --dry-run`;

/** The command group the command line names (its first word that is not an option), if any. */
function commandGroup(argv?: readonly string[]): string | undefined {
  const word = argv?.slice(2).find((arg) => !arg.startsWith("-"));
  return word === undefined ? undefined : (ALIASES[word] ?? word);
}

/** Groups whose commands never open the database: the public log's are clients of a site and a witness. */
const WITHOUT_DATABASE = new Set(["log"]);

/** Whether the command line runs a command that opens the database (not help, not the version). */
export function opensDatabase(argv: readonly string[]): boolean {
  const named = commandGroup(argv);
  const help = argv.some((arg) => arg === "-h" || arg === "--help") || named === "help";
  return named !== undefined && named in COMMAND_GROUPS && !WITHOUT_DATABASE.has(named) && !help;
}

/**
 * The command tree. Given the command line, only the group it names is loaded (the program's own options take no
 * value, so the first word that is not an option is the command), none for `--version`; otherwise, and for
 * `help`, every group.
 */
export async function createProgram(argv?: readonly string[]): Promise<Command> {
  const program = new Command("spooks-admin")
    .version(appVersion())
    .description(
      "Spooks admin: points, giveaways, proposals, the catalogue and the indexer, straight on the database.\n" +
        "Uses DATABASE_URL, or the embedded database in DATA_DIR (default .data), also while `npm start` runs.\n" +
        "Every command takes --json; the exit code is 0 on success and 1 on a refused or failed action.",
    )
    .showHelpAfterError("(add --help for usage)")
    .addHelpText("after", EXAMPLES);
  const named = commandGroup(argv);
  const versionOnly = named === undefined && argv?.some((arg) => arg === "-V" || arg === "--version");
  const groups = versionOnly ? [] : named !== undefined && named in COMMAND_GROUPS ? [named] : Object.keys(COMMAND_GROUPS);
  for (const register of await Promise.all(groups.map((group) => COMMAND_GROUPS[group]()))) register(program);
  return program;
}
