/**
 * The double's slash commands over HTTP (REAL-WORLD.md "Slash commands over HTTP"): each registered app has an
 * Ed25519 key pair (its "Public Key"); its guild commands are replaced by a bulk overwrite
 * (PUT /applications/{app}/guilds/{guild}/commands, the bot's token); its Interactions Endpoint URL is checked
 * when it is set as Discord checks it (a signed PING must get `{"type":1}`, a badly signed one 401); an
 * interaction is POSTed there signed over `timestamp + body`, its answer read within 3 s and checked as Discord
 * checks it (type, message limits, components, flags); and the original message is edited through
 * PATCH /webhooks/{app}/{token}/messages/@original with the interaction's token, valid 15 minutes.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { randomBytes } from "node:crypto";
import { checkWebhookMessage, mentionsOf, type FormErrors, type Mentions } from "./message-limits.ts";
import {
  apiError,
  discordTimestamp,
  ERRORS,
  json,
  memberJson,
  userJson,
  type Answer,
  type ApiError,
  type MemberRecord,
  type UserRecord,
} from "./shapes.ts";

/** Discord waits this long for the answer to an interaction; later, the interaction has failed and its token is void. */
export const ANSWER_DEADLINE_MS = 3_000;
/** An interaction's token edits its messages for this long. */
export const TOKEN_LIFETIME_MS = 15 * 60_000;

const TYPES = { ping: 1, command: 2, component: 3, autocomplete: 4, modal: 5 } as const;
const CALLBACK = { pong: 1, message: 4, deferred: 5, deferredUpdate: 6, update: 7, autocomplete: 8, modal: 9 } as const;
const FLAGS = { suppressEmbeds: 4, ephemeral: 64, suppressNotifications: 4096, componentsV2: 32768 } as const;
const OPTION = {
  subCommand: 1,
  group: 2,
  string: 3,
  integer: 4,
  boolean: 5,
  user: 6,
  channel: 7,
  role: 8,
  mentionable: 9,
  number: 10,
  attachment: 11,
} as const;

const UNKNOWN_APPLICATION: ApiError = { message: "Unknown Application", code: 10002 };
const UNKNOWN_MESSAGE: ApiError = { message: "Unknown Message", code: 10008 };

export type CommandOptionSpec = {
  type: number;
  name: string;
  description: string;
  required?: boolean;
  min_value?: number;
  max_value?: number;
  min_length?: number;
  max_length?: number;
  choices?: { name: string; value: string | number }[];
};

/** A guild command as Discord saved it (what the bulk overwrite answers). */
export type GuildCommand = {
  id: string;
  application_id: string;
  version: string;
  default_member_permissions: string | null;
  type: 1;
  name: string;
  description: string;
  guild_id: string;
  nsfw: boolean;
  options?: CommandOptionSpec[];
};

/** What the caller sees of an interaction's answer (in Discord's client). */
export type SeenMessage = {
  content: string;
  embeds: Record<string, unknown>[];
  components: unknown[];
  flags: number;
  allowedMentions: unknown;
  /** Whom it would have pinged (embeds never ping). */
  mentions: Mentions;
};

export type InteractionRecord = {
  id: string;
  token: string;
  applicationId: string;
  guildId: string | null;
  userId: string | null;
  type: number;
  command: string | null;
  /** The request as sent: its body, and the signature headers (a test may replay them). */
  body: string;
  signature: string;
  timestamp: string;
  sentAt: number;
  /** The endpoint's HTTP status (null: no answer within 3 s, or no connection). */
  status: number | null;
  /** Milliseconds until the answer came (or the deadline passed). */
  elapsedMs: number;
  /** The answer's body as JSON (or its text when it was not JSON). */
  response: unknown;
  /**
   * `answered`: a message is shown; `deferred`: "is thinking…" until an edit; `pong`/`autocomplete`: their answer;
   * `failed`: Discord shows "This interaction failed" (`failure` says why) and the token is void.
   */
  outcome: "answered" | "deferred" | "pong" | "autocomplete" | "failed";
  failure: string | null;
  ephemeral: boolean;
  /** What the caller sees now (null while deferred, or when it failed). */
  message: SeenMessage | null;
  /** PATCH …/messages/@original bodies accepted, in order. */
  edits: { at: number; body: Record<string, unknown> }[];
  tokenExpiresAt: number;
};

export type SendCommand = {
  clientId?: string;
  guildId: string;
  userId: string;
  name: string;
  options?: Record<string, string | number | boolean>;
};

export type SendInteraction = {
  clientId?: string;
  guildId?: string | null;
  userId?: string | null;
  type?: number;
  data?: Record<string, unknown>;
  /** The request's timestamp (Unix seconds); default now. */
  timestamp?: number;
  /** Sign with this secret key instead of the app's (a forged request), or send no signature at all (null). */
  signWith?: Uint8Array | null;
};

type AppKeys = { clientId: string; secretKey: Uint8Array; publicKey: string; endpoint: string | null };

export type InteractionsDeps = {
  users: ReadonlyMap<string, UserRecord>;
  /** The member (undefined: not one), or null when the guild is unknown or the bot is not in it. */
  memberOf: (guildId: string, userId: string) => MemberRecord | undefined | null;
  nextId: () => string;
  botUser: UserRecord;
};

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Discord's command and option names: lowercase where a lowercase exists, 1-32 of letters, digits, `-`, `_`, `'`. */
const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const isValidName = (name: unknown): name is string => typeof name === "string" && NAME.test(name) && name === name.toLowerCase();

function addError(errors: FormErrors, path: (string | number)[], code: string, message: string) {
  let node = errors;
  for (const key of path.map(String)) node = (node[key] ??= {}) as FormErrors;
  ((node._errors ??= []) as { code: string; message: string }[]).push({ code, message });
}

const badLength = (min: number, max: number) => `Must be between ${min} and ${max} in length.`;

/** A bulk overwrite's body checked as Discord checks it; 400 50035 with nested `errors` when it breaks a rule. */
function checkCommands(body: unknown): { ok: true; commands: Record<string, unknown>[] } | { ok: false; errors: FormErrors } {
  const errors: FormErrors = {};
  if (!Array.isArray(body)) {
    addError(errors, [], "BASE_TYPE_LIST", "Must be a list.");
    return { ok: false, errors };
  }
  if (body.length > 100) addError(errors, [], "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.");
  const names = new Set<string>();
  body.forEach((command: unknown, i) => {
    if (!isObject(command)) return addError(errors, [i], "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType");
    if ((command.type ?? 1) !== 1) addError(errors, [i, "type"], "BASE_TYPE_CHOICES", "Value must be one of {1}.");
    if (!isValidName(command.name)) addError(errors, [i, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid");
    else if (names.has(command.name))
      addError(errors, [i, "name"], "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique");
    else names.add(command.name);
    const description = command.description;
    if (typeof description !== "string" || [...description].length < 1 || [...description].length > 100) {
      addError(errors, [i, "description"], "BASE_TYPE_BAD_LENGTH", badLength(1, 100));
    }
    checkOptions(errors, [i, "options"], command.options);
    const size = JSON.stringify([command.name, command.description, command.options ?? []]).length;
    if (size > 8000) addError(errors, [i], "APPLICATION_COMMAND_TOO_LARGE", "Command exceeds maximum size (8000)");
  });
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, commands: body as Record<string, unknown>[] };
}

function checkOptions(errors: FormErrors, path: (string | number)[], options: unknown) {
  if (options === undefined || options === null) return;
  if (!Array.isArray(options)) return addError(errors, path, "BASE_TYPE_LIST", "Must be a list.");
  if (options.length > 25) addError(errors, path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.");
  const names = new Set<string>();
  let optionalSeen = false;
  options.forEach((option: unknown, i) => {
    if (!isObject(option)) return addError(errors, [...path, i], "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType");
    const types: number[] = Object.values(OPTION);
    if (typeof option.type !== "number" || !types.includes(option.type)) {
      addError(errors, [...path, i, "type"], "BASE_TYPE_CHOICES", `Value must be one of {${types.join(", ")}}.`);
    }
    if (!isValidName(option.name)) addError(errors, [...path, i, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid");
    else if (names.has(option.name))
      addError(errors, [...path, i, "name"], "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", "Option names must be unique");
    else names.add(option.name);
    const description = option.description;
    if (typeof description !== "string" || [...description].length < 1 || [...description].length > 100) {
      addError(errors, [...path, i, "description"], "BASE_TYPE_BAD_LENGTH", badLength(1, 100));
    }
    if (option.required === true && optionalSeen) {
      addError(
        errors,
        [...path, i, "required"],
        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
        "Required options must be placed before non-required options",
      );
    }
    if (option.required !== true) optionalSeen = true;
  });
}

/** Link buttons (style 5: `url`, no `custom_id`) and others (`custom_id`) in action rows (REAL-WORLD.md). */
function checkComponents(errors: FormErrors, components: unknown) {
  if (components === undefined || components === null) return;
  if (!Array.isArray(components)) return addError(errors, ["components"], "BASE_TYPE_LIST", "Must be a list.");
  if (components.length > 5) addError(errors, ["components"], "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.");
  components.forEach((row: unknown, i) => {
    const at = ["components", i];
    if (!isObject(row) || row.type !== 1)
      return addError(errors, [...at, "type"], "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (1,).');
    if (!Array.isArray(row.components) || row.components.length < 1 || row.components.length > 5) {
      return addError(errors, [...at, "components"], "BASE_TYPE_BAD_LENGTH", badLength(1, 5));
    }
    row.components.forEach((button: unknown, j) => {
      const where = [...at, "components", j];
      if (!isObject(button) || button.type !== 2)
        return addError(errors, [...where, "type"], "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (2,).');
      if (typeof button.label === "string" && [...button.label].length > 80)
        addError(errors, [...where, "label"], "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer in length.");
      if (button.style === 5) {
        if (typeof button.url !== "string" || !/^(https?|discord):\/\/\S+$/.test(button.url) || button.url.length > 512) {
          addError(errors, [...where, "url"], "URL_TYPE_INVALID_URL", "Not a well formed URL.");
        }
        if (button.custom_id !== undefined)
          addError(errors, [...where, "custom_id"], "COMPONENT_CUSTOM_ID_INVALID", "A link button cannot have a custom_id");
      } else if (typeof button.custom_id !== "string" || button.custom_id.length < 1 || button.custom_id.length > 100) {
        addError(errors, [...where, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required");
      }
    });
  });
}

type MessageCheck = { ok: true; message: SeenMessage } | { ok: false; body: { code: number; message: string; errors?: FormErrors } };

/** A message of an interaction (its answer, or an edit merged over the message it edits), checked as Discord checks it. */
function checkMessage(data: Record<string, unknown>, allowedFlags: number): MessageCheck {
  const errors: FormErrors = {};
  checkComponents(errors, data.components);
  const flags = data.flags ?? 0;
  if (typeof flags !== "number" || !Number.isInteger(flags) || (flags & ~allowedFlags) !== 0) {
    addError(errors, ["flags"], "MESSAGE_FLAGS_INVALID", "Invalid flags");
  }
  const base = checkWebhookMessage(data);
  if (!base.ok && base.body.code === 50035) Object.assign(errors, base.body.errors);
  if (Object.keys(errors).length > 0) return { ok: false, body: { code: 50035, message: "Invalid Form Body", errors } };
  const components = Array.isArray(data.components) ? data.components : [];
  if (!base.ok && components.length === 0) return { ok: false, body: base.body };
  const content = base.ok ? base.content : "";
  return {
    ok: true,
    message: {
      content,
      embeds: base.ok ? base.embeds : [],
      components,
      flags: flags as number,
      allowedMentions: data.allowed_mentions,
      mentions: mentionsOf(content, data.allowed_mentions),
    },
  };
}

export function createInteractions({ users, memberOf, nextId, botUser }: InteractionsDeps) {
  const apps = new Map<string, AppKeys>();
  const commands = new Map<string, GuildCommand[]>();
  const records = new Map<string, InteractionRecord>();
  const byToken = new Map<string, InteractionRecord>();

  const appOrThrow = (clientId?: string) => {
    const app = clientId === undefined ? [...apps.values()][0] : apps.get(clientId);
    if (!app) throw new Error(clientId === undefined ? "no app registered" : `no app ${clientId}`);
    return app;
  };
  const sign = (secretKey: Uint8Array, timestamp: string, body: string) =>
    hex(ed25519.sign(new TextEncoder().encode(timestamp + body), secretKey));

  async function post(app: AppKeys, url: string, body: string, timestamp: string, signature: string | null) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "Discord-Interactions/1.0 (+https://discord.com)",
      "x-signature-timestamp": timestamp,
    };
    if (signature !== null) headers["x-signature-ed25519"] = signature;
    const started = performance.now();
    try {
      const response = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(ANSWER_DEADLINE_MS) });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text, and the answer is refused below
      }
      const jsonType = (response.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json");
      return { status: response.status, jsonType, response: parsed, elapsedMs: performance.now() - started, error: null };
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      return {
        status: null,
        jsonType: false,
        response: null,
        elapsedMs: performance.now() - started,
        error: timedOut ? `no answer within ${ANSWER_DEADLINE_MS / 1000} s` : `no connection (${(error as Error).message})`,
      };
    }
  }

  /** What Discord makes of an answer to an interaction of `type`. */
  function judge(
    type: number,
    answered: Awaited<ReturnType<typeof post>>,
  ): Pick<InteractionRecord, "outcome" | "failure" | "ephemeral" | "message"> {
    const failed = (failure: string) => ({ outcome: "failed" as const, failure, ephemeral: false, message: null });
    if (answered.error) return failed(answered.error);
    if (answered.status !== 200) return failed(`answered ${answered.status}`);
    if (!answered.jsonType || !isObject(answered.response)) return failed("the answer is not JSON (Content-Type application/json)");
    const { type: callback, data } = answered.response;
    const allowed: number[] =
      type === TYPES.ping
        ? [CALLBACK.pong]
        : type === TYPES.autocomplete
          ? [CALLBACK.autocomplete]
          : type === TYPES.component
            ? [CALLBACK.message, CALLBACK.deferred, CALLBACK.deferredUpdate, CALLBACK.update, CALLBACK.modal]
            : [CALLBACK.message, CALLBACK.deferred, CALLBACK.modal];
    if (typeof callback !== "number" || !allowed.includes(callback)) return failed(`callback type ${String(callback)} is not valid here`);
    if (callback === CALLBACK.pong) return { outcome: "pong", failure: null, ephemeral: false, message: null };
    if (callback === CALLBACK.autocomplete) {
      const choices = isObject(data) ? data.choices : undefined;
      return Array.isArray(choices) && choices.length <= 25
        ? { outcome: "autocomplete", failure: null, ephemeral: false, message: null }
        : failed("autocomplete answers need data.choices (at most 25)");
    }
    if (callback === CALLBACK.deferred) {
      const flags = isObject(data) && data.flags !== undefined ? data.flags : 0;
      if (typeof flags !== "number" || (flags & ~FLAGS.ephemeral) !== 0) return failed("a deferral may set the EPHEMERAL flag only");
      return { outcome: "deferred", failure: null, ephemeral: (flags & FLAGS.ephemeral) !== 0, message: null };
    }
    if (callback !== CALLBACK.message) return failed(`callback type ${callback} is not simulated by the double`);
    if (!isObject(data)) return failed("a message answer needs data");
    const check = checkMessage(data, FLAGS.suppressEmbeds | FLAGS.ephemeral | FLAGS.suppressNotifications | FLAGS.componentsV2);
    if (!check.ok) return failed(`invalid message: ${JSON.stringify(check.body)}`);
    return { outcome: "answered", failure: null, ephemeral: (check.message.flags & FLAGS.ephemeral) !== 0, message: check.message };
  }

  function payloadOf(app: AppKeys, spec: SendInteraction & { id: string; token: string }): Record<string, unknown> {
    const guildId = spec.guildId ?? null;
    const user = spec.userId ? users.get(spec.userId) : undefined;
    const member = guildId && spec.userId ? memberOf(guildId, spec.userId) : undefined;
    const type = spec.type ?? TYPES.command;
    return {
      app_permissions: "2248473465835073",
      application_id: app.clientId,
      attachment_size_limit: 10_485_760,
      authorizing_integration_owners: guildId ? { "0": guildId } : {},
      ...(guildId
        ? { channel_id: guildId, guild: { id: guildId, locale: "en-US", features: [] }, guild_id: guildId, guild_locale: "en-US" }
        : {}),
      context: guildId ? 0 : 1,
      ...(type === TYPES.ping ? {} : { data: spec.data ?? {} }),
      entitlements: [],
      id: spec.id,
      ...(type === TYPES.ping ? {} : { locale: "en-US" }),
      ...(member && user ? { member: { ...memberJson(member, user), permissions: "2248473465835073" } } : {}),
      ...(!member && user ? { user: userJson(user) } : {}),
      token: spec.token,
      type,
      version: 1,
    };
  }

  /** Interactions sent whose answer is not judged yet: an edit arriving meanwhile waits for it, as Discord orders them. */
  const judging = new Map<string, Promise<void>>();

  async function deliver(app: AppKeys, spec: SendInteraction): Promise<InteractionRecord> {
    if (!app.endpoint) throw new Error(`app ${app.clientId} has no Interactions Endpoint URL: setInteractionsEndpoint first`);
    const id = nextId();
    const token = Buffer.from(`interaction:${id}:${randomBytes(48).toString("hex")}`).toString("base64url");
    const body = JSON.stringify(payloadOf(app, { ...spec, id, token }));
    const timestamp = String(spec.timestamp ?? Math.floor(Date.now() / 1000));
    const signature = spec.signWith === null ? null : sign(spec.signWith ?? app.secretKey, timestamp, body);
    const sentAt = Date.now();
    let judged!: () => void;
    judging.set(token, new Promise<void>((resolve) => (judged = resolve)));
    try {
      const answered = await post(app, app.endpoint, body, timestamp, signature);
      const judgement = judge(spec.type ?? TYPES.command, answered);
      const record: InteractionRecord = {
        id,
        token,
        applicationId: app.clientId,
        guildId: spec.guildId ?? null,
        userId: spec.userId ?? null,
        type: spec.type ?? TYPES.command,
        command: typeof spec.data?.name === "string" ? spec.data.name : null,
        body,
        signature: signature ?? "",
        timestamp,
        sentAt,
        status: answered.status,
        elapsedMs: answered.elapsedMs,
        response: answered.response,
        ...judgement,
        edits: [],
        // A failed interaction's token is void at once (the 3-second deadline passed, or the answer was refused).
        tokenExpiresAt: judgement.outcome === "failed" ? sentAt : sentAt + TOKEN_LIFETIME_MS,
      };
      records.set(id, record);
      byToken.set(token, record);
      return record;
    } finally {
      judging.delete(token);
      judged();
    }
  }

  /** The options as Discord's client sends them, from what the command registered; what it would not send throws. */
  function commandData(command: GuildCommand, options: Record<string, string | number | boolean>) {
    const sent = Object.entries(options).map(([name, value]) => {
      const spec = command.options?.find((option) => option.name === name);
      if (!spec) throw new Error(`/${command.name} has no option ${name}: Discord's client would not send it`);
      const fits =
        spec.type === OPTION.string
          ? typeof value === "string"
          : spec.type === OPTION.integer
            ? typeof value === "number" &&
              Number.isSafeInteger(value) &&
              value >= (spec.min_value ?? -(2 ** 53)) &&
              value <= (spec.max_value ?? 2 ** 53)
            : spec.type === OPTION.boolean
              ? typeof value === "boolean"
              : typeof value === "string";
      if (!fits)
        throw new Error(
          `/${command.name} ${name}: ${JSON.stringify(value)} is not what Discord's client accepts for option type ${spec.type}`,
        );
      return { name, type: spec.type, value };
    });
    const missing = command.options?.find((option) => option.required && !(option.name in options));
    if (missing) throw new Error(`/${command.name} needs ${missing.name}: Discord's client would not send it without`);
    return { id: command.id, name: command.name, type: 1, guild_id: command.guild_id, ...(sent.length ? { options: sent } : {}) };
  }

  function messageJson(record: InteractionRecord) {
    const message = record.message!;
    const user = record.userId ? users.get(record.userId) : undefined;
    return {
      id: record.id,
      type: 20,
      content: message.content,
      channel_id: record.guildId,
      author: userJson(botUser),
      attachments: [],
      embeds: message.embeds.map((embed) => ({ type: "rich", ...embed })),
      mentions: [],
      mention_roles: [],
      pinned: false,
      mention_everyone: false,
      tts: false,
      timestamp: discordTimestamp(record.sentAt),
      edited_timestamp: record.edits.length ? discordTimestamp(record.edits.at(-1)!.at) : null,
      flags: message.flags,
      components: message.components,
      application_id: record.applicationId,
      webhook_id: record.applicationId,
      interaction_metadata: { id: record.id, type: record.type, user: user ? userJson(user) : null },
    };
  }

  return {
    /** A new app's key pair (or the given secret key's); answers its public key (hex), the developer portal's "Public Key". */
    addApp(clientId: string, secretKey: Uint8Array = ed25519.utils.randomSecretKey()): string {
      const publicKey = hex(ed25519.getPublicKey(secretKey));
      apps.set(clientId, { clientId, secretKey, publicKey, endpoint: null });
      return publicKey;
    },
    publicKeyOf: (clientId?: string) => appOrThrow(clientId).publicKey,

    /**
     * Sets the app's Interactions Endpoint URL, as saving it in the developer portal does: Discord sends a PING signed
     * with the app's key (it must get 200 `{"type":1}`) and one with a bad signature (it must get 401); else it refuses.
     */
    async setEndpoint(clientId: string | undefined, url: string): Promise<void> {
      const app = appOrThrow(clientId);
      const candidate = { ...app, endpoint: url };
      const good = await deliver(candidate, { type: TYPES.ping });
      if (good.outcome !== "pong")
        throw new Error(`Discord refuses ${url}: the PING was answered ${good.status} ${JSON.stringify(good.response)} (${good.failure})`);
      const forged = await deliver(candidate, { type: TYPES.ping, signWith: ed25519.utils.randomSecretKey() });
      if (forged.status !== 401) throw new Error(`Discord refuses ${url}: a badly signed request was answered ${forged.status}, not 401`);
      app.endpoint = url;
    },

    /** A member uses a registered command, as Discord's client sends it; a command or option it would not offer throws. */
    async sendCommand({ clientId, guildId, userId, name, options = {} }: SendCommand): Promise<InteractionRecord> {
      const app = appOrThrow(clientId);
      const member = memberOf(guildId, userId);
      if (!member) throw new Error(`${userId} is not a member of ${guildId}: Discord offers guild commands to members only`);
      const command = (commands.get(`${app.clientId}/${guildId}`) ?? []).find((candidate) => candidate.name === name);
      if (!command) throw new Error(`/${name} is not registered in ${guildId}: Discord's client would not offer it`);
      return deliver(app, { guildId, userId, type: TYPES.command, data: commandData(command, options) });
    },

    /** Any interaction, signed (or forged, or unsigned) as asked: an old registration's command, another type, an old timestamp. */
    sendInteraction: (spec: SendInteraction) => deliver(appOrThrow(spec.clientId), spec),

    /** Sends an earlier interaction's request again, byte for byte (its signature and timestamp too): a replay. */
    async replay(interactionId: string): Promise<{ status: number | null; response: unknown }> {
      const record = records.get(interactionId);
      if (!record) throw new Error(`no interaction ${interactionId}`);
      const app = appOrThrow(record.applicationId);
      const answered = await post(app, app.endpoint!, record.body, record.timestamp, record.signature || null);
      return { status: answered.status, response: answered.response };
    },

    /** X-Signature-Ed25519 and -Timestamp for any body, by the app's key (tests that send their own requests). */
    signRequest(clientId: string | undefined, body: string, timestamp = Math.floor(Date.now() / 1000)) {
      const app = appOrThrow(clientId);
      return { signature: sign(app.secretKey, String(timestamp), body), timestamp: String(timestamp) };
    },

    interactions: () => [...records.values()],
    interaction: (id: string) => records.get(id),
    /** The interaction once the caller sees a message (an answer, or a deferral's edit), or its failure; throws after `timeoutMs`. */
    async waitForMessage(id: string, timeoutMs = 10_000): Promise<InteractionRecord> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const record = records.get(id);
        if (!record) throw new Error(`no interaction ${id}`);
        if (record.outcome !== "deferred") return record;
        if (Date.now() > until) throw new Error(`interaction ${id} is still deferred after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    guildCommands: (clientId: string | undefined, guildId: string) => [
      ...(commands.get(`${appOrThrow(clientId).clientId}/${guildId}`) ?? []),
    ],
    /** Every interaction token issued so far expires now. */
    expireTokens() {
      for (const record of records.values()) record.tokenExpiresAt = Math.min(record.tokenExpiresAt, Date.now());
    },
    clear() {
      records.clear();
      byToken.clear();
    },

    // Routes -------------------------------------------------------------------------------------------------

    /** PUT /applications/{application}/guilds/{guild}/commands (bulk overwrite). */
    putCommands(params: Record<string, string>, body: Buffer): Answer {
      const app = apps.get(params.application);
      if (!app) return apiError(404, UNKNOWN_APPLICATION);
      if (memberOf(params.guild, botUser.id) === null) return apiError(403, ERRORS.missingAccess);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch {
        return apiError(400, ERRORS.invalidJson);
      }
      const check = checkCommands(parsed);
      if (!check.ok) return apiError(400, { code: 50035, message: "Invalid Form Body", errors: check.errors });
      const key = `${app.clientId}/${params.guild}`;
      const before = commands.get(key) ?? [];
      const saved = check.commands.map((command): GuildCommand => {
        const kept = before.find((old) => old.name === command.name);
        const options = Array.isArray(command.options) ? (command.options as CommandOptionSpec[]) : undefined;
        const same =
          kept && kept.description === command.description && JSON.stringify(kept.options ?? []) === JSON.stringify(options ?? []);
        return {
          id: kept?.id ?? nextId(),
          application_id: app.clientId,
          version: same ? kept.version : nextId(),
          default_member_permissions: typeof command.default_member_permissions === "string" ? command.default_member_permissions : null,
          type: 1,
          name: command.name as string,
          description: command.description as string,
          guild_id: params.guild,
          nsfw: command.nsfw === true,
          ...(options && options.length ? { options } : {}),
        };
      });
      commands.set(key, saved);
      return json(200, saved);
    },

    /** GET /applications/{application}/guilds/{guild}/commands. */
    getCommands(params: Record<string, string>): Answer {
      const app = apps.get(params.application);
      if (!app) return apiError(404, UNKNOWN_APPLICATION);
      if (memberOf(params.guild, botUser.id) === null) return apiError(403, ERRORS.missingAccess);
      return json(200, commands.get(`${app.clientId}/${params.guild}`) ?? []);
    },

    /**
     * PATCH /webhooks/{application}/{token}/messages/{message}: the interaction's original message (`@original`). An
     * edit sent while the interaction's own answer is still on its way is applied once that answer is judged.
     */
    async editOriginal(params: Record<string, string>, contentType: string, body: Buffer): Promise<Answer> {
      await judging.get(params.token);
      const record = byToken.get(params.token);
      if (!record || record.applicationId !== params.webhook || record.tokenExpiresAt <= Date.now())
        return apiError(404, ERRORS.unknownWebhook);
      if (params.message !== "@original" && params.message !== record.id) return apiError(404, UNKNOWN_MESSAGE);
      let patch: unknown = {};
      if (contentType.toLowerCase().startsWith("application/json")) {
        try {
          patch = JSON.parse(body.toString("utf8") || "{}");
        } catch {
          return apiError(400, ERRORS.invalidJson);
        }
      }
      if (!isObject(patch))
        return apiError(400, {
          code: 50035,
          message: "Invalid Form Body",
          errors: { _errors: [{ code: "MODEL_TYPE_CONVERT", message: "Only dictionaries may be used in a ModelType" }] },
        });
      const old = record.message;
      // An edit replaces the fields it names; the ephemeral flag stays the message's own.
      const merged: Record<string, unknown> = {
        content: "content" in patch ? patch.content : (old?.content ?? ""),
        embeds: "embeds" in patch ? patch.embeds : (old?.embeds ?? []),
        components: "components" in patch ? patch.components : (old?.components ?? []),
        allowed_mentions: "allowed_mentions" in patch ? patch.allowed_mentions : old?.allowedMentions,
        flags:
          ((typeof patch.flags === "number" ? patch.flags : (old?.flags ?? 0)) & ~FLAGS.ephemeral) |
          (record.ephemeral ? FLAGS.ephemeral : 0),
      };
      const check = checkMessage(merged, FLAGS.suppressEmbeds | FLAGS.ephemeral | FLAGS.componentsV2);
      if (!check.ok) return apiError(400, check.body);
      record.message = check.message;
      record.outcome = "answered";
      record.edits.push({ at: Date.now(), body: patch });
      return json(200, messageJson(record));
    },
  };
}

export type Interactions = ReturnType<typeof createInteractions>;
