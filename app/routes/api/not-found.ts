/** Any /api path no route claims: a JSON 404, never the HTML not-found page. */
import { json } from "../../utils/api.server.ts";

const notFound = () => json({ message: "Not found" }, 404);

export const loader = notFound;
export const action = notFound;
