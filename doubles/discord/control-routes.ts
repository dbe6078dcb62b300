/**
 * The double's control over HTTP, for browser tests that cannot reach it in-process (loopback callers only; the
 * server checks that): POST /control/{action} with a JSON body checked here (400 {message} when bad), GET
 * /control/{messages|role-changes|stats|interactions}. Each action is one call of the in-process control API;
 * `interaction` answers once the member sees a message (a deferred answer: after its edit).
 */
import { z } from "zod";
import type { DiscordDouble } from "./discord-double.server.ts";
import { ROUTES } from "./routes.ts";
import { apiError, ERRORS, json, userJson, type Answer } from "./shapes.ts";

const Id = z.string().regex(/^\d{17,19}$/);
const Permissions = z.union([z.string().regex(/^\d+$/), z.number().int().min(0)]).transform(String);

const ControlBodies = {
  guild: z.object({
    id: Id.optional(),
    name: z.string().optional(),
    roles: z
      .array(
        z.object({
          id: Id.optional(),
          name: z.string().min(1),
          position: z.number().int().min(1),
          managed: z.boolean().optional(),
          permissions: Permissions.optional(),
        }),
      )
      .optional(),
    botRole: z.object({ position: z.number().int().min(1), permissions: Permissions.optional() }).optional(),
    botExtraRoles: z.array(z.string()).optional(),
    membersIntent: z.boolean().optional(),
  }),
  user: z.object({
    id: Id.optional(),
    username: z.string().min(1).optional(),
    globalName: z.string().nullable().optional(),
    avatar: z.string().nullable().optional(),
  }),
  member: z.object({ guildId: Id, userId: Id, roles: z.array(z.string()).optional(), nick: z.string().nullable().optional() }),
  "member/remove": z.object({ guildId: Id, userId: Id }),
  app: z.object({
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    redirectUris: z.array(z.url()).min(1),
  }),
  login: z.object({ userId: Id.nullable() }),
  logout: z.object({}),
  deny: z.object({ times: z.number().int().min(1).max(1000).optional() }),
  webhook: z.object({ channelId: Id.optional(), name: z.string().min(1).max(80).optional() }),
  "webhook/delete": z.object({ id: Id }),
  fail: z.object({
    route: z.enum(ROUTES),
    status: z.union([z.literal(429), z.literal(500), z.literal(502), z.literal(503), z.literal(504)]),
    times: z.number().int().min(1).max(1_000_000).optional(),
    retryAfter: z.number().min(0).max(3600).optional(),
    scope: z.enum(["user", "global", "shared"]).optional(),
  }),
  "reset-stats": z.object({}),
  "interactions-endpoint": z.object({ url: z.url(), clientId: Id.optional() }),
  interaction: z.object({
    clientId: Id.optional(),
    guildId: Id,
    userId: Id,
    name: z.string().min(1).max(32),
    options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  }),
};
type ControlAction = keyof typeof ControlBodies;

function controlBody<A extends ControlAction>(action: A, body: unknown): z.output<(typeof ControlBodies)[A]> {
  const parsed = ControlBodies[action].safeParse(body);
  if (!parsed.success) throw new Error(`bad body for /control/${action}: ${z.prettifyError(parsed.error)}`);
  return parsed.data as z.output<(typeof ControlBodies)[A]>;
}

async function runControl(double: DiscordDouble, action: ControlAction, body: unknown): Promise<unknown> {
  switch (action) {
    case "guild":
      return double.createGuild(controlBody("guild", body));
    case "user":
      return userJson(double.createUser(controlBody("user", body)));
    case "member": {
      const { guildId, userId, ...rest } = controlBody("member", body);
      double.addMember(guildId, userId, rest);
      return { roles: double.memberRoles(guildId, userId) };
    }
    case "member/remove": {
      const { guildId, userId } = controlBody("member/remove", body);
      double.removeMember(guildId, userId);
      return { ok: true };
    }
    case "app":
      return double.registerApp(controlBody("app", body));
    case "login":
      double.logIn(controlBody("login", body).userId);
      return { ok: true };
    case "logout":
      controlBody("logout", body);
      double.logIn(null);
      return { ok: true };
    case "deny":
      double.denyAuthorizations(controlBody("deny", body).times);
      return { ok: true };
    case "webhook":
      return double.createWebhook(controlBody("webhook", body));
    case "webhook/delete":
      double.deleteWebhook(controlBody("webhook/delete", body).id);
      return { ok: true };
    case "fail": {
      const { route, ...answer } = controlBody("fail", body);
      double.failNext(route, answer);
      return { ok: true };
    }
    case "reset-stats":
      controlBody("reset-stats", body);
      double.resetStats();
      return { ok: true };
    case "interactions-endpoint": {
      const { url, clientId } = controlBody("interactions-endpoint", body);
      await double.setInteractionsEndpoint(url, clientId);
      return { ok: true };
    }
    case "interaction": {
      const sent = await double.sendCommand(controlBody("interaction", body));
      return sent.outcome === "deferred" ? double.waitForInteractionMessage(sent.id) : sent;
    }
  }
}

const READS = {
  messages: (double: DiscordDouble) => double.messages(),
  "role-changes": (double: DiscordDouble) => double.roleChanges(),
  stats: (double: DiscordDouble) => double.stats(),
  interactions: (double: DiscordDouble) => double.interactions(),
};

/** Whether `action` takes a body (so the server reads one before answering). */
export const isControlAction = (action: string) => Object.hasOwn(ControlBodies, action);

/** The answer to `METHOD /control/{action}`; `bodyText` is the request's body (POST actions only). */
export async function controlAnswer(double: DiscordDouble, method: string, action: string, bodyText = ""): Promise<Answer> {
  if (Object.hasOwn(READS, action)) {
    return method === "GET" ? json(200, READS[action as keyof typeof READS](double)) : apiError(405, ERRORS.methodNotAllowed);
  }
  if (!isControlAction(action)) return apiError(404, ERRORS.notFound);
  if (method !== "POST") return apiError(405, ERRORS.methodNotAllowed);
  try {
    return json(200, await runControl(double, action as ControlAction, bodyText ? JSON.parse(bodyText) : {}));
  } catch (error) {
    return json(400, { message: (error as Error).message });
  }
}
