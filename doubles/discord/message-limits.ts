/**
 * A channel webhook's message body checked against Discord's limits (REAL-WORLD.md "Channel webhooks"): content
 * ≤ 2,000 characters, ≤ 10 embeds, title 256, description 4,096, ≤ 25 fields (name 256, value 1,024), footer
 * 2,048, author name 256, all embed texts together ≤ 6,000. An excess is a 400 50035 whose `errors` name the
 * field the way Discord nests them (`embeds.0.fields.3.value._errors`); a message with neither content nor
 * embeds is 50006. Characters are counted as Unicode code points (Discord's API counts Python string length).
 */

export const LIMITS = {
  content: 2000,
  embeds: 10,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  authorName: 256,
  embedTotal: 6000,
} as const;

const ALLOWED_MENTION_TYPES = ["roles", "users", "everyone"] as const;

type FieldError = { code: string; message: string };
/** Discord's nested form errors: objects keyed by field (or index), leaves `{ _errors: [...] }`. */
export type FormErrors = { [key: string]: FormErrors | FieldError[] };

export type MessageCheck =
  | { ok: true; content: string; embeds: Record<string, unknown>[]; allowedMentions: unknown }
  | { ok: false; body: { code: number; message: string; errors?: FormErrors } };

export const characters = (text: string) => [...text].length;

const maxLength = (max: number): FieldError => ({ code: "BASE_TYPE_MAX_LENGTH", message: `Must be ${max} or fewer in length.` });
const required: FieldError = { code: "BASE_TYPE_REQUIRED", message: "This field is required" };
const notString = (value: unknown): FieldError => ({
  code: "BASE_TYPE_STRING",
  message: `Could not interpret "${JSON.stringify(value)}" as string.`,
});
const notObject: FieldError = { code: "MODEL_TYPE_CONVERT", message: "Only dictionaries may be used in a ModelType" };
const notList: FieldError = { code: "BASE_TYPE_LIST", message: "Must be a list." };

function addError(errors: FormErrors, path: (string | number)[], error: FieldError) {
  let node = errors;
  for (const key of path.map(String)) node = (node[key] ??= {}) as FormErrors;
  ((node._errors ??= []) as FieldError[]).push(error);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Checks a text field; returns its length in characters (0 when absent or refused). */
function text(errors: FormErrors, path: (string | number)[], value: unknown, max: number, { isRequired = false } = {}): number {
  if (value === undefined || value === null || value === "") {
    if (isRequired) addError(errors, path, required);
    return 0;
  }
  if (typeof value !== "string") {
    addError(errors, path, notString(value));
    return 0;
  }
  const length = characters(value);
  if (length > max) addError(errors, path, maxLength(max));
  return length;
}

/** Checks one embed; returns the characters it adds to the 6,000 total. */
function checkEmbed(errors: FormErrors, index: number, embed: unknown): number {
  const at = (...path: (string | number)[]) => ["embeds", index, ...path];
  if (!isObject(embed)) {
    addError(errors, at(), notObject);
    return 0;
  }
  let total = text(errors, at("title"), embed.title, LIMITS.title) + text(errors, at("description"), embed.description, LIMITS.description);
  if (embed.footer !== undefined && embed.footer !== null) {
    if (isObject(embed.footer)) total += text(errors, at("footer", "text"), embed.footer.text, LIMITS.footer, { isRequired: true });
    else addError(errors, at("footer"), notObject);
  }
  if (embed.author !== undefined && embed.author !== null) {
    if (isObject(embed.author)) total += text(errors, at("author", "name"), embed.author.name, LIMITS.authorName, { isRequired: true });
    else addError(errors, at("author"), notObject);
  }
  if (embed.fields !== undefined && embed.fields !== null) {
    if (!Array.isArray(embed.fields)) addError(errors, at("fields"), notList);
    else {
      if (embed.fields.length > LIMITS.fields) addError(errors, at("fields"), maxLength(LIMITS.fields));
      embed.fields.forEach((field: unknown, i) => {
        if (!isObject(field)) return addError(errors, at("fields", i), notObject);
        total += text(errors, at("fields", i, "name"), field.name, LIMITS.fieldName, { isRequired: true });
        total += text(errors, at("fields", i, "value"), field.value, LIMITS.fieldValue, { isRequired: true });
      });
    }
  }
  return total;
}

function checkAllowedMentions(errors: FormErrors, value: unknown) {
  if (value === undefined || value === null) return;
  if (!isObject(value)) return addError(errors, ["allowed_mentions"], notObject);
  if (value.parse === undefined) return;
  if (!Array.isArray(value.parse)) return addError(errors, ["allowed_mentions", "parse"], notList);
  value.parse.forEach((type: unknown, i) => {
    if (!ALLOWED_MENTION_TYPES.includes(type as (typeof ALLOWED_MENTION_TYPES)[number])) {
      addError(errors, ["allowed_mentions", "parse", i], {
        code: "BASE_TYPE_CHOICES",
        message: `Value must be one of {'roles', 'users', 'everyone'}.`,
      });
    }
  });
}

export function checkWebhookMessage(body: unknown): MessageCheck {
  const errors: FormErrors = {};
  const message = isObject(body) ? body : {};
  text(errors, ["content"], message.content, LIMITS.content);
  let embeds: unknown[] = [];
  if (message.embeds !== undefined && message.embeds !== null) {
    if (!Array.isArray(message.embeds)) addError(errors, ["embeds"], notList);
    else {
      embeds = message.embeds;
      if (embeds.length > LIMITS.embeds) addError(errors, ["embeds"], maxLength(LIMITS.embeds));
      const total = embeds.reduce<number>((sum, embed, i) => sum + checkEmbed(errors, i, embed), 0);
      if (total > LIMITS.embedTotal) {
        addError(errors, ["embeds"], {
          code: "MAX_EMBED_SIZE_EXCEEDED",
          message: `Embed size exceeds maximum size of ${LIMITS.embedTotal}`,
        });
      }
    }
  }
  checkAllowedMentions(errors, message.allowed_mentions);
  if (Object.keys(errors).length > 0) return { ok: false, body: { code: 50035, message: "Invalid Form Body", errors } };
  const content = typeof message.content === "string" ? message.content : "";
  if (content.trim() === "" && embeds.length === 0) return { ok: false, body: { code: 50006, message: "Cannot send an empty message" } };
  return { ok: true, content, embeds: embeds as Record<string, unknown>[], allowedMentions: message.allowed_mentions };
}

export type Mentions = { everyone: boolean; users: string[]; roles: string[] };

/**
 * Whom the message would ping: Discord parses @everyone/@here, <@id>/<@!id> and <@&id> in `content`; without
 * `allowed_mentions` all of them ping, with it only the types in `parse` (or the ids listed in `users`/`roles`).
 */
export function mentionsOf(content: string, allowedMentions: unknown): Mentions {
  const everyone = /@(everyone|here)\b/.test(content);
  const users = [...content.matchAll(/<@!?(\d{17,19})>/g)].map((m) => m[1]);
  const roles = [...content.matchAll(/<@&(\d{17,19})>/g)].map((m) => m[1]);
  if (!isObject(allowedMentions)) return { everyone, users, roles };
  const parse = Array.isArray(allowedMentions.parse) ? (allowedMentions.parse as string[]) : [];
  const listed = (key: "users" | "roles") => (Array.isArray(allowedMentions[key]) ? (allowedMentions[key] as string[]) : []);
  return {
    everyone: everyone && parse.includes("everyone"),
    users: users.filter((id) => parse.includes("users") || listed("users").includes(id)),
    roles: roles.filter((id) => parse.includes("roles") || listed("roles").includes(id)),
  };
}
