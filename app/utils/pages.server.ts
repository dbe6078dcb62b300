/** Page loaders: a database outage is a 503 page saying so (the root ErrorBoundary), not a 500. */
import { data } from "react-router";
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from "../../db/availability.server.ts";
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
