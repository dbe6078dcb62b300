/**
 * /admin in a real browser against the real app and database: a non-admin wallet gets 'Unauthorized'
 * and the page makes no admin call; the admin signs the server's challenge once and then works from the
 * session cookie through every tab: points (search, add with validation, clear, recalculate, reset
 * negatives), giveaways (create with an uploaded image, preview fallback, edit image, draw a winner,
 * end, delete) and proposals (validation, options, create, delete). One admin page for the whole file;
 * the tests run in order and build on each other.
 */
import type { Browser, BrowserContext, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { recentAudit } from "../../db/queries/audit.server.ts";
import { enterGiveaway } from "../../db/queries/giveaways.server.ts";
import { appendLedger } from "../../db/queries/points.server.ts";
import { injectMyDoge, launchBrowser, newPage, screenshot, waitForToast, type MyDogeHandle, type PageProblems } from "./support/browser.ts";
import { spookySvg, startE2eWorld, testWallet, type E2eWorld } from "./support/e2e-server.ts";

const ADMIN_CALL = /^\/(api\/(admin|auth|add-permanent-points|upload-image)\b|admin\.data)/;
const negative = testWallet("negative");

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];
let page: Page;
let mydoge: MyDogeHandle;
let prizePng: Buffer;

async function open(): Promise<Page> {
  const { context, page, problems } = await newPage(browser, world.url);
  page.setDefaultTimeout(15_000);
  opened.push({ context, problems });
  return page;
}

const userRow = (address: string) => page.getByTestId("user-row").filter({ hasText: address });
const giveawayRow = (title: string) => page.getByTestId("admin-giveaway").filter({ has: page.getByRole("heading", { name: title }) });

/** 'yyyy-MM-ddTHH:mm' in the browser's local time, `ms` from now, and what the page should send (UTC). */
async function localInput(ms: number): Promise<{ local: string; iso: string }> {
  return page.evaluate((offset) => {
    const date = new Date(Date.now() + offset);
    date.setSeconds(0, 0);
    const pad = (n: number) => String(n).padStart(2, "0");
    const local = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
    return { local, iso: new Date(local).toISOString() };
  }, ms);
}

/** Scrolls the panel's title just under the sticky header, for the screenshots. */
async function scrollToPanel() {
  for (const close of await page.locator("li[data-variant]").getByRole("button", { name: "Close" }).all()) {
    await close.click().catch(() => {});
  }
  await page
    .locator("li[data-variant][data-state=open]")
    .waitFor({ state: "detached", timeout: 3000 })
    .catch(() => {});
  await page
    .getByRole("heading", { name: "Admin Panel" })
    .evaluate((node) => window.scrollTo(0, node.getBoundingClientRect().top + window.scrollY - 88));
}

async function confirm(title: string, button: string) {
  const dialog = page.getByRole("alertdialog", { name: title });
  await dialog.waitFor();
  await dialog.getByRole("button", { name: button }).click();
  await dialog.waitFor({ state: "detached" });
}

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 2, perCollection: 4 }), launchBrowser()]);
  await world.addPoints(world.holder.address, 500);
  await world.addPoints(world.other.address, 20);
  await appendLedger(world.db.sql, [{ address: negative.address, kind: "admin_clear", units: -30 * 2400, actor: { kind: "system" } }]);
  // A real PNG for the upload: the spooky SVG rendered by the browser.
  const render = await browser.newPage({ viewport: { width: 400, height: 300 } });
  await render.setContent(`<body style="margin:0">${spookySvg("Grand Prize")}</body>`);
  prizePng = await render.screenshot({ type: "png" });
  await render.close();
});

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

describe("who may see the admin panel", () => {
  test("without a wallet: 'Please connect your wallet to access the admin panel'", async () => {
    const visitor = await open();
    await visitor.goto("/admin");
    await visitor.getByRole("heading", { name: "Admin Panel" }).waitFor();
    await visitor.getByText("Please connect your wallet to access the admin panel").waitFor();
  });

  test("a non-admin wallet: no permission, an 'Unauthorized' toast, and no admin call at all", async () => {
    const holder = await open();
    const requests: Request[] = [];
    holder.on("request", (request) => requests.push(request));
    await injectMyDoge(holder, { privateKeyHex: world.holder.privateKeyHex, connected: true });
    await holder.goto("/admin");
    await holder.getByText("You don't have permission to access this admin panel").waitFor();
    await waitForToast(holder, "Unauthorized");
    await holder.waitForTimeout(500);
    const paths = requests.map((request) => new URL(request.url()).pathname);
    expect(paths.filter((path) => ADMIN_CALL.test(path))).toEqual([]);
    expect(requests.filter((request) => request.method() !== "GET").map((request) => request.url())).toEqual([]);
    // The server sent no admin data either.
    expect(await holder.content()).not.toContain(world.other.address);
    await screenshot(holder, "admin-unauthorized");
  });

  test("the route action refuses a form without the admin session", async () => {
    const before = await world.db.sql`select count(*)::int as n from points_ledger`;
    const response = await fetch(`${world.url}/admin`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "add-points", address: world.holder.address, amount: "1000" }),
    });
    // No Origin or Referer naming the site: refused before the session is even looked at (403).
    expect(response.status).toBe(403);
    const sameSite = await fetch(`${world.url}/admin`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: world.url },
      body: new URLSearchParams({ intent: "add-points", address: world.holder.address, amount: "1000" }),
    });
    expect(sameSite.status).toBe(401);
    expect(await world.db.sql`select count(*)::int as n from points_ledger`).toEqual(before);
  });
});

describe("the admin", () => {
  test("connects, signs the challenge once, and gets a session cookie", async () => {
    page = await open();
    mydoge = await injectMyDoge(page, { privateKeyHex: world.admin.privateKeyHex });
    await page.goto("/admin");
    await page.getByText("Please connect your wallet to access the admin panel").waitFor();
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByRole("tab", { name: "User Points" }).waitFor();
    expect(mydoge.signed).toHaveLength(1);
    expect(mydoge.signed[0]).toMatch(
      new RegExp(
        `^127\\.0\\.0\\.1:\\d+ wants you to sign in with your Dogecoin account:\\n${world.admin.address}\\n\\nSign in to Spooks\\.\\n`,
      ),
    );
    const cookie = (await page.context().cookies()).find((c) => c.name === "spooks_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/", secure: false });

    // A reload works from the session: no second signature.
    await page.reload();
    await page.getByRole("tab", { name: "User Points" }).waitFor();
    await userRow(world.holder.address).waitFor();
    expect(mydoge.signed).toHaveLength(1);
  });

  test("User Points: table, search, add points (with validation), clear, recalculate, reset negatives", async () => {
    const holderRow = userRow(world.holder.address);
    await holderRow.getByText("500").waitFor();
    for (const header of ["Wallet Address", "Total Points", "Staked Doginals", "Actions"]) {
      await page.getByRole("columnheader", { name: header }).waitFor();
    }
    await userRow(negative.address).getByText("-30").waitFor();

    // Search: case-insensitive contains.
    const search = page.getByLabel("Search users by address");
    await search.fill(world.holder.address.slice(3, 12).toLowerCase());
    await page.waitForURL(/\?q=/);
    await page.getByTestId("user-row").first().waitFor();
    await expect.poll(() => page.getByTestId("user-row").count()).toBe(1);
    await search.fill("zzzzzzzz");
    await page.getByText("No users found matching search criteria").waitFor();
    await search.fill("");
    await holderRow.waitFor();

    // Add Points: validation toast, then success.
    await holderRow.getByRole("button", { name: `Add points to ${world.holder.address}` }).click();
    const dialog = page.getByRole("dialog", { name: "Add Points" });
    await dialog.getByLabel("Points Amount").waitFor();
    expect(await dialog.getByLabel("Description").getAttribute("placeholder")).toBe("Manual adjustment by admin");
    await dialog.getByRole("button", { name: "Add Points" }).click();
    await waitForToast(page, "Invalid amount", "Please enter a positive number of points");
    await dialog.getByText("Please enter a positive number of points").waitFor();
    await dialog.getByLabel("Points Amount").fill("250");
    await dialog.getByLabel("Description").fill("Costume contest prize");
    await dialog.getByRole("button", { name: "Add Points" }).click();
    await waitForToast(page, "Points added");
    await dialog.waitFor({ state: "detached" });
    await holderRow.getByText("750").waitFor();

    // Clear Points asks first, naming the amount, with an optional reason (issue 33, item 1: a dialog with a field).
    const otherPoints = await userRow(world.other.address).locator("[data-points-exact]").first().getAttribute("data-points-exact");
    await userRow(world.other.address)
      .getByRole("button", { name: `Clear points of ${world.other.address}` })
      .click();
    const clearDialog = page.getByRole("dialog", { name: "Clear points?" });
    await clearDialog
      .getByTestId("clear-points-amount")
      .getByText(`This removes all ${otherPoints} points of ${world.other.address}`, { exact: false })
      .waitFor();
    await clearDialog.getByLabel("Reason (optional)").fill("Duplicate prize");
    await clearDialog.getByRole("button", { name: "Clear Points" }).click();
    await waitForToast(page, "Points cleared");
    await clearDialog.waitFor({ state: "detached" });
    const [cleared] = await world.db.sql<{ description: string }[]>`
      select description from points_ledger where address = ${world.other.address} and kind = 'admin_clear'`;
    expect(cleared.description).toBe("Duplicate prize");
    await userRow(world.other.address).getByRole("cell", { name: "0", exact: true }).first().waitFor();

    await page.getByRole("button", { name: "Reset Negative Balances" }).click();
    await confirm("Reset negative balances?", "Reset Negative Balances");
    await waitForToast(page, "Negative Balances Reset", "1 negative balances were reset to 0.");
    await userRow(negative.address).getByRole("cell", { name: "0", exact: true }).first().waitFor();

    await page.getByRole("button", { name: "Recalculate All Points" }).click();
    await confirm("Recalculate all points?", "Recalculate All Points");
    await waitForToast(page, "Points Recalculated");
    await scrollToPanel();
    await screenshot(page, "admin-points");

    const ledger = await world.db.sql<{ kind: string; actor: string; description: string }[]>`
      select kind, actor, description from points_ledger where address = ${world.holder.address} and kind = 'admin_add' and actor like 'web:%'`;
    expect(ledger).toEqual([{ kind: "admin_add", actor: `web:${world.admin.address}`, description: "Costume contest prize" }]);
  });

  test("Giveaways: create with an uploaded image, edit the image, draw a winner, end, delete", { timeout: 120_000 }, async () => {
    await page.getByRole("tab", { name: "Giveaways" }).click();
    await page.getByText("No giveaways created yet").waitFor();
    const create = page.getByRole("button", { name: "Create Giveaway" });
    await create.click();
    await waitForToast(page, "Missing Fields", "Please fill out all required fields");

    // A file that is not an image is refused by the server (checked by content).
    const imageInput = page.getByLabel("Image", { exact: true });
    await imageInput.setInputFiles({ name: "fake.png", mimeType: "image/png", buffer: Buffer.from("not an image") });
    await waitForToast(page, "Upload failed");

    await page.getByLabel("Title").fill("Legendary Spook Giveaway");
    await page.getByLabel("Description").fill("Win Spooks #1, the spookiest of them all.");
    await imageInput.setInputFiles({ name: "prize.png", mimeType: "image/png", buffer: prizePng });
    const preview = page.getByTestId("image-preview");
    await expect.poll(() => preview.getAttribute("src")).toMatch(/^\/uploads\/[\w-]+\.png$/);
    expect(await page.getByLabel("Points Cost").inputValue()).toBe("100");
    await page.getByLabel("Points Cost").fill("50");
    expect(await page.getByLabel("Number of Winners").inputValue()).toBe("1");
    await page.getByLabel("Number of Winners").fill("2");
    const end = await localInput(3 * 24 * 3_600_000);
    await page.getByLabel("End Date").fill(end.local);
    await create.click();
    await waitForToast(page, "Giveaway Created");

    const row = giveawayRow("Legendary Spook Giveaway");
    await row.getByText("Active", { exact: true }).waitFor();
    await row.getByText("50 SPOOK").waitFor();
    expect(await row.getByTestId("entries-count").textContent()).toBe("0");
    const [stored] = await world.db.sql<{ id: number; endDate: Date; imageUrl: string; pointsCost: number; winners: number }[]>`
      select id, end_date, image_url, points_cost, winners from giveaways`;
    expect(stored.endDate.toISOString()).toBe(end.iso);
    expect(stored.pointsCost).toBe(50);
    expect(stored.winners).toBe(2);
    expect((await fetch(`${world.url}${stored.imageUrl}`)).headers.get("content-type")).toBe("image/png");

    // Edit Image: a preview that cannot be shown falls back, then a good upload is saved.
    await row.getByRole("button", { name: "Edit Image" }).click();
    const editor = page.getByRole("dialog", { name: "Edit Image" });
    await editor.getByRole("button", { name: "Update Image" }).click();
    await waitForToast(page, "Missing Information", "Please select an image to update.");
    await page.route("**/uploads/**", (route) => route.abort());
    await editor.getByLabel("New image").setInputFiles({ name: "prize2.png", mimeType: "image/png", buffer: prizePng });
    await waitForToast(page, "Image preview error", "Cannot display image preview");
    await expect.poll(() => editor.getByTestId("image-preview").getAttribute("src")).toMatch(/^data:image\/svg\+xml/);
    await page.unroute("**/uploads/**");
    await editor.getByRole("button", { name: "Update Image" }).click();
    await waitForToast(page, "Image updated");
    await editor.waitFor({ state: "detached" });
    const [updated] = await world.db.sql<{ imageUrl: string }[]>`select image_url from giveaways where id = ${stored.id}`;
    expect(updated.imageUrl).not.toBe(stored.imageUrl);

    // A holder enters; the admin refreshes and draws.
    await enterGiveaway(world.db.sql, { giveawayId: stored.id, address: world.holder.address, tickets: 2 });
    await page.getByRole("button", { name: "Refresh Data" }).click();
    await expect.poll(() => row.getByTestId("entries-count").textContent()).toBe("1");
    // Draw version 2: entries close at the ord server's block count + 6; the indexer draws once 6 sit on top.
    world.server.context.config.ordUrl = world.chain.url;
    const drawBlock = world.chain.blockCount() + 6;
    await row.getByRole("button", { name: "Select Winner" }).click();
    await confirm("Select a winner?", "Select Winner");
    await waitForToast(page, `Drawing at block ${drawBlock}`);
    await row.getByTestId("drawing-at").getByText(`Drawing at block ${drawBlock}`).waitFor();
    expect(await row.getByRole("button", { name: "Select Winner" }).count()).toBe(0);
    world.chain.mine(13);
    await world.drawPass();
    await page.getByRole("button", { name: "Refresh Data" }).click();
    await row.getByTestId("winner-address").getByText(world.holder.address).waitFor();

    // Drawn, it says "Drawn" (issue 27, item 8) and offers neither End nor Activate (issue 33, item 1).
    await row.getByText("Drawn", { exact: true }).waitFor();
    expect(await row.getByRole("button", { name: /^(End|Activate)$/ }).count()).toBe(0);

    // Delete (confirmed) another giveaway with an entry: the entry goes and its points come back.
    const other = await world.createGiveaway({
      title: "Society Sticker Pack",
      description: "Stickers for every Spook Society holder.",
      pointsCost: 25,
      endDate: new Date(Date.now() + 5 * 24 * 3_600_000),
      imageUrl: world.upload("stickers.png", prizePng),
    });
    await enterGiveaway(world.db.sql, { giveawayId: other.id, address: world.holder.address, tickets: 1 });
    await page.getByRole("button", { name: "Refresh Data" }).click();
    await giveawayRow("Society Sticker Pack").waitFor();
    // End asks first, naming whom it closes entries for; then it offers Activate.
    await giveawayRow("Society Sticker Pack").getByRole("button", { name: "End" }).click();
    const ending = page.getByRole("alertdialog", { name: 'End "Society Sticker Pack"?' });
    await ending.getByText(/^Entries close now, for 1 holder with 1 ticket:/).waitFor();
    await ending.getByRole("button", { name: "End" }).click();
    await waitForToast(page, "Giveaway Updated");
    await giveawayRow("Society Sticker Pack").getByRole("button", { name: "Activate" }).waitFor();
    await scrollToPanel();
    await screenshot(page, "admin-giveaways");
    await giveawayRow("Society Sticker Pack").getByRole("button", { name: "Delete" }).click();
    await confirm("Delete giveaway?", "Delete");
    await waitForToast(page, "Giveaway Deleted");
    await giveawayRow("Society Sticker Pack").waitFor({ state: "detached" });
    expect(await world.db.sql`select 1 from giveaway_entries where giveaway_id = ${other.id}`).toHaveLength(0);
    const refunds = await world.db.sql<{ address: string; amount: number }[]>`
      select address, amount from points_ledger where kind = 'giveaway_refund' and reference like ${`giveaway:${other.id}:%`}`;
    expect(refunds).toEqual([{ address: world.holder.address, amount: 25 * 2400 }]);
  });

  test("Governance: validation, options (trimmed, blanks ignored, cleared on type change), create, delete", async () => {
    await page.getByRole("tab", { name: "Governance" }).click();
    await page.getByText("No proposals found. Create your first proposal.").waitFor();
    const create = page.getByRole("button", { name: "Create Proposal" });
    await create.click();
    await waitForToast(page, "Missing Fields", "Please fill out all required fields");

    await page.getByLabel("Title").fill("Host a haunted hayride");
    await page.getByLabel("Description").fill("Spend treasury points on a community hayride night.");
    const past = await localInput(-3_600_000);
    const start = await localInput(3_600_000);
    const end = await localInput(2 * 24 * 3_600_000);
    await page.getByLabel("Start Date").fill(past.local);
    await page.getByLabel("End Date").fill(end.local);
    await create.click();
    await waitForToast(page, "Invalid Start Date", "Start date must be in the future");
    await page.getByLabel("Start Date").fill(start.local);
    await page.getByLabel("End Date").fill(past.local);
    await create.click();
    await waitForToast(page, "Invalid End Date", "End date must be after start date");
    await page.getByLabel("End Date").fill(end.local);

    // Yes/No shows Yes and No; multiple choice starts empty.
    const options = page.getByRole("list", { name: "Options" }).getByRole("listitem");
    expect(await options.allTextContents()).toEqual(["1Yes", "2No"]);
    await page.getByLabel("Vote Type").selectOption("multiple_choice");
    expect(await options.count()).toBe(0);
    const newOption = page.getByLabel("New option");
    await newOption.fill("   Ghost tour   ");
    await page.getByRole("button", { name: "Add Option" }).click();
    await newOption.fill("    ");
    await page.getByRole("button", { name: "Add Option" }).click();
    expect(await options.allTextContents()).toEqual(["1Ghost tourRemove"]);
    await create.click();
    await waitForToast(page, "Need More Options", "Multiple choice proposals require at least two options");
    await newOption.fill("Hayride");
    await newOption.press("Enter");
    await newOption.fill("Pumpkin carving");
    await page.getByRole("button", { name: "Add Option" }).click();
    await page.getByRole("button", { name: "Remove option Pumpkin carving" }).click();
    await create.click();
    await waitForToast(page, "Proposal Created");

    const row = page.getByTestId("admin-proposal").filter({ hasText: "Host a haunted hayride" });
    await row.getByText("Upcoming", { exact: true }).waitFor();
    await row.getByText("Ghost tour · Hayride").waitFor();
    const [proposal] = await world.db.sql<{ id: number; startDate: Date; endDate: Date; voteType: string; createdBy: string }[]>`
      select id, start_date, end_date, vote_type, created_by from proposals`;
    expect(proposal).toMatchObject({ voteType: "multiple_choice", createdBy: world.admin.address });
    expect([proposal.startDate.toISOString(), proposal.endDate.toISOString()]).toEqual([start.iso, end.iso]);
    expect(
      (
        await world.db.sql<
          { optionText: string }[]
        >`select option_text from proposal_options where proposal_id = ${proposal.id} order by position`
      ).map((option) => option.optionText),
    ).toEqual(["Ghost tour", "Hayride"]);
    // The form is reset for the next proposal.
    expect(await page.getByLabel("Title").inputValue()).toBe("");
    expect(await page.getByLabel("Vote Type").inputValue()).toBe("yes_no");
    expect(await options.allTextContents()).toEqual(["1Yes", "2No"]);
    await scrollToPanel();
    await screenshot(page, "admin-governance");

    await row.getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Delete proposal?" });
    await dialog.getByText("Are you sure you want to delete this proposal? This action cannot be undone.").waitFor();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await waitForToast(page, "Proposal Deleted");
    await page.getByText("No proposals found. Create your first proposal.").waitFor();

    // Every change was recorded with the web admin as actor.
    const audit = await recentAudit(world.db.sql, 100);
    const actions = audit.filter((entry) => entry.actor === "web").map((entry) => entry.action);
    expect(new Set(actions)).toEqual(
      new Set([
        "auth.sign-in",
        "points.add",
        "points.clear",
        "points.reset-negative",
        "points.recalculate",
        "giveaway.create",
        "giveaway.image",
        "giveaway.close", // Select Winner closes entries (version 2); the indexer's draw pass draws, as the system
        "giveaway.end",
        "giveaway.delete",
        "proposal.create",
        "proposal.delete",
        "upload.image",
      ]),
    );
    expect(audit.filter((entry) => entry.action === "giveaway.draw").map((entry) => entry.actor)).toEqual(["system"]);
    const webActors = new Set(audit.filter((entry) => entry.actor === "web").map((entry) => entry.actorAddress));
    expect(webActors).toEqual(new Set([world.admin.address]));
  });

  test("disconnecting the admin wallet ends the session", async () => {
    await page
      .getByRole("banner")
      .getByRole("button", { name: `${world.admin.address.slice(0, 4)}...${world.admin.address.slice(-4)}` })
      .click();
    await page.getByRole("menuitem", { name: "Disconnect" }).click();
    await page.getByText("Please connect your wallet to access the admin panel").waitFor();
    const openSessions = () => world.db.sql`select 1 from sessions where address = ${world.admin.address} and revoked_at is null`;
    await expect.poll(async () => (await openSessions()).length).toBe(0);
  });
});
