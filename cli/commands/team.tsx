/**
 * `team list`, `team add ADDRESS ROLE`, `team remove ADDRESS`: the admin team (issue 35; docs/admin.md). The CLI
 * has the database, so its changes are direct (no second signature) and audited as the operator's (`cli`), as
 * every CLI change is. The owner is ADMIN_ADDRESS (the demo admin in demo mode).
 */
import type { Command } from "commander";
import { z } from "zod";
import { addTeamMemberBody, teamMemberSchema } from "../../app/api/team.ts";
import { ASSIGNABLE_ROLES } from "../../app/domain/team.ts";
import type { Config } from "../../app/utils/env.server.ts";
import { addMember, listTeam, removeMember, roleOf, type TeamMember } from "../../db/queries/team.server.ts";
import { loadDemoWallets } from "../../server/demo.server.ts";
import { dateTime } from "../format.ts";
import {
  action,
  CLI_ACTOR,
  CliError,
  destructiveLeaf,
  leaf,
  outputAnswer,
  outputColumns,
  parseInput,
  withConfirmedChange,
  withDatabase,
  type DestructiveOptions,
  type OutputOptions,
} from "../runtime.ts";
import { detailsView, statusView, tableView } from "../views.tsx";

export function registerTeam(program: Command): void {
  const group = program.command("team").description("the admin team: the owner (ADMIN_ADDRESS) and the members with their roles");
  leaf(group, "list", "the owner, then each member with their role").action(action(list));
  leaf(group, "add <address> <role>", `add a member, or give one another role (${ASSIGNABLE_ROLES.join(", ")})`).action(action(add));
  destructiveLeaf(group, "remove <address>", "remove a member; their sessions end at once").action(action(remove));
}

/** The owner's address: ADMIN_ADDRESS, or the demo admin's in demo mode (as `npm start` picks it). */
export function ownerAddress(config: Config): string {
  const owner =
    config.adminAddress ??
    (config.demo ? loadDemoWallets(config.dataDir).find((wallet) => wallet.label === "Demo admin")?.address : undefined);
  if (!owner) throw new CliError("ADMIN_ADDRESS is not set: the team's owner is unknown");
  return owner;
}

async function list(options: OutputOptions): Promise<void> {
  const team = await withDatabase(({ sql, config }) => listTeam(sql, ownerAddress(config)));
  await outputAnswer(options, z.array(teamMemberSchema), team, () => teamView(team));
}

function teamView(team: TeamMember[]) {
  return tableView({
    rows: team,
    empty: "No team",
    width: outputColumns(),
    columns: [
      { header: "Address", value: (row) => row.address },
      { header: "Role", value: (row) => row.role },
      { header: "Added by", value: (row) => row.addedBy ?? "ADMIN_ADDRESS" },
      { header: "Added", value: (row) => (row.addedAt ? dateTime(row.addedAt) : "—"), minWidth: 20 },
    ],
  });
}

async function add(address: string, role: string, options: OutputOptions): Promise<void> {
  const input = parseInput(addTeamMemberBody, { address, role });
  const member = await withDatabase(({ sql, config }) =>
    addMember(sql, { ownerAddress: ownerAddress(config), address: input.address, role: input.role, actor: CLI_ACTOR }),
  );
  await outputAnswer(options, teamMemberSchema, member, () =>
    detailsView(`${member.address} is a ${member.role} of the admin team`, [
      ["Address", member.address],
      ["Role", member.role],
      ["Added by", member.addedBy ?? "—"],
    ]),
  );
}

async function remove(address: string, options: DestructiveOptions): Promise<void> {
  const { address: member } = parseInput(addTeamMemberBody.pick({ address: true }), { address });
  const result = await withConfirmedChange(
    options,
    async ({ sql, config }) => {
      const role = await roleOf(sql, ownerAddress(config), member);
      if (role === "owner") throw new CliError("The owner (ADMIN_ADDRESS) cannot be removed from the team");
      if (!role) throw new CliError("No member has that address");
      return `Remove ${member} (${role}) from the admin team? Their sessions end at once.`;
    },
    ({ sql, config }) => removeMember(sql, { ownerAddress: ownerAddress(config), address: member, actor: CLI_ACTOR }),
  );
  await outputAnswer(options, z.object({ address: z.string(), sessionsEnded: z.number() }), result, () =>
    statusView(`${result.address} is off the team; ${result.sessionsEnded} session(s) ended`),
  );
}
