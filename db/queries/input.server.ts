/** Input checks for services: a failed zod parse becomes a 400 Refusal with a message a person can act on. */
import type { z } from "zod";
import { notFound, Refusal } from "../../app/domain/errors.ts";
import { isRowId } from "../../app/domain/ids.ts";

export { isRowId, MAX_ID } from "../../app/domain/ids.ts";

/** 404 for an id no row can have (it cannot exist, so it is not found rather than invalid). */
export function requireRowId(id: number, what: string): void {
  if (!isRowId(id)) throw notFound(`${what} not found`);
}

/** The first issue's message; zod's own phrasing does not name the field, so it gets the field's path. */
export function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "Invalid input";
  // A refinement's own message is already whole ("Invalid Dogecoin address"); zod's defaults are not.
  const authored = issue.code === "custom" && issue.message !== "Invalid input";
  const generic = !authored && /^(Invalid|Too (big|small)|Expected|Unrecognized)/.test(issue.message);
  return generic && issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
}

/** 400, or the status the first issue carries (`notFoundIssue` in app/api/kit.ts: an impossible path id is 404). */
function issueStatus(issue: z.core.$ZodIssue | undefined): 400 | 404 {
  const status = issue?.code === "custom" ? (issue.params as { status?: unknown } | undefined)?.status : undefined;
  return status === 404 ? 404 : 400;
}

export function parseOrRefuse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Refusal(issueStatus(parsed.error.issues[0]), issueText(parsed.error));
  return parsed.data;
}
