/**
 * Every holder's browser as a witness of the public log (issue 34, items 3 and 6), in a real browser: the
 * first visit keeps the checkpoint and the footer says "Public log: N entries, checked"; a later, larger log is
 * proven consistent and kept; a history row's inclusion proof is checked on demand against the kept
 * checkpoint (and a bad proof is refused); a new log under the same key from another history puts the red
 * banner on every page, with both signed checkpoints to download, and the kept checkpoint stays; with
 * LOG_WITNESS_QUORUM the browser keeps only a checkpoint cosigned by that many witnesses.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ALG_COSIGNATURE_V1, formatVerifierKey, signerFromSeed, verifierOf } from "../../app/domain/tlog/note.ts";
import { formatAddCheckpoint } from "../../app/domain/tlog/witness.ts";
import { claimLogKey } from "../../app/utils/log-service.server.ts";
import { startWitness } from "../../cli/log-witness.ts";
import { addCosignatures, integrate, latestCheckpoint, logIndexOf, rotateLog, servedNote } from "../../db/queries/log.server.ts";
import { startTestServer } from "../support/app-server.ts";
import { injectMyDoge, launchBrowser, newPage, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

const MISMATCH = "This site's public log no longer matches what your browser saw before";
const signer = signerFromSeed("e2e.test/log", new Uint8Array(32).fill(21));
const verifierKey = formatVerifierKey(verifierOf(signer));

let world: E2eWorld;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;

const checkpointNow = async () => {
  await integrate(world.db.sql, signer, new Date());
  return (await latestCheckpoint(world.db.sql))!;
};
const kept = () =>
  page.evaluate(() => JSON.parse(localStorage.getItem("spooks.log.kept") ?? "null") as { note: string; size: number } | null);
const footerSays = (text: string) => page.getByTestId("log-status").filter({ hasText: text }).waitFor();

/** The ledger row of the holder's latest addition, and where its entry is. */
async function latestAddition(): Promise<{ id: number; index: number | null }> {
  const [{ id }] = await world.db.sql<{ id: number }[]>`
    select max(id)::int as id from points_ledger where address = ${world.holder.address} and kind = 'admin_add'`;
  return { id, index: await logIndexOf(world.db.sql, "points_ledger", id) };
}

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 2, perCollection: 4 }), launchBrowser()]);
  expect((await claimLogKey(world.db.sql, signer)).ok).toBe(true);
  await world.addPoints(world.holder.address, 40);
  await checkpointNow();
  ({ context, page, problems } = await newPage(browser, world.url));
  page.setDefaultTimeout(15_000);
  await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await world?.close();
  expect(problems?.errors ?? []).toEqual([]);
});

describe("the browser as a witness of the public log", () => {
  test("a first visit keeps the checkpoint and the footer says it is checked; a larger log is proven and kept", async () => {
    const first = await checkpointNow();
    await page.goto("/");
    await footerSays(`Public log: ${first.size} entries, checked`);
    expect(await kept()).toMatchObject({ note: servedNote(first), size: first.size });
    await page.getByTestId("log-status").click();
    await page.waitForURL("**/log");
    await page
      .getByTestId("log-page-status")
      .filter({ hasText: `${first.size} entries, consistent` })
      .waitFor();

    await world.addPoints(world.holder.address, 5);
    const second = await checkpointNow();
    expect(second.size).toBeGreaterThan(first.size);
    await page.goto("/stake");
    await footerSays(`Public log: ${second.size} entries, checked`);
    expect((await kept())?.size).toBe(second.size);
  });

  test("a history row's entry is proven in the kept checkpoint on demand; a bad proof and a row not signed yet are said so", async () => {
    const addition = await latestAddition();
    expect(addition.index).not.toBeNull();
    await page.goto("/rewards/history");
    const row = page.getByTestId("history-entry").filter({ hasText: "+5" });
    await row.getByRole("button", { name: "Check it in the public log" }).click();
    const proof = row.getByTestId("log-proof").filter({ visible: true });
    await proof.and(page.locator('[data-state="included"]')).waitFor();
    expect(await proof.textContent()).toContain(`Entry ${addition.index} of the public log, proven in the checkpoint your browser keeps`);

    // The site answers a proof that does not lead to the kept root: the browser says so.
    await page.route("**/api/log/proof/**", async (route) => {
      const answer = await route.fetch();
      const body = (await answer.json()) as { hashes: string[] };
      const flipped = body.hashes.map((hash) =>
        Buffer.from(Buffer.from(hash, "base64").map((byte, i) => (i === 0 ? byte ^ 1 : byte))).toString("base64"),
      );
      await route.fulfill({ response: answer, json: { ...body, hashes: flipped.length ? flipped : ["A".repeat(43) + "="] } });
    });
    await page.reload();
    await row.getByRole("button", { name: "Check it in the public log" }).click();
    await proof.and(page.locator('[data-state="failed"]')).waitFor();
    expect(await proof.textContent()).toMatch(/^✗ Not proven in the public log/);
    await page.unroute("**/api/log/proof/**");

    // A row committed after the latest signed checkpoint.
    await world.addPoints(world.holder.address, 3);
    await page.reload();
    const newest = page.getByTestId("history-entry").filter({ hasText: "+3" });
    await newest.getByRole("button", { name: "Check it in the public log" }).click();
    await newest.getByTestId("log-proof").filter({ visible: true }).and(page.locator('[data-state="pending"]')).waitFor();
    await checkpointNow();
  });

  test("a new log under the same key from another history: the red banner on every page, both checkpoints to download, the kept one kept", async () => {
    await page.goto("/");
    const before = await checkpointNow();
    await footerSays(`Public log: ${before.size} entries, checked`);
    const keptBefore = await kept();
    expect(keptBefore?.size).toBe(before.size);

    // The operator starts over: every log table emptied as the owner, another history signed with the same key.
    await world.db.owner.sql.begin(async (tx) => {
      await tx`alter table log_batches disable trigger user`;
      await tx`alter table log_head disable trigger user`;
      await tx`delete from log_batches`;
      await tx`update log_head set size = 0`;
      await tx`delete from log_tiles`;
      await tx`delete from log_checkpoints`;
      await tx`update log_state set size = 0, frontier = ''::bytea`;
      await tx`alter table log_batches enable trigger user`;
      await tx`alter table log_head enable trigger user`;
    });
    for (let i = 0; i < before.size + 3; i++) await world.addPoints(world.other.address, 1);
    const forked = await checkpointNow();
    expect(forked.size).toBeGreaterThan(before.size);

    await page.reload();
    const banner = page.getByTestId("log-mismatch");
    await banner.filter({ hasText: MISMATCH }).waitFor();
    await footerSays("Public log: does not match");
    for (const path of ["/stake", "/rewards", "/giveaways", "/governance", "/log", "/rewards/history"]) {
      await page.goto(path);
      await banner.filter({ hasText: MISMATCH }).waitFor();
    }
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      banner.getByRole("button", { name: "Download both signed checkpoints" }).click(),
    ]);
    const evidence = fs.readFileSync(await download.path(), "utf8");
    expect(evidence).toContain(keptBefore!.note);
    expect(evidence).toContain(servedNote(forked));
    expect(await kept()).toEqual(keptBefore);
  });
});

describe("LOG_WITNESS_QUORUM", () => {
  test("the browser keeps only a checkpoint cosigned by the quorum of witnesses", async () => {
    const witnessKey = signerFromSeed("witness.e2e.test", new Uint8Array(32).fill(22), ALG_COSIGNATURE_V1);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-e2e-witness-"));
    const witness = await startWitness({ port: 0, key: witnessKey, logs: [verifierKey], stateFile: path.join(dir, "state.json") });
    const server = await startTestServer({
      sql: world.db.sql,
      adminAddress: world.admin.address,
      env: { LOG_WITNESSES: `${formatVerifierKey(verifierOf(witnessKey))} ${witness.url}`, LOG_WITNESS_QUORUM: "1" },
    });
    const other = await newPage(browser, server.url);
    try {
      await world.addPoints(world.holder.address, 2);
      const latest = await checkpointNow();
      await other.page.goto("/");
      await other.page
        .getByTestId("log-status")
        .filter({ hasText: `Public log: ${latest.size} entries, awaiting witnesses (0 of 1 cosignatures)` })
        .waitFor();
      expect(await other.page.evaluate(() => localStorage.getItem("spooks.log.kept"))).toBeNull();

      // The witness cosigns it (as the log service sends each new checkpoint): now the browser keeps it.
      const answer = await fetch(`${witness.url}/add-checkpoint`, {
        method: "POST",
        body: formatAddCheckpoint({ oldSize: 0, proof: [], note: latest.note }),
      });
      expect(answer.status).toBe(200);
      await addCosignatures(world.db.sql, latest.size, await answer.text());
      await other.page.reload();
      await other.page
        .getByTestId("log-status")
        .filter({ hasText: `Public log: ${latest.size} entries, checked` })
        .waitFor();
      const keptNote = await other.page.evaluate(() => (JSON.parse(localStorage.getItem("spooks.log.kept")!) as { note: string }).note);
      expect(keptNote).toMatch(/\n— witness\.e2e\.test /);
      expect(other.problems.errors).toEqual([]);
    } finally {
      await other.context.close();
      await server.close();
      await witness.close();
    }
  });
});

describe("key rotation", () => {
  test("a browser that kept the old key's checkpoint proves the hand-over and keeps the new key's, without the banner", async () => {
    const newSigner = signerFromSeed("e2e.test/log/2", new Uint8Array(32).fill(23));
    const visitor = await newPage(browser, world.url);
    try {
      const before = await checkpointNow();
      await visitor.page.goto("/");
      await visitor.page
        .getByTestId("log-status")
        .filter({ hasText: `Public log: ${before.size} entries, checked` })
        .waitFor();

      await rotateLog(world.db.owner.sql, formatVerifierKey(verifierOf(newSigner)));
      expect((await claimLogKey(world.db.sql, newSigner)).ok).toBe(true);
      await integrate(world.db.sql, newSigner, new Date());
      const after = (await latestCheckpoint(world.db.sql))!;

      await visitor.page.reload();
      await visitor.page
        .getByTestId("log-status")
        .filter({ hasText: `Public log: ${after.size} entries, checked` })
        .waitFor();
      expect(await visitor.page.getByTestId("log-mismatch").count()).toBe(0);
      const keptKey = await visitor.page.evaluate(
        () => (JSON.parse(localStorage.getItem("spooks.log.kept")!) as { verifierKey: string }).verifierKey,
      );
      expect(keptKey).toBe(formatVerifierKey(verifierOf(newSigner)));
      expect(visitor.problems.errors).toEqual([]);
    } finally {
      await visitor.context.close();
    }
  });
});
