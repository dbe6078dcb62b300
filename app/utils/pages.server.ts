/** Page loaders: a database outage is a 503 page saying so (the root ErrorBoundary), not a 500. */
import { data } from "react-router";
import type { Queryable } from "../../db/client.server.ts";
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from "../../db/availability.server.ts";
import { teamAddresses } from "../../db/queries/team.server.ts";
import { countDatabaseError } from "./metrics.server.ts";

export async function pageData<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    countDatabaseError("unavailable");
    throw data(DATABASE_UNAVAILABLE_MESSAGE, { status: 503, statusText: "Service Unavailable", headers: { "Retry-After": "5" } });
  }
}

/**
 * The admin team's addresses for the header's Admin link, on every page. A database outage leaves the owner's
 * alone (known without it) rather than failing a page that may need no table otherwise.
 */
export async function headerTeam(sql: Queryable, ownerAddress: string): Promise<string[]> {
  try {
    return await teamAddresses(sql, ownerAddress);
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    return [ownerAddress];
  }
}
