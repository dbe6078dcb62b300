import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { proposalDetailSchema, proposalSchema } from "../../app/api/proposals.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { cliEnv, runCli, runJson, type CliEnv } from "../testing/run-cli.ts";

// Each test runs several CLI processes, each starting Node, tsx and the database: more than the suite's 30 s on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: CliEnv;

beforeAll(async () => {
  db = await createTestDatabase();
  env = cliEnv(db.url);
});
afterAll(async () => {
  await db?.close();
});

type Proposal = {
  id: number;
  title: string;
  status: string;
  voteType: string;
  options: { id: number; optionText: string }[];
  createdBy: string;
};

/** `json` is exactly what `schema` (the /api contract) builds: read back and built again, nothing changes. */
function expectBuiltBy(schema: z.ZodType, json: unknown): void {
  expect(schema.parse(z.encode(schema, json as never))).toEqual(json);
}

const proposalCount = async () => (await db.sql<{ n: number }[]>`select count(*)::int as n from proposals`)[0].n;
const create = (...extra: string[]) => ["proposals", "create", "--title", "Next drop", "--description", "What should we do?", ...extra];

describe("spooks-admin proposals", () => {
  it("refuses invalid proposals with the web admin's texts and creates nothing", async () => {
    const results = await Promise.all([
      runCli(["proposals", "create", "--description", "x", "--start", "2099-01-01", "--end", "2099-02-01"], env),
      runCli(create("--start", "2099-01-02T00:00:00Z", "--end", "2099-01-01T00:00:00Z"), env),
      runCli(create("--start", "2001-01-01T00:00:00Z", "--end", "2099-01-01T00:00:00Z"), env),
      runCli(
        create("--start", "2099-01-01", "--end", "2099-02-01", "--type", "multiple_choice", "--option", "Only one", "--option", "  "),
        env,
      ),
      runCli(create("--start", "2099-01-01", "--end", "2099-02-01", "--type", "ranked", "--json"), env),
      runCli(["proposals", "list"], env),
    ]);
    const empty = results.pop();
    expect(empty).toEqual({ code: 0, stderr: "", stdout: "No proposals found. Create your first proposal.\n" });
    expect(results.map((result) => [result.code, result.stdout, result.stderr])).toEqual([
      [1, "", "error: Please fill out all required fields (--title)\n"],
      [1, "", "error: End date must be after start date (--end)\n"],
      [1, "", "error: Start date must be in the future (--start)\n"],
      [1, "", "error: Multiple choice proposals require at least two options (--option)\n"],
      [1, "", expect.stringMatching(/^error: .* \(--type\)\n$/)],
    ]);
    expect(await proposalCount()).toBe(0);
  });

  it("creates yes/no and multiple choice proposals, lists them and shows results", async () => {
    const created = await runCli(create("--start", "2099-01-01T00:00:00Z", "--end", "2099-01-08T00:00:00Z"), env);
    expect(created).toMatchObject({ code: 0, stderr: "" });
    expect(created.stdout).toBe(
      [
        "✔ Proposal Created: #1 Next drop",
        "Status:  upcoming",
        "Type:    Yes/No Vote",
        "Dates:   2099-01-01 00:00 UTC → 2099-01-08 00:00 UTC",
        "Options: Yes | No",
        "",
      ].join("\n"),
    );
    const multiple = await runJson<Proposal>(
      create(
        "--start",
        "2099-02-01T00:00:00Z",
        "--end",
        "2099-02-08T00:00:00Z",
        "--type",
        "multiple_choice",
        "--option",
        " Ghosts ",
        "--option",
        "Pumpkins",
        "--option",
        "",
      ),
      env,
    );
    expect(multiple).toMatchObject({ id: 2, status: "upcoming", voteType: "multiple_choice", createdBy: "cli" });
    expect(multiple.options.map((option) => option.optionText)).toEqual(["Ghosts", "Pumpkins"]);

    const [list, table, results, yesNo, missing] = await Promise.all([
      runJson<Proposal[]>(["proposals", "list"], env),
      runCli(["proposals", "list"], env),
      runCli(["proposals", "results", "2"], env),
      runJson(["proposals", "results", "1"], env),
      runCli(["proposals", "results", "42"], env),
    ]);
    expectBuiltBy(z.array(proposalSchema), list);
    expectBuiltBy(proposalDetailSchema, yesNo);
    expect(list.map((proposal) => [proposal.id, proposal.status])).toEqual([
      [2, "upcoming"],
      [1, "upcoming"],
    ]);
    expect(table.stdout).toMatch(
      /^ID\s+Title\s+Status\s+Type\s+Dates\s+Options\n─.*\n 2\s+Next drop\s+upcoming\s+Multiple Choice\s+2099-02-01 00:00 UTC → 2099-02-08 00:00 UTC\s+Ghosts \| Pumpkins\n/,
    );

    expect(results.stdout).toMatch(
      /^#2 Next drop\nStatus: +upcoming\n[\s\S]*Unique voters: +0\nTotal votes: +0\nVotes can change: +no\nQuorum: +none\nOutcome: +\(voting not finished\)\n\nOption\s+Votes\s+Share\n─.*\nGhosts\s+0\s+0%\nPumpkins\s+0\s+0%\n$/,
    );
    expect(yesNo).toMatchObject({
      id: 1,
      totalVotes: 0,
      uniqueVoters: 0,
      options: [
        { optionText: "Yes", voteCount: 0 },
        { optionText: "No", voteCount: 0 },
      ],
    });
    expect(missing).toEqual({ code: 1, stdout: "", stderr: "error: Proposal not found\n" });
  });

  it("deletes only with --yes when there is no terminal", async () => {
    const [refused, human] = await Promise.all([
      runCli(["proposals", "delete", "1"], env),
      runCli(["proposals", "delete", "2", "-y"], env),
    ]);
    expect(refused).toMatchObject({ code: 1, stdout: "" });
    expect(refused.stderr).toContain("refused: this change needs confirmation and there is no terminal to ask on");
    expect(human).toEqual({ code: 0, stderr: "", stdout: "✔ Proposal Deleted: #2\n" });
    expect(await proposalCount()).toBe(1);

    expect(await runJson(["proposals", "delete", "1", "--yes"], env)).toEqual({ proposalId: 1, deleted: true });
    expect(await proposalCount()).toBe(0);
    const audit = await db.sql`select actor, action, target from audit_log order by id`;
    expect(audit.map((row) => `${row.actor} ${row.action} ${row.target}`)).toEqual([
      "cli proposal.create proposal:1",
      "cli proposal.create proposal:2",
      "cli proposal.delete proposal:2",
      "cli proposal.delete proposal:1",
    ]);
  });
});

describe("spooks-admin proposals results: the quorum line (issue 33, item 10)", () => {
  it("reads '24 votes of 3 required (met)'", async () => {
    const { setClock } = await import("../../app/domain/clock.ts");
    const { createProposal } = await import("../../db/queries/proposals.server.ts");
    const now = Date.now();
    const restore = setClock(() => now - 2 * 3_600_000);
    let id: number;
    let optionId: number;
    try {
      const proposal = await createProposal(
        db.sql,
        {
          title: "Quorum line",
          description: "d",
          startDate: new Date(now - 3_600_000),
          endDate: new Date(now + 86_400_000),
          voteType: "yes_no",
          options: [],
          createdBy: "cli",
          quorum: { kind: "power", value: 3 },
        },
        { kind: "cli" },
      );
      id = proposal.id;
      optionId = proposal.options[0].id;
    } finally {
      restore();
    }
    await db.sql`insert into votes (proposal_id, option_id, address, weight, signature, message, voted_at)
      values (${id}, ${optionId}, 'DQuorumVoterxxxxxxxxxxxxxxxxxxxxx1', 24, 's', 'm', ${new Date(now - 60_000)})`;
    const shown = await runCli(["proposals", "results", String(id)], env);
    expect(shown.stdout).toMatch(/\nQuorum: +24 votes of 3 required \(met\)\n/);
  });
});
