/** GET /api/admin/mail-outbox (admin): demo mode's captured mail, newest first. */
import { listCapturedMail } from "../../api/email.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as subscriptions from "../../../db/queries/email-subscriptions.server.ts";
import type { Route } from "./+types/admin-mail-outbox";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listCapturedMail, ({ context }) => subscriptions.listCapturedMail(context.sql, 100)),
);

export const action = onlyMethods("GET");
