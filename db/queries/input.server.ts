/** Input checks for services: a failed zod parse becomes a 400 Refusal with a message a person can act on. */
import type { z } from "zod";
import { badRequest, notFound } from "../../app/domain/errors.ts";
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

export function parseOrRefuse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest(issueText(parsed.error));
  return parsed.data;
}
