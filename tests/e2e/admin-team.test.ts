/**
 * The admin team in a real browser (issue 35, item 7), two wallets in two browser contexts against the real app
 * and database: the owner adds a co-admin and turns on second signatures for team changes; the owner proposes a
 * team change (202, nothing changes); the owner's own approval is refused (the page offers none, and the server
 * refuses the signed request); the co-admin, signed in with their own wallet, approves it by signing with MyDoge;
 * the change is applied, with both members in its audit row. A viewer then sees every tab but no button that
 * changes anything, and who they are signed in as. Every member's wallet, not only the owner's, gets the header's
 * Admin link.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hexToBytes } from "@noble/hashes/utils.js";
import { approvalMessage } from "../../app/domain/approvals.ts";
import { signMessage } from "../../app/domain/signature.ts";
import { injectMyDoge, launchBrowser, newPage, screenshot, waitForToast, type MyDogeHandle, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, testWallet, type E2eWorld } from "./support/e2e-server.ts";

const coAdmin = testWallet("co-admin");
const viewer = testWallet("viewer");

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];

/** A member's own browser: their wallet injected, signed in on /admin through the challenge. */
async function signedInAs(privateKeyHex: string): Promise<{ page: Page; mydoge: MyDogeHandle }> {
  const { context, page, problems } = await newPage(browser, world.url);
  page.setDefaultTimeout(15_000);
  opened.push({ context, problems });
  const mydoge = await injectMyDoge(page, { privateKeyHex });
  await page.goto("/admin");
  await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
  await page.getByRole("tab", { name: "User Points" }).waitFor();
  return { page, mydoge };
}

/** The header's link to /admin, which every member's wallet gets (the owner's and any role's). */
const headerAdminLink = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" });

const approvalCard = (page: Page, id: number) => page.locator(`[data-testid="approval"][data-approval-id="${id}"]`);

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 2, perCollection: 4 }), launchBrowser()]);
  await world.addPoints(world.holder.address, 500);
});

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

describe("two members, one second signature", () => {
  let owner: Page;
  let admin: Page;
  let adminWallet: MyDogeHandle;
  let approvalId = 0;
  const summary = `Make ${viewer.address} a viewer of the admin team`;

  test("the owner adds a co-admin from the Team tab and requires a second signature for team changes", async () => {
    ({ page: owner } = await signedInAs(world.admin.privateKeyHex));
    await owner.getByTestId("signed-in-as").getByText("owner: everything, and the team", { exact: false }).waitFor();
    await owner.getByRole("tab", { name: "Team" }).click();
    await owner.getByLabel("Member's wallet address").fill(coAdmin.address);
    await owner.getByLabel("Role", { exact: true }).selectOption("admin");
    await owner.getByRole("button", { name: "Add Member" }).click();
    await waitForToast(owner, "Member added");
    await owner.getByTestId("team-member").filter({ hasText: coAdmin.address }).getByText("admin", { exact: true }).waitFor();

    await owner.getByRole("tab", { name: "Approvals" }).click();
    await owner.getByRole("checkbox", { name: "team", exact: true }).check();
    await owner.getByRole("button", { name: "Save Policy" }).click();
    await waitForToast(owner, "Policy saved");
    await owner.getByTestId("policy-summary").getByText("team", { exact: true }).waitFor();
  });

  test("the owner proposes adding a viewer: 202, the approval waits, nothing changes", async () => {
    await owner.getByRole("tab", { name: "Team" }).click();
    await owner.getByLabel("Member's wallet address").fill(viewer.address);
    await owner.getByLabel("Role", { exact: true }).selectOption("viewer");
    await owner.getByRole("button", { name: "Add Member" }).click();
    await waitForToast(owner, "Approval requested");
    expect(await world.db.sql`select 1 from team_members where address = ${viewer.address}`).toHaveLength(0);
    const [row] = await world.db.sql<{ id: number }[]>`select id from admin_approvals where status = 'pending'`;
    approvalId = row.id;

    await owner.getByRole("tab", { name: "Approvals" }).click();
    const card = approvalCard(owner, approvalId);
    await card.getByText(summary).waitFor();
    await card.getByText("A different member must approve it.").waitFor();
    expect(await card.getByRole("button", { name: "Approve and Sign" }).count()).toBe(0);
    await screenshot(owner, "admin-approvals-pending");
  });

  test("the owner's own approval is refused by the server, even correctly signed", async () => {
    const message = approvalMessage(approvalId, summary, new Date());
    const signature = signMessage(hexToBytes(world.admin.privateKeyHex), message);
    const answer = await owner.evaluate(
      async ({ id, body }) => {
        const response = await fetch(`/api/admin/approvals/${id}/approve`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as unknown };
      },
      { id: approvalId, body: { message, signature } },
    );
    expect(answer).toEqual({ status: 403, body: { message: "You proposed this action: a different member must approve it" } });
    expect(await world.db.sql`select status from admin_approvals where id = ${approvalId}`).toEqual([{ status: "pending" }]);
  });

  test("the co-admin signs in with their own wallet, approves by signing, and the change is applied", async () => {
    ({ page: admin, mydoge: adminWallet } = await signedInAs(coAdmin.privateKeyHex));
    await admin.getByTestId("signed-in-as").getByText("admin: everything but the team", { exact: false }).waitFor();
    await headerAdminLink(admin).waitFor();
    await admin.getByRole("tab", { name: "Team" }).click();
    await admin.getByTestId("team-member").first().waitFor();
    expect(await admin.getByRole("button", { name: "Add Member" }).count()).toBe(0);

    await admin.getByRole("tab", { name: "Approvals" }).click();
    const card = approvalCard(admin, approvalId);
    await card.getByRole("button", { name: "Approve and Sign" }).click();
    await waitForToast(admin, "Approved");
    await card.getByText("approved", { exact: true }).waitFor();
    expect(adminWallet.signed.at(-1)).toMatch(
      new RegExp(`^Approve Spooks action #${approvalId}: Make ${viewer.address} a viewer of the admin team\\. Timestamp: \\d{4}-`),
    );

    await owner.getByRole("tab", { name: "Team" }).click();
    await owner.reload();
    await owner.getByRole("tab", { name: "Team" }).click();
    await owner.getByTestId("team-member").filter({ hasText: viewer.address }).getByText("viewer", { exact: true }).waitFor();
    const [audit] = await world.db
      .sql`select actor_address, details from audit_log where action = 'team.add' and target = ${viewer.address}`;
    expect(audit).toEqual({
      actorAddress: world.admin.address,
      details: { role: "viewer", approval: { id: approvalId, proposedBy: world.admin.address, approvedBy: coAdmin.address } },
    });
  });

  test("the viewer sees every tab, no button that changes anything, who they are signed in as, and the header's Admin link", async () => {
    const { page } = await signedInAs(viewer.privateKeyHex);
    await page.getByTestId("signed-in-as").getByText("viewer: reads every tab, changes nothing", { exact: false }).waitFor();
    expect(await headerAdminLink(page).getAttribute("href")).toBe("/admin");
    await page.getByTestId("user-row").filter({ hasText: world.holder.address }).waitFor();
    for (const tab of ["User Points", "Giveaways", "Governance", "Notifications", "Audit", "Boosts", "Team", "Approvals"]) {
      await page.getByRole("tab", { name: tab }).waitFor();
    }
    expect(await page.getByRole("button", { name: `Add points to ${world.holder.address}` }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Reset Negative Balances" }).count()).toBe(0);
    await page.getByRole("tab", { name: "Giveaways" }).click();
    expect(await page.getByRole("button", { name: "Create Giveaway" }).count()).toBe(0);
    await page.getByRole("tab", { name: "Approvals" }).click();
    await approvalCard(page, approvalId).waitFor();
    expect(await page.getByRole("button", { name: "Save Policy" }).count()).toBe(0);
    await screenshot(page, "admin-viewer");
    // Any page: the wallet stays connected, and the header still leads a member back to /admin.
    await page.goto("/");
    await headerAdminLink(page).waitFor();
  });
});
