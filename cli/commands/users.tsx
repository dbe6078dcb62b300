/** `users [--search TEXT]`: wallets with points or staked items, highest balance first, with what they earn a day. */
import type { Command } from "commander";
import { z } from "zod";
import { userRowSchema } from "../../app/api/admin.ts";
import { formatNumber } from "../../app/domain/format.ts";
import { listUsers, type UserRow } from "../../db/queries/points.server.ts";
import { points } from "../format.ts";
import { action, leaf, outputAnswer, withDatabase, type OutputOptions } from "../runtime.ts";
import { tableView } from "../views.tsx";

type UsersOptions = OutputOptions & { search?: string };

export function registerUsers(program: Command): void {
  leaf(program, "users", "list wallets with their points and staked count")
    .option("--search <text>", "only addresses containing TEXT (case-insensitive)")
    .action(action(users));
}

async function users(options: UsersOptions): Promise<void> {
  const rows = await withDatabase(({ sql }) => listUsers(sql, { search: options.search }));
  await outputAnswer(options, z.array(userRowSchema), rows, () => usersView(rows, Boolean(options.search?.trim())));
}

function usersView(rows: UserRow[], searched: boolean) {
  return tableView({
    rows,
    empty: searched ? "No users found matching search criteria" : "No users with points found",
    columns: [
      { header: "Wallet Address", value: (row) => row.address },
      { header: "Total Points", value: (row) => points(row.totalPoints), align: "right" },
      { header: "Staked Doginals", value: (row) => formatNumber(row.stakedCount), align: "right" },
      // The wallet's dailyRate, boosts included: what GET /api/rewards answers and the next 24 hours credit.
      { header: "Per Day", value: (row) => formatNumber(row.dailyRate), align: "right" },
    ],
  });
}
