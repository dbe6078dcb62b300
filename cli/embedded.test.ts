/**
 * Without DATABASE_URL the CLI works on the embedded database in DATA_DIR: it opens the files itself
 * when nobody holds them, and attaches to the holder's socket (as beside a running `npm start`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UNITS_PER_POINT } from "../app/domain/rewards.ts";
import { openDatabase, type Database } from "../db/client.server.ts";
import { getBalanceUnits } from "../db/queries/points.server.ts";
import { randomAddress } from "./testing/fixtures.ts";
import { cliEnv, runCli, runJson } from "./testing/run-cli.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-cli-embedded-"));
let holder: Database | undefined;

afterAll(async () => {
  await holder?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("spooks-admin on the embedded database", () => {
  it("opens and migrates DATA_DIR itself, then attaches to the process holding it", async () => {
    const env = { ...cliEnv(undefined), DATA_DIR: dataDir };
    const alone = await runCli(["users"], env);
    expect(alone).toEqual({ code: 0, stderr: "", stdout: "No users with points found\n" });
    expect(fs.existsSync(path.join(dataDir, "embedded.json"))).toBe(false); // closed and released

    holder = await openDatabase({ dataDir }); // what `npm start` does in embedded mode
    const owner = JSON.parse(fs.readFileSync(path.join(dataDir, "embedded.json"), "utf8")) as { pid: number };
    expect(owner.pid).toBe(process.pid);

    const address = randomAddress();
    expect(await runJson(["points", "add", address, "7"], env)).toMatchObject({ address, totalPoints: 7 });
    expect(await getBalanceUnits(holder.sql, address)).toBe(7 * UNITS_PER_POINT);
    const [audit] = await holder.sql`select actor, action from audit_log order by id desc limit 1`;
    expect(audit).toEqual({ actor: "cli", action: "points.add" });
  }, 90_000); // three fresh PGlite boots (two in spawned CLI processes) and a migration: slow on a busy machine
});
