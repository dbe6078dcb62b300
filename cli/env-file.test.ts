/**
 * `spooks-admin` reads ./.env when there is one (as `npm start` does), and a variable already in the
 * environment wins over the file.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { randomAddress } from "./testing/fixtures.ts";
import { cliEnv, runCli } from "./testing/run-cli.ts";

describe("spooks-admin and .env", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-cli-env-"));
  });
  afterAll(async () => {
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const credited = async (address: string) =>
    (await db.sql<{ n: number }[]>`select count(*)::int as n from points_ledger where address = ${address}`)[0].n;

  it("takes DATABASE_URL from ./.env when the environment has none", async () => {
    fs.writeFileSync(path.join(dir, ".env"), `DATABASE_URL=${db.url}\n`);
    const address = randomAddress();
    const run = await runCli(["points", "add", address, "3", "--json"], cliEnv(undefined), { cwd: dir, program: "bin" });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(await credited(address)).toBe(1); // without .env it would have written to an embedded database
  });

  it("lets the environment win over ./.env", async () => {
    fs.writeFileSync(path.join(dir, ".env"), "DATABASE_URL=postgres://postgres@127.0.0.1:1/nowhere\n");
    const address = randomAddress();
    const run = await runCli(["points", "add", address, "3", "--json"], cliEnv(db.url), { cwd: dir, program: "bin" });
    expect(run.code).toBe(0);
    expect(await credited(address)).toBe(1);
  });
});
