/**
 * `discord rules|preview|sync|links|commands sync`: Discord holder roles (issue 25; docs/discord.md). `rules` shows
 * the rules (`--set FILE` replaces them from a JSON file, checked against the server's roles as the admin tab
 * does); `preview FILE` says who would gain or lose a role; `sync` runs the reconciliation sweep now; `links`
 * lists the linked members; `commands sync` registers the slash commands (issue 37) with one bulk overwrite.
 * Each takes --json (the /api answer's shape where there is one).
 */
import fs from "node:fs";
import type { Command } from "commander";
import { z } from "zod";
import { discordStatusSchema, previewDiscordRules, rulesAnswerSchema, rulesBody, sweepSchema } from "../../app/api/discord.ts";
import { describeRule } from "../../app/domain/discord.ts";
import { Refusal } from "../../app/domain/errors.ts";
import { discordStatus, previewRules, readRules, saveRules } from "../../app/utils/discord-admin.server.ts";
import { syncCommands } from "../../app/utils/discord-commands.server.ts";
import { discordUnavailable } from "../../app/utils/discord.server.ts";
import { loadConfig, type DiscordConfig } from "../../app/utils/env.server.ts";
import { sweepRoles } from "../../indexer/discord-sync.server.ts";
import { readDemoDiscord } from "../../server/demo-discord.server.ts";
import { createCliLogger } from "../logger.ts";
import { dateTime } from "../format.ts";
import {
  action,
  CLI_ACTOR,
  CliError,
  leaf,
  outputAnswer,
  outputColumns,
  parseInput,
  withDatabase,
  type OutputOptions,
  type Session,
} from "../runtime.ts";
import { detailsView, tableView } from "../views.tsx";

export function registerDiscord(program: Command): void {
  const discord = program.command("discord").description("Discord holder roles: rules, preview, sync, linked members");
  leaf(discord, "rules", "the holder-role rules (--set FILE replaces them with a JSON list of rules)")
    .option("--set <file>", 'a JSON file: [{ "roleId": "…", "minStaked": 1, "minPoints": 500, "minLegendary": 1, "minStakedDays": 30 }]')
    .action(action(rules));
  leaf(discord, "preview <file>", "who would gain or lose a role under the rules in FILE (nothing is saved)").action(action(preview));
  leaf(discord, "sync", "run the reconciliation sweep now: every linked member's roles made to match the rules").action(action(sync));
  leaf(discord, "links", "the linked wallets, their Discord accounts and the roles granted").action(action(links));
  const commands = discord.command("commands").description("slash commands (/points, /stake, /giveaways, /leaderboard, /verify, /link)");
  leaf(commands, "sync", "register the slash commands with Discord now (one bulk overwrite of the server's commands)").action(
    action(syncSlashCommands),
  );
}

const registeredCommandsSchema = z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), version: z.string() }));

async function syncSlashCommands(options: OutputOptions): Promise<void> {
  const config = configured({ config: loadConfig() });
  if (!config.publicKey) {
    throw new CliError("Slash commands are not configured: set DISCORD_PUBLIC_KEY (the application's Public Key, docs/discord.md)");
  }
  let saved;
  try {
    saved = await syncCommands(config);
  } catch (error) {
    throw new CliError(discordUnavailable(error).message);
  }
  await outputAnswer(options, registeredCommandsSchema, saved, () =>
    tableView({
      rows: saved,
      empty: "No command registered",
      width: outputColumns(),
      columns: [
        { header: "Command", value: (command) => `/${command.name}` },
        { header: "Id", value: (command) => command.id },
        { header: "Description", value: (command) => command.description },
      ],
    }),
  );
}

/** The Discord settings: DISCORD_*, or in demo mode the running demo's double (as `giveaways draw` uses its chain). */
function configured(session: Pick<Session, "config">): DiscordConfig {
  const demo = !session.config.discord && session.config.demo ? readDemoDiscord(session.config.dataDir) : undefined;
  if (demo) return demo;
  if (!session.config.discord) {
    throw new CliError(
      "Discord holder roles are not configured: set DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET, DISCORD_BOT_TOKEN and DISCORD_GUILD_ID",
    );
  }
  return session.config.discord;
}

function readRulesFile(file: string) {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    throw new CliError(`Cannot read ${file}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not JSON`);
  }
  return parseInput(rulesBody, json);
}

async function rules(options: OutputOptions & { set?: string }): Promise<void> {
  const input = options.set === undefined ? undefined : readRulesFile(options.set);
  const answer = await withDatabase(async (session) => {
    const config = configured(session);
    const context = { sql: session.sql, config: { discord: config } };
    try {
      return input ? await saveRules(context, input, CLI_ACTOR) : await readRules(context);
    } catch (error) {
      if (error instanceof Refusal) throw new CliError(error.message);
      throw error;
    }
  });
  const name = (id: string) => answer.roles?.find((role) => role.id === id)?.name ?? id;
  await outputAnswer(options, rulesAnswerSchema, answer, () =>
    tableView({
      rows: answer.rules,
      empty: input ? "Rules saved: there are none now" : "No rules: no role is given",
      width: outputColumns(),
      columns: [
        { header: "Role", value: (rule) => `${name(rule.roleId)} (${rule.roleId})` },
        { header: "Earned by", value: (rule) => describeRule(rule) },
      ],
    }),
  );
}

async function preview(file: string, options: OutputOptions): Promise<void> {
  const input = readRulesFile(file);
  const answer = await withDatabase(async (session) => {
    configured(session);
    return previewRules(session.sql, input);
  });
  const rows = [
    ...answer.gain.map((change) => ({ ...change, what: "gains" })),
    ...answer.lose.map((change) => ({ ...change, what: "loses" })),
  ];
  await outputAnswer(options, previewDiscordRules.responses[200].schema, answer, () =>
    tableView({
      rows,
      empty: "Nobody would gain or lose a role",
      width: outputColumns(),
      columns: [
        { header: "Wallet", value: (row) => row.address },
        { header: "", value: (row) => row.what },
        { header: "Role", value: (row) => row.roleId },
        { header: "Why", value: (row) => row.reason },
      ],
    }),
  );
}

async function sync(options: OutputOptions): Promise<void> {
  const record = await withDatabase(async (session) => {
    const config = configured(session);
    return sweepRoles({ sql: session.sql, config, logger: createCliLogger(session.config) }, "cli", CLI_ACTOR);
  });
  await outputAnswer(options, sweepSchema, record, () =>
    detailsView(
      `Sweep done: ${record.difference} role ${record.difference === 1 ? "change was" : "changes were"} needed`,
      [
        ["Members read", String(record.members)],
        ["Not in the server", String(record.absent)],
        ["Roles added", String(record.added)],
        ["Roles removed", String(record.removed)],
        ["Requests to Discord", String(record.requests)],
        ["Errors", String(record.errors)],
      ],
      record.errors ? "warning" : "success",
    ),
  );
}

async function links(options: OutputOptions): Promise<void> {
  const status = await withDatabase(async (session) => {
    configured(session);
    return discordStatus(session.sql);
  });
  await outputAnswer(options, discordStatusSchema, status, () =>
    tableView({
      rows: status.links,
      empty: "No wallet is linked",
      width: outputColumns(),
      columns: [
        { header: "Wallet", value: (link) => link.address },
        { header: "Discord", value: (link) => `${link.username} (${link.discordUserId})${link.inGuild ? "" : " not in the server"}` },
        { header: "Roles", value: (link) => link.roles.join(", ") || "—" },
        { header: "Linked", value: (link) => dateTime(link.linkedAt), minWidth: 20 },
      ],
    }),
  );
}
