/** GET /api/admin/audit (admin): the audit trail, newest first, filtered and paged. */
import { listAudit } from "../../api/admin.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as audit from "../../../db/queries/audit.server.ts";
import type { Route } from "./+types/admin-audit";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listAudit, async ({ query, context }) => {
    const page = await audit.listAudit(context.sql, { ...query, before: query.cursor });
    return { ...page, entries: page.entries.map(({ createdAt, ...entry }) => ({ ...entry, at: createdAt })) };
  }),
);

export const action = onlyMethods("GET");
