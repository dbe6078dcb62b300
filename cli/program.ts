/**
 * The `spooks-admin` command tree: one file per command group in cli/commands/, each registering its
 * subcommands. Works on DATABASE_URL or on the embedded database in DATA_DIR (attaching to a running
 * `npm start`), applies pending migrations itself, and records every change with actor `cli`.
 */
import { Command } from "commander";
import { registerApprovals } from "./commands/approvals.tsx";
import { registerAudit } from "./commands/audit.tsx";
import { registerBoosts } from "./commands/boosts.tsx";
import { registerCatalogue } from "./commands/catalogue.tsx";
import { registerDiscord } from "./commands/discord.tsx";
import { registerGiveaways } from "./commands/giveaways.tsx";
import { registerIndexer } from "./commands/indexer.tsx";
import { registerLog } from "./commands/log.tsx";
import { registerNotifications } from "./commands/notifications.tsx";
import { registerPoints } from "./commands/points.tsx";
import { registerProposals } from "./commands/proposals.tsx";
import { registerTeam } from "./commands/team.tsx";
import { registerUsers } from "./commands/users.tsx";
import { appVersion } from "../app/utils/project-root.server.ts";

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

export function createProgram(): Command {
  const program = new Command("spooks-admin")
    .version(appVersion())
    .description(
      "Spooks admin: points, giveaways, proposals, the catalogue and the indexer, straight on the database.\n" +
        "Uses DATABASE_URL, or the embedded database in DATA_DIR (default .data), also while `npm start` runs.\n" +
        "Every command takes --json; the exit code is 0 on success and 1 on a refused or failed action.",
    )
    .showHelpAfterError("(add --help for usage)")
    .addHelpText("after", EXAMPLES);
  registerUsers(program);
  registerPoints(program);
  registerBoosts(program);
  registerGiveaways(program);
  registerProposals(program);
  registerCatalogue(program);
  registerIndexer(program);
  registerDiscord(program);
  registerAudit(program);
  registerNotifications(program);
  registerTeam(program);
  registerApprovals(program);
  registerLog(program);
  return program;
}
