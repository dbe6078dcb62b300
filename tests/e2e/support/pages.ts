/**
 * Pages a test opens, each in its own browser context, closed after the test; a page that logged a console
 * error or met a CSP violation fails the test that opened it.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterEach, expect } from "vitest";
import { newPage, type PageProblems } from "./browser.ts";

export function usePages() {
  const opened: { context: BrowserContext; problems: PageProblems }[] = [];
  afterEach(async () => {
    for (const { context, problems } of opened.splice(0)) {
      await context.close();
      expect(problems.errors).toEqual([]);
    }
  });
  return {
    async open(browser: Browser, url: string, options?: Parameters<typeof newPage>[2]): Promise<{ context: BrowserContext; page: Page }> {
      const { context, page, problems } = await newPage(browser, url, options);
      opened.push({ context, problems });
      return { context, page };
    },
  };
}
