/**
 * axe-core over a page in a real browser (WCAG 2.0/2.1 A and AA, which includes text contrast ≥ 4.5:1):
 * the serious and critical violations, plus short text axe measured below the contrast minimum but left
 * "to review", each as a line saying what to fix. Shared by the accessibility and /api/docs tests.
 */
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";

export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

export const settle = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

type AxeResults = Awaited<ReturnType<AxeBuilder["analyze"]>>;
type ContrastData = { contrastRatio?: number; expectedContrastRatio?: string; fgColor?: string; bgColor?: string };

/**
 * Text whose contrast axe measured below the minimum but left "to review" because the text is short (a
 * digit such as a tab's count): the colours are known, so a shortfall is a failure here.
 */
function shortTextBelowContrast(incomplete: AxeResults["incomplete"], label: string): string[] {
  const failures: string[] = [];
  for (const node of incomplete.find((result) => result.id === "color-contrast")?.nodes ?? []) {
    for (const check of node.any) {
      const data = check.data as ContrastData | null;
      const expected = Number.parseFloat(data?.expectedContrastRatio ?? "");
      if (data?.contrastRatio && data.contrastRatio < expected) {
        failures.push(
          `${label}: [serious] color-contrast (short text) — ${data.fgColor} on ${data.bgColor} is ${data.contrastRatio}:1, ` +
            `below ${data.expectedContrastRatio}\n    ${node.target.join(" ")}`,
        );
      }
    }
  }
  return failures;
}

/**
 * axe over the page as it is now (or only the elements `only` selects): the serious and critical violations,
 * one line per rule with each offending node's target and axe's failure summary (what to fix), and short
 * text measured below the contrast minimum.
 */
export async function axeViolations(page: Page, label: string, only?: string[]): Promise<string[]> {
  await settle(page);
  const builder = new AxeBuilder({ page }).withTags(AXE_TAGS).setLegacyMode(true);
  for (const selector of only ?? []) builder.include(selector);
  const results = await builder.analyze();
  const violations = results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${label}: [${violation.impact}] ${violation.id} — ${violation.help}\n` +
        violation.nodes
          .map((node) => `    ${node.target.join(" ")}\n      ${(node.failureSummary ?? "").replace(/\n/g, "\n      ")}`)
          .join("\n"),
    );
  return [...violations, ...shortTextBelowContrast(results.incomplete, label)];
}
