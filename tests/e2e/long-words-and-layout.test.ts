/**
 * Issue 32, item 13, and issue 33, items 6 and 10, in a real browser:
 * - every page (and the bell, the dialogs, each admin tab) at 360 px with 200-character words in everything
 *   people write (a giveaway's title and description, a proposal's title and options, an adjustment's
 *   description, a contact): nothing scrolls sideways, the long word breaks where it must;
 * - tab strips fit (staking filters, governance, the admin's tabs): no tab out of sight;
 * - item names keep their number ("Spook Society #5", never "Spook Society #…");
 * - the statistics block is the staking page's only;
 * - heading levels rise by one on every page (h1, then h2, never h1 → h3);
 * - at 1280 px the admin's header is one row.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { HOUR_MS } from "../../app/domain/clock.ts";
import { enterGiveaway } from "../../db/queries/giveaways.server.ts";
import { addPoints } from "../../db/queries/points.server.ts";
import { createProposal } from "../../db/queries/proposals.server.ts";
import { findItems, stakeItems } from "../../db/queries/stakes.server.ts";
import { injectMyDoge, launchBrowser } from "./support/browser.ts";
import { atTime } from "./support/clock.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";
import { usePages } from "./support/pages.ts";

const DAY = 24 * HOUR_MS;
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };
/** A word of `length` characters with no place to break: a URL-like run, a formula. */
const longWord = (seed: string, length = 200) => `${seed}${"x".repeat(length)}`.slice(0, length);
const LONG_URL = `https://example.com/${"a".repeat(180)}`;

let world: E2eWorld;
let browser: Browser;
let drawnId = 0;
let proposalId = 0;
const pages = usePages();

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ perCollection: 8, holderOwns: 6 }), launchBrowser()]);
  const { holder, other } = world;
  const sql = world.db.sql;
  const now = Date.now();
  await atTime(now - 2 * DAY, async () =>
    stakeItems(sql, holder.address, await findItems(sql, [world.holderItems[0].inscriptionId, world.holderItems[7].inscriptionId])),
  );
  await world.addPoints(holder.address, 1000);
  await world.addPoints(other.address, 100);
  // An adjustment whose description is one long word: the points history and the bell show it.
  await addPoints(sql, { address: holder.address, points: 5, description: longWord("formula=SUM(A1:A9999)"), actor: { kind: "system" } });
  const open = await world.createGiveaway({
    title: longWord("TitleWithoutSpaces"),
    description: `See ${LONG_URL} and ${longWord("Description")}`,
    pointsCost: 10,
    endDate: new Date(now + 3 * DAY),
  });
  await enterGiveaway(sql, { giveawayId: open.id, address: holder.address, tickets: 1 });
  const drawn = await world.createGiveaway({
    title: longWord("DrawnTitle"),
    description: LONG_URL,
    pointsCost: 10,
    endDate: new Date(now + DAY),
  });
  await enterGiveaway(sql, { giveawayId: drawn.id, address: holder.address, tickets: 1 });
  await enterGiveaway(sql, { giveawayId: drawn.id, address: other.address, tickets: 1 });
  await world.draw(drawn.id);
  drawnId = drawn.id;
  const proposal = await atTime(now - 2 * HOUR_MS, () =>
    createProposal(
      sql,
      {
        title: longWord("ProposalTitle"),
        description: `${LONG_URL} ${longWord("Why")}`,
        startDate: new Date(now - HOUR_MS),
        endDate: new Date(now + 3 * DAY),
        voteType: "multiple_choice",
        options: [longWord("OptionOne", 180), longWord("OptionTwo", 180)],
        createdBy: world.admin.address,
      },
      { kind: "web", address: world.admin.address },
    ),
  );
  proposalId = proposal.id;
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

async function settled(page: Page) {
  await page.waitForLoadState("networkidle").catch(() => {});
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

/** What is wrong with the page as it is now: wider than the window, a tab out of sight, a heading level skipped. */
async function problemsOf(page: Page, label: string): Promise<string[]> {
  await settled(page);
  const found = await page.evaluate(() => {
    const problems: string[] = [];
    const innerWidth = window.innerWidth;
    if (document.documentElement.scrollWidth > innerWidth) {
      const culprits = Array.from(document.querySelectorAll("body *"))
        .filter((element) => element.getBoundingClientRect().right > innerWidth + 0.5 && element.getBoundingClientRect().width > 0)
        .filter((element) => !Array.from(element.children).some((child) => child.getBoundingClientRect().right > innerWidth + 0.5))
        .slice(0, 5)
        .map(
          (element) =>
            `${element.tagName.toLowerCase()}.${String(element.getAttribute("class") ?? "")
              .split(" ")
              .slice(0, 3)
              .join(".")}`,
        );
      problems.push(`${document.documentElement.scrollWidth} px wide (${culprits.join(", ")})`);
    }
    for (const list of Array.from(document.querySelectorAll('[role="tablist"]'))) {
      const box = list.getBoundingClientRect();
      if (list.scrollWidth > list.clientWidth + 1 || box.right > innerWidth + 0.5) {
        problems.push(`tab strip "${list.getAttribute("aria-label")}" does not fit (${Math.round(box.right)} px)`);
      }
    }
    // Headings in document order (dialogs' titles count as their own outline: left out).
    const headings = Array.from(document.querySelectorAll("h1, h2, h3, h4, h5, h6")).filter(
      (heading) => !heading.closest('[role="dialog"], [role="alertdialog"], [role="menu"]'),
    );
    let previous = 0;
    for (const heading of headings) {
      const level = Number(heading.tagName[1]);
      if (level > previous + 1) problems.push(`h${level} "${(heading.textContent ?? "").slice(0, 30)}" after h${previous}`);
      previous = level;
    }
    // Our own one-word labels (a column header, a button, a tab) never break inside the word ("Ticke ts"): each
    // visible text node of one word stays on one line.
    for (const label of Array.from(document.querySelectorAll('th, button, [role="tab"]'))) {
      const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = (node.textContent ?? "").trim();
        const parent = node.parentElement!;
        if (text.length < 2 || /\s/.test(text) || parent.getBoundingClientRect().width <= 1) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const lines = new Set(Array.from(range.getClientRects()).map((rect) => Math.round(rect.top))).size;
        if (lines > 1) problems.push(`"${text.slice(0, 20)}" breaks inside its word`);
      }
    }
    if (location.pathname !== "/" && document.querySelector('[aria-label="Collection statistics"]')) {
      problems.push("the statistics block is shown off the staking page");
    }
    return problems;
  });
  return found.map((problem) => `${label}: ${problem}`);
}

const PATHS = () => [
  "/",
  "/rewards",
  "/rewards/history",
  "/governance",
  `/governance/${proposalId}`,
  `/giveaways/${drawnId}/verify`,
  "/notifications",
  "/admin",
  "/no-such-page",
];

async function holderPage(viewport: { width: number; height: number }) {
  const { page } = await pages.open(browser, world.url, { viewport });
  page.setDefaultTimeout(30_000);
  await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
  return page;
}

describe("long words, the phone, headings (issue 32 item 13; issue 33 items 6 and 10)", () => {
  test("at 360 px with 200-character words, no page, dialog or menu of the holder scrolls sideways or skips a heading level", async () => {
    const page = await holderPage(PHONE);
    const problems: string[] = [];
    for (const path of PATHS()) {
      await page.goto(path);
      await page.locator("main").first().waitFor();
      if (path === "/") await page.getByTestId("item-card").first().waitFor();
      if (path === "/rewards") await page.getByTestId("entries-count").waitFor();
      if (path === "/rewards/history") await page.getByTestId("history-entry").first().waitFor();
      problems.push(...(await problemsOf(page, `holder ${path}`)));
    }
    // Item names keep their number: squeezed to 90 px, the collection's name is cut with "…", "#5" is whole.
    await page.goto("/");
    const name = page.getByTestId("item-card").filter({ hasText: "Spook Society #5" }).getByRole("heading");
    const squeezed = await name.evaluate((heading) => {
      (heading as HTMLElement).style.width = "90px";
      const [head, tail] = Array.from(heading.querySelectorAll<HTMLElement>("span span"));
      const box = heading.getBoundingClientRect();
      const number = tail.getBoundingClientRect();
      return {
        headCut: head.scrollWidth > head.clientWidth && getComputedStyle(head).textOverflow === "ellipsis",
        tail: tail.textContent,
        tailWhole: tail.scrollWidth <= tail.clientWidth && number.right <= box.right + 0.5,
      };
    });
    expect(squeezed).toEqual({ headCut: true, tail: " #5", tailWhole: true });
    await page.reload();
    // The bell (its long notifications), the enter dialog, the proposal's vote form.
    await page.getByRole("button", { name: /^Notifications/ }).click();
    await page.getByRole("menu").waitFor();
    problems.push(...(await problemsOf(page, "holder bell")));
    await page.keyboard.press("Escape");
    await page.goto("/rewards");
    await page
      .getByRole("button", { name: /Enter Giveaway|Add More Tickets/ })
      .first()
      .click();
    await page.getByRole("dialog").waitFor();
    problems.push(...(await problemsOf(page, "holder enter dialog")));
    await page.keyboard.press("Escape");
    await page.goto(`/governance/${proposalId}`);
    await page.getByRole("dialog").waitFor();
    problems.push(...(await problemsOf(page, "holder proposal dialog")));
    expect(problems).toEqual([]);
  }, 300_000);

  test("at 360 px the admin's tabs fit and every tab holds long words; at 1280 px its header is one row", async () => {
    const { page } = await pages.open(browser, world.url, { viewport: PHONE });
    page.setDefaultTimeout(30_000);
    await injectMyDoge(page, { privateKeyHex: world.admin.privateKeyHex });
    await page.goto("/admin");
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByRole("tab", { name: "User Points" }).waitFor();
    const problems: string[] = [];
    for (const tab of await page.getByRole("tab").allTextContents()) {
      await page.getByRole("tab", { name: tab, exact: true }).click();
      problems.push(...(await problemsOf(page, `admin tab ${tab}`)));
    }
    expect(problems).toEqual([]);

    await page.setViewportSize(DESKTOP);
    await page.goto("/admin");
    await page.getByRole("tab", { name: "User Points" }).waitFor();
    // One row: every part of the header's bar shares the first part's vertical middle (the bar centres its items).
    const middles = await page.getByRole("banner").evaluate((header) =>
      Array.from(header.firstElementChild!.children)
        .map((child) => child.getBoundingClientRect())
        .filter((box) => box.height > 0)
        .map((box) => Math.round(box.top + box.height / 2)),
    );
    expect(
      middles.every((middle) => Math.abs(middle - middles[0]) <= 2),
      `the header's logo, navigation and wallet sit on one row (middles ${middles.join(", ")})`,
    ).toBe(true);
    expect(await problemsOf(page, "admin 1280")).toEqual([]);
  }, 300_000);

  test("at 1280 px every page's headings rise by one", async () => {
    const page = await holderPage(DESKTOP);
    const problems: string[] = [];
    for (const path of PATHS()) {
      await page.goto(path);
      await page.locator("main").first().waitFor();
      if (path === "/") await page.getByTestId("item-card").first().waitFor();
      problems.push(...(await problemsOf(page, `1280 ${path}`)));
    }
    expect(problems).toEqual([]);
    // The rewards panel scrolls with the page: nothing below it in its column can slide over it (issue 33, item 6).
    await page.goto("/");
    const panel = page.getByRole("complementary", { name: "Rewards" });
    await panel.getByTestId("daily-rate").waitFor();
    expect(await panel.evaluate((element) => getComputedStyle(element).position)).not.toBe("sticky");
  }, 300_000);
});
