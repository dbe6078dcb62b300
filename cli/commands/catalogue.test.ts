import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { demoCatalogue } from "../../db/demo-catalogue.ts";
import { countItems } from "../../db/queries/catalogue.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { cliEnv, runCli, runJson, type CliEnv } from "../testing/run-cli.ts";

// Each test runs several CLI processes, each starting Node, tsx and the database: more than the suite's 30 s on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: CliEnv;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-catalogue-"));

beforeAll(async () => {
  db = await createTestDatabase();
  env = cliEnv(db.url);
});
afterAll(async () => {
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const spooks = demoCatalogue().filter((item) => item.collection === "spooks");
const society = demoCatalogue().filter((item) => item.collection === "spook-society");

function writeFile(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

function csv(rows: { name: string; inscriptionId: string; collection: string; rank: number | string; rarity?: string }[]): string {
  const lines = rows.map((row) => [row.name, row.inscriptionId, row.collection, row.rank, row.rarity ?? ""].join(","));
  return ["name,inscriptionId,collection,rank,rarity", ...lines].join("\n") + "\n";
}

describe("spooks-admin catalogue", () => {
  it("refuses a file with bad rows, naming each one, and imports nothing", async () => {
    const rows = spooks.slice(0, 5).map((item) => ({ ...item, collection: "Spooks" }));
    const badCsv = writeFile(
      "bad.csv",
      csv([rows[0], { ...rows[1], rank: "x" }, rows[2], { ...rows[3], inscriptionId: "abc" }, { ...rows[4], name: rows[0].name }]),
    );
    const badJson = writeFile("bad.json", JSON.stringify([rows[0], { ...rows[1], collection: "Ghosts" }]));
    const [empty, fromCsv, fromJson, header, missing, notArray] = await Promise.all([
      runCli(["catalogue", "stats"], env),
      runCli(["catalogue", "import", badCsv], env),
      runCli(["catalogue", "import", badJson, "--json"], env),
      runCli(["catalogue", "import", writeFile("header.csv", "name,inscription,collection,rank\n")], env),
      runCli(["catalogue", "import", path.join(dir, "nope.csv")], env),
      runCli(["catalogue", "import", writeFile("object.json", "{}")], env),
    ]);
    expect(empty.stdout).toBe("The catalogue is empty: import one with `spooks-admin catalogue import FILE`\n");
    expect(fromCsv).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        `error: ${badCsv} has 3 bad rows; nothing was imported`,
        "  row 2 (line 3): invalid rank 'x'",
        "  row 4 (line 5): invalid inscriptionId 'abc'",
        "  row 5 (line 6): duplicate name (first on row 1)",
        "",
      ].join("\n"),
    });
    expect(fromJson).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: ${badJson} has 1 bad row; nothing was imported\n  row 2: unknown collection 'Ghosts'\n`,
    });
    expect(header.stderr).toMatch(/^error: .*header.csv: unknown column 'inscription'/);
    expect(missing.stderr).toBe(`error: cannot read ${path.join(dir, "nope.csv")}: ENOENT\n`);
    expect(notArray.stderr).toBe(`error: ${path.join(dir, "object.json")} must hold a JSON array of rows\n`);
    for (const result of [header, missing, notArray]) expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(await countItems(db.sql)).toBe(0);
  });

  it("imports a CSV and a JSON file, all rows at once, and reports the stats", async () => {
    const goodCsv = writeFile("spooks.csv", csv(spooks.slice(0, 50).map((item, i) => ({ ...item, rarity: i % 2 ? item.rarity : "" }))));
    const imported = await runCli(["catalogue", "import", goodCsv], env);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toBe("");
    expect(imported.stdout).toMatch(
      /^✔ Imported 50 items from spooks.csv \(50 new, 0 updated\)\n\nCollection\s+Items\s+Legendary\s+Epic\s+Rare\s+Common\s+Owned\n/,
    );
    expect(await countItems(db.sql)).toBe(50);

    const goodJson = writeFile("society.json", JSON.stringify([...society.slice(0, 30), ...spooks.slice(0, 10)]));
    const result = await runJson<{ rows: number; inserted: number; updated: number; collections: { collection: string; items: number }[] }>(
      ["catalogue", "import", goodJson],
      env,
    );
    expect(result).toMatchObject({ rows: 40, inserted: 30, updated: 10 });
    expect(result.collections.map((row) => [row.collection, row.items])).toEqual([
      ["spook-society", 30],
      ["spooks", 50],
    ]);

    const stats = await runJson<{ collections: Record<string, number | string>[] }>(["catalogue", "stats"], env);
    const counts = (key: string) => stats.collections.find((row) => row.collection === key)!;
    const expected = (items: typeof spooks) => ({
      items: items.length,
      legendary: items.filter((item) => item.rarity === "Legendary").length,
      epic: items.filter((item) => item.rarity === "Epic").length,
      rare: items.filter((item) => item.rarity === "Rare").length,
      common: items.filter((item) => item.rarity === "Common").length,
      owned: 0,
    });
    expect(counts("spooks")).toMatchObject(expected(spooks.slice(0, 50)));
    expect(counts("spook-society")).toMatchObject(expected(society.slice(0, 30)));

    const audit = await db.sql`select actor, action, target from audit_log where action = 'catalogue.import' order by id`;
    expect(audit).toEqual([
      { actor: "cli", action: "catalogue.import", target: "spooks.csv" },
      { actor: "cli", action: "catalogue.import", target: "society.json" },
    ]);
  });
});
