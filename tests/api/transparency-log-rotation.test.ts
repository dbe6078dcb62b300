/**
 * Key rotation (issue 34, item 8; docs/transparency.md, "Key rotation"): `spooks-admin log rotate` ends the log
 * of the old key at its latest checkpoint and starts the log of the new key, whose first entry is that
 * checkpoint and whose genesis snapshot follows; the old log stays readable under /log/previous/1/; `log
 * verify` with a state file of the old key proves the hand-over (and refuses one the kept checkpoint is not
 * part of); only the new key signs from then on.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { formatCheckpoint } from "../../app/domain/tlog/checkpoint.ts";
import { openCheckpoint, readAllEntries } from "../../app/domain/tlog/client.ts";
import { equalBytes, hashLeaf } from "../../app/domain/tlog/merkle.ts";
import { formatVerifierKey, signerFromSeed, signNote, utf8, verifierOf } from "../../app/domain/tlog/note.ts";
import type { TileFetcher } from "../../app/domain/tlog/tiles.ts";
import { claimLogKey } from "../../app/utils/log-service.server.ts";
import { verifyLog } from "../../cli/log-verify.ts";
import { cliEnv, runCli } from "../../cli/testing/run-cli.ts";
import { integrate, latestCheckpoint, rotateLog, servedNote } from "../../db/queries/log.server.ts";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { createTestDatabase, type TestDatabase } from "../support/test-database.ts";
import { givePoints, newWallet } from "./support.ts";

vi.setConfig({ testTimeout: 120_000 });

const oldSigner = signerFromSeed("rotation.test/log", new Uint8Array(32).fill(31));
const newSigner = signerFromSeed("rotation.test/log/2", new Uint8Array(32).fill(32));
const oldKey = formatVerifierKey(verifierOf(oldSigner));
const newKey = formatVerifierKey(verifierOf(newSigner));

let db: TestDatabase;
let server: TestServer;
const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "spooks-rotation-")), "state.json");
const holders = [newWallet(), newWallet()];

const tilesAt =
  (prefix: string): TileFetcher =>
  async (tile) => {
    const response = await fetch(`${server.url}${prefix}${tile}`);
    return response.status === 404 ? null : new Uint8Array(await response.arrayBuffer());
  };

beforeAll(async () => {
  db = await createTestDatabase();
  server = await startTestServer({ sql: db.sql, adminAddress: newWallet().address });
  expect((await claimLogKey(db.sql, oldSigner)).ok).toBe(true);
  for (const [i, holder] of holders.entries()) await givePoints(db.sql, holder.address, 10 * (i + 1));
  await integrate(db.sql, oldSigner, new Date());
  expect((await verifyLog({ url: server.url, key: oldKey, state: stateFile })).differences).toEqual([]);
});

afterAll(async () => {
  await server?.close();
  await db?.close();
});

describe("key rotation", () => {
  it("is refused while entries are committed that no checkpoint covers, and to the runtime role", async () => {
    await givePoints(db.sql, holders[0].address, 1);
    await expect(rotateLog(db.owner.sql, newKey)).rejects.toThrow(/does not cover every committed entry/);
    await expect(rotateLog(db.sql, newKey)).rejects.toThrow(/permission denied/);
    await integrate(db.sql, oldSigner, new Date());
  });

  it("spooks-admin log rotate starts the new key's log with the old log's last checkpoint and a genesis snapshot", async () => {
    const last = (await latestCheckpoint(db.sql))!;
    const env = cliEnv(db.url, { MIGRATE_DATABASE_URL: db.owner.url });
    const rotated = await runCli(["log", "rotate", "--yes", "--key", newKey], env);
    expect(rotated).toMatchObject({ code: 0, stderr: "" });
    expect(rotated.stdout).toContain("/log/previous/1/");

    expect((await claimLogKey(db.sql, oldSigner)).ok).toBe(false);
    expect((await claimLogKey(db.sql, newSigner)).ok).toBe(true);
    await integrate(db.sql, newSigner, new Date());
    const next = openCheckpoint(servedNote((await latestCheckpoint(db.sql))!), verifierOf(newSigner));
    const entries: Record<string, unknown>[] = [];
    const root = await readAllEntries(tilesAt("/log/"), next.size, (_, found) => {
      for (const entry of found) entries.push(JSON.parse(new TextDecoder().decode(entry)) as Record<string, unknown>);
    });
    expect(equalBytes(root, next.root)).toBe(true);
    expect(entries[0]).toMatchObject({
      type: "log.rotation",
      verifierKey: newKey,
      previous: {
        origin: "rotation.test/log",
        verifierKey: oldKey,
        checkpoint: servedNote(last),
        size: last.size,
        tiles: "/log/previous/1/",
      },
    });
    expect(entries.filter((e) => e.type === "genesis.balance").map((e) => e.address)).toEqual(
      expect.arrayContaining(holders.map((holder) => holder.address)),
    );

    // The old log stays readable: its last checkpoint, its key, its tiles (entries and hashes), all immutable.
    const previousCheckpoint = await fetch(`${server.url}/log/previous/1/checkpoint`);
    expect(previousCheckpoint.headers.get("cache-control")).toContain("immutable");
    const previous = openCheckpoint(await previousCheckpoint.text(), verifierOf(oldSigner));
    expect((await (await fetch(`${server.url}/log/previous/1/key`)).text()).trim()).toBe(oldKey);
    expect(equalBytes(await readAllEntries(tilesAt("/log/previous/1/"), previous.size, () => {}), previous.root)).toBe(true);
    expect((await fetch(`${server.url}/log/previous/2/checkpoint`)).status).toBe(404);
  });

  it("log verify with the old key's state file proves the hand-over, then keeps the new key's checkpoint", async () => {
    await givePoints(db.sql, holders[1].address, 4);
    await integrate(db.sql, newSigner, new Date());
    const lines: string[] = [];
    const report = await verifyLog({ url: server.url, state: stateFile }, (line) => lines.push(line));
    expect(report.differences).toEqual([]);
    expect(report.verifierKey).toBe(newKey);
    expect(report.wallets).toBeGreaterThanOrEqual(2);
    expect(lines.join("\n")).toContain("hand-over proven");
    expect((JSON.parse(fs.readFileSync(stateFile, "utf8")) as { verifierKey: string }).verifierKey).toBe(newKey);
  });

  it("a checkpoint of the old key the old log does not contain gets no hand-over: log verify names it", async () => {
    // Signed by the old key, at a size the old log had, with another root: a fork of the old log.
    const forked = signNote(
      formatCheckpoint({ origin: oldSigner.name, size: 2, root: hashLeaf(utf8("another history")), extensions: [] }),
      oldSigner,
    );
    const forkState = path.join(path.dirname(stateFile), "fork.json");
    fs.writeFileSync(forkState, JSON.stringify({ verifierKey: oldKey, note: forked }));
    const report = await verifyLog({ url: server.url, state: forkState });
    expect(report.differences).toEqual([
      expect.stringMatching(
        /^log: the state file keeps a checkpoint of another key \(rotation\.test\/log\+.*\), and no hand-over to this one is proven/,
      ),
    ]);
  });
});
