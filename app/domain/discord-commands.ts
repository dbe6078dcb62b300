/**
 * Slash commands (issue 37; docs/discord.md "Slash commands"): the commands registered with Discord, how an
 * interaction's command and options are read, and the answers holders see, built from the same figures the
 * site's API answers. Pure: the server (app/utils/discord-interactions.server.ts) fetches the figures and
 * sends what these functions build. Every message is embeds within Discord's limits (REAL-WORLD.md "Channel
 * webhooks"), mentions nobody, and links to the site's page; personal answers are ephemeral (flags 64).
 */
import {
  ApplicationCommandOptionType,
  ButtonStyle,
  ComponentType,
  MessageFlags,
  type APIActionRowComponent,
  type APIApplicationCommandOption,
  type APIButtonComponentWithURL,
  type APIEmbed,
  type APIEmbedField,
} from "discord-api-types/v10";
import { isDogecoinAddress } from "./address.ts";
import { COLLECTIONS, type CollectionKey } from "./collections.ts";
import { formatNumber, formatPoints, formatPointsExact } from "./format.ts";

/** How long an interaction id is remembered (it is answered once): well past the 5 minutes its signature is good for. */
export const INTERACTION_RETENTION_MS = 60 * 60 * 1000;
/** Discord's signed timestamps older (or further ahead) than this are refused: its own rule for replays. */
export const INTERACTION_MAX_AGE_S = 5 * 60;
/** How many wallets /leaderboard lists. */
export const LEADERBOARD_SIZE = 10;

// The commands --------------------------------------------------------------------------------------------

export type CommandName = "points" | "stake" | "giveaways" | "leaderboard" | "verify" | "link";

type CommandSpec = {
  name: CommandName;
  description: string;
  options: APIApplicationCommandOption[];
  /** About the caller (their wallet): answered to them alone (ephemeral), and a deferral is ephemeral too. */
  personal: boolean;
};

const SPECS: CommandSpec[] = [
  {
    name: "points",
    description: "Your Spook Points: balance, daily rate with boosts, the hour under way, rank",
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: "wallet",
        description: "Another wallet's Dogecoin address (default: the wallet linked to you)",
        required: false,
      },
    ],
    personal: true,
  },
  { name: "stake", description: "Your staked items by collection, their tenure steps and the next one", options: [], personal: true },
  { name: "giveaways", description: "The open giveaways: ticket cost, entries and when each ends", options: [], personal: false },
  { name: "leaderboard", description: `The top ${LEADERBOARD_SIZE} wallets by Spook Points`, options: [], personal: false },
  {
    name: "verify",
    description: "A giveaway's draw: commitment, block, seed, winners, and how to check it",
    options: [
      {
        type: ApplicationCommandOptionType.Integer,
        name: "giveaway",
        description: "The giveaway's number (#7 is 7)",
        required: true,
        min_value: 1,
      },
    ],
    personal: false,
  },
  { name: "link", description: "Link your wallet to your Discord account", options: [], personal: true },
];

/** The body of the bulk overwrite (PUT /applications/{id}/guilds/{guild}/commands): every command, slash type. */
export const COMMAND_REGISTRATIONS = SPECS.map(({ name, description, options }) => ({ type: 1 as const, name, description, options }));

export const COMMAND_NAMES = SPECS.map((spec) => spec.name);

export const isPersonalCommand = (name: string) => SPECS.find((spec) => spec.name === name)?.personal ?? true;

// Messages ------------------------------------------------------------------------------------------------

export type CommandMessage = {
  embeds: APIEmbed[];
  components?: APIActionRowComponent<APIButtonComponentWithURL>[];
  flags?: number;
  allowed_mentions: { parse: [] };
};

/** What a command answers: the message, and whether only the caller sees it. */
export type CommandAnswer = { ephemeral: boolean; message: CommandMessage };

const COLOR = { brand: 0x8b5cf6, refused: 0xef4444 } as const;

/** Discord's message limits (REAL-WORLD.md "Channel webhooks"), counted in code points as Discord counts them. */
export const EMBED_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  total: 6000,
} as const;

const length = (text: string | undefined) => (text === undefined ? 0 : [...text].length);

/** `text` cut to `max` code points, an ellipsis marking the cut. */
export function clip(text: string, max: number): string {
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, max - 1).join("")}…`;
}

const embedLength = (embed: APIEmbed) =>
  length(embed.title) +
  length(embed.description) +
  length(embed.footer?.text) +
  (embed.fields ?? []).reduce((sum, field) => sum + length(field.name) + length(field.value), 0);

/**
 * The embed within every limit: texts clipped, at most 25 fields, and fields dropped from the end (then the
 * description clipped) until all its texts together are within 6,000.
 */
export function fitEmbed(embed: APIEmbed): APIEmbed {
  const fitted: APIEmbed = {
    ...embed,
    ...(embed.title === undefined ? {} : { title: clip(embed.title, EMBED_LIMITS.title) }),
    ...(embed.description === undefined ? {} : { description: clip(embed.description, EMBED_LIMITS.description) }),
    ...(embed.footer ? { footer: { ...embed.footer, text: clip(embed.footer.text, EMBED_LIMITS.footer) } } : {}),
    ...(embed.fields
      ? {
          fields: embed.fields.slice(0, EMBED_LIMITS.fields).map((field) => ({
            ...field,
            name: clip(field.name, EMBED_LIMITS.fieldName),
            value: clip(field.value, EMBED_LIMITS.fieldValue),
          })),
        }
      : {}),
  };
  while (embedLength(fitted) > EMBED_LIMITS.total && fitted.fields && fitted.fields.length > 0) fitted.fields = fitted.fields.slice(0, -1);
  const over = embedLength(fitted) - EMBED_LIMITS.total;
  if (over > 0 && fitted.description) fitted.description = clip(fitted.description, Math.max(1, length(fitted.description) - over));
  return fitted;
}

function answer(ephemeral: boolean, embed: APIEmbed, buttons: { label: string; url: string }[] = []): CommandAnswer {
  return {
    ephemeral,
    message: {
      embeds: [fitEmbed({ color: COLOR.brand, ...embed })],
      ...(buttons.length > 0
        ? {
            components: [
              {
                type: ComponentType.ActionRow,
                components: buttons.map(({ label, url }) => ({ type: ComponentType.Button, style: ButtonStyle.Link, label, url })),
              },
            ],
          }
        : {}),
      ...(ephemeral ? { flags: MessageFlags.Ephemeral } : {}),
      allowed_mentions: { parse: [] },
    },
  };
}

/** As many of `lines` as fit in `max` characters, then a line saying how many were left out. */
export function linesWithin(lines: string[], max: number, more: (left: number) => string): string {
  const kept: string[] = [];
  let used = 0;
  for (const [index, line] of lines.entries()) {
    const tail = index < lines.length - 1 ? length(more(lines.length - index - 1)) + 1 : 0;
    if (used + length(line) + 1 + tail > max) {
      kept.push(more(lines.length - index));
      break;
    }
    kept.push(line);
    used += length(line) + 1;
  }
  return kept.join("\n");
}

/** A refusal of what the caller asked (bad input, nothing found): to the caller alone, saying what was wrong, linking to `url`. */
export function refusalAnswer(url: string, title: string, description: string): CommandAnswer {
  return answer(true, { title, url, description, color: COLOR.refused });
}

/** Discord renders `<t:…:R>` as a relative time ("in 3 hours") and `<t:…:f>` as a date and time, both in the reader's zone. */
export const relativeTime = (at: Date) => `<t:${Math.floor(at.getTime() / 1000)}:R>`;
export const dateTimeTag = (at: Date) => `<t:${Math.floor(at.getTime() / 1000)}:f>`;
const shortTime = (at: Date) => `<t:${Math.floor(at.getTime() / 1000)}:t>`;

const code = (text: string) => `\`${text.replaceAll("`", "'")}\``;
const plural = (count: number, one: string, many = `${one}s`) => `${formatNumber(count)} ${count === 1 ? one : many}`;

// Reading an interaction's command --------------------------------------------------------------------------

export type InteractionOption = { name: string; type: number; value?: unknown; options?: InteractionOption[] };

/** Option types as interactions carry them (plain numbers). */
const OPTION_TYPE = { string: 3, integer: 4 } as const;

export type ParsedCommand =
  { ok: true; name: CommandName; options: { wallet?: string; giveaway?: number } } | { ok: false; answer: CommandAnswer };

/** The command and its options, each checked against what was registered; anything else is a refusal saying what. */
export function parseCommand(site: string, data: { name: string; options?: InteractionOption[] }): ParsedCommand {
  const spec = SPECS.find((candidate) => candidate.name === data.name);
  if (!spec) {
    return {
      ok: false,
      answer: refusalAnswer(
        sitePages(site).staking,
        "Unknown command",
        `Spooks has no command /${clip(data.name, 40)}. Its commands: ${COMMAND_NAMES.map((name) => `/${name}`).join(", ")}.`,
      ),
    };
  }
  const options: { wallet?: string; giveaway?: number } = {};
  for (const option of data.options ?? []) {
    const known = spec.options.find((candidate) => candidate.name === option.name);
    if (!known) {
      const accepted = spec.options.map((candidate) => candidate.name);
      return {
        ok: false,
        answer: refusalAnswer(
          sitePages(site).staking,
          "Unknown option",
          `/${spec.name} has no option ${code(clip(option.name, 40))}` +
            (accepted.length ? `: it takes ${accepted.map((name) => code(name)).join(", ")}.` : ": it takes none."),
        ),
      };
    }
    const refusal = readOption(site, spec.name, option, options);
    if (refusal) return { ok: false, answer: refusal };
  }
  const missing = spec.options.find((candidate) => "required" in candidate && candidate.required && !(candidate.name in options));
  if (missing) {
    return { ok: false, answer: refusalAnswer(sitePages(site).staking, "Missing option", `/${spec.name} needs ${code(missing.name)}.`) };
  }
  return { ok: true, name: spec.name, options };
}

function readOption(
  site: string,
  command: CommandName,
  option: InteractionOption,
  into: { wallet?: string; giveaway?: number },
): CommandAnswer | null {
  if (option.name === "wallet") {
    const wallet = typeof option.value === "string" ? option.value.trim() : "";
    if (option.type !== OPTION_TYPE.string || !isDogecoinAddress(wallet)) {
      const shown = typeof option.value === "string" ? code(clip(option.value, 60)) : "That";
      return refusalAnswer(
        sitePages(site).staking,
        "Not a Dogecoin address",
        `${shown} is not a Dogecoin address (they start with D and have 34 characters).`,
      );
    }
    into.wallet = wallet;
    return null;
  }
  const number = option.value;
  if (option.type !== OPTION_TYPE.integer || typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) {
    return refusalAnswer(
      sitePages(site).giveaways,
      "Not a giveaway number",
      `/${command} needs a giveaway's number, a whole number from 1 (#7 is 7).`,
    );
  }
  into.giveaway = number;
  return null;
}

// The answers -------------------------------------------------------------------------------------------------

/** Where a holder goes on the site. */
export const sitePages = (site: string) => ({
  link: `${site}/discord/link`,
  staking: `${site}/`,
  history: `${site}/rewards/history`,
  giveaways: `${site}/rewards`,
  verify: (id: number) => `${site}/giveaways/${id}/verify`,
});

/** The caller has no wallet linked: how to link, with the button (ephemeral). */
export function linkFirstAnswer(site: string, command: CommandName): CommandAnswer {
  const hint = command === "points" ? ` Or ask about any wallet: ${code("/points wallet:D…")}.` : "";
  return answer(
    true,
    {
      title: "Link your wallet first",
      url: sitePages(site).staking,
      description:
        `/${command} answers about your wallet, and your Discord account is not linked to one. Open Spooks with your wallet ` +
        `connected and press **Link Discord** in the Discord section of the staking page, then sign once.${hint}`,
    },
    [{ label: "Link Discord", url: sitePages(site).link }],
  );
}

/** /link: how to link, and the wallet linked now if there is one (ephemeral). */
export function linkAnswer(site: string, linked: string | null): CommandAnswer {
  const description = linked
    ? `Your Discord account is linked to ${code(linked)}. To link another wallet instead, open the link with that wallet ` +
      "connected and sign: the former link ends, and your holder roles follow the new wallet within a minute."
    : "Open Spooks with your wallet connected and press **Link Discord** in the Discord section of the staking page, then sign " +
      "once. Your holder roles arrive within a minute, and /points and /stake answer about your wallet.";
  return answer(true, { title: linked ? "Your linked wallet" : "Link your wallet", url: sitePages(site).staking, description }, [
    { label: linked ? "Link another wallet" : "Link Discord", url: sitePages(site).link },
  ]);
}

/** The figures of GET /api/rewards/{address}. */
export type PointsFigures = {
  address: string;
  points: number;
  /** The tier's rate alone (N × R), what the boosts multiply. */
  baseDailyRate: number;
  tier: number;
  stakedCount: number;
  /** The rate credited: the staked items' points per day now, boosts included (the API's `dailyRate`). */
  boostedPerDay: number;
  rank: number;
  currentHour: { creditedAt: Date; stakedCount: number; points: number };
};

export function pointsAnswer(site: string, figures: PointsFigures, own: boolean): CommandAnswer {
  const boostPercent = figures.baseDailyRate > 0 ? Math.round((figures.boostedPerDay / figures.baseDailyRate) * 100) : 100;
  const rate =
    figures.stakedCount === 0
      ? "Nothing staked: stake items on the site to earn points every hour."
      : `**+${formatPointsExact(figures.boostedPerDay)}** a day with boosts (${boostPercent}% of the base)\n` +
        `Base +${formatNumber(figures.baseDailyRate)} a day: ${plural(figures.stakedCount, "item")} staked, tier ${figures.tier}`;
  const hour = figures.currentHour;
  const thisHour =
    hour.stakedCount === 0
      ? `Nothing is staked for the whole hour: items staked now earn from the next hour (${shortTime(hour.creditedAt)}).`
      : `+${formatPointsExact(hour.points)} at ${shortTime(hour.creditedAt)} (${relativeTime(hour.creditedAt)}), ` +
        `for ${plural(hour.stakedCount, "item")} staked all hour`;
  return answer(true, {
    title: own ? "Your Spook Points" : "Spook Points",
    url: sitePages(site).history,
    description: `**${formatPoints(figures.points)}** Spook Points (exactly ${formatPointsExact(figures.points)})`,
    fields: [
      { name: "Daily rate", value: rate },
      { name: "This hour", value: thisHour },
      { name: "Rank", value: figures.rank > 0 ? `#${formatNumber(figures.rank)}` : "Not ranked (no points yet)", inline: true },
      { name: "Wallet", value: code(figures.address), inline: true },
    ],
    footer: { text: "Points are added at the end of every hour." },
  });
}

/** One staked item as GET /api/wallet-doginals/{address} answers it (its boost part). */
export type StakedItem = {
  name: string;
  collection: CollectionKey;
  isStaked: boolean;
  tenurePercent: number | null;
  tenureDays: number | null;
  nextStep: { at: Date; percent: number; days: number } | null;
};

export function stakeAnswer(site: string, address: string, items: StakedItem[], steps: { days: number; percent: number }[]): CommandAnswer {
  const staked = items.filter((item) => item.isStaked);
  const fields: APIEmbedField[] = Object.values(COLLECTIONS).map(({ key, displayName }) => {
    const held = items.filter((item) => item.collection === key).length;
    const stakedHere = staked.filter((item) => item.collection === key).length;
    return { name: displayName, value: `${formatNumber(stakedHere)} staked of ${formatNumber(held)} held`, inline: true };
  });
  if (staked.length > 0) {
    fields.push({ name: "Tenure", value: tenureLines(staked, steps) });
    fields.push({ name: "Next step", value: nextStepLine(staked, steps) });
  }
  fields.push({
    name: "Tenure steps",
    value:
      steps.length === 0
        ? "None: every staked item earns 100% however long it stays."
        : steps.map((step) => `${plural(step.days, "day")}: ${step.percent}%`).join(" · ") + "\nUnstaking starts the count again.",
  });
  return answer(true, {
    title: "Your staked items",
    url: sitePages(site).staking,
    description:
      staked.length === 0
        ? `Nothing staked from ${code(address)}. Stake on the site: staked items earn points every hour.`
        : `${plural(staked.length, "item")} staked of ${formatNumber(items.length)} held by ${code(address)}.`,
    fields,
  });
}

function tenureLines(staked: StakedItem[], steps: { days: number; percent: number }[]): string {
  if (steps.length === 0) return `${plural(staked.length, "item")} at 100%: no tenure steps.`;
  const groups = new Map<number | null, number>();
  for (const item of staked) groups.set(item.tenureDays, (groups.get(item.tenureDays) ?? 0) + 1);
  return [...groups.entries()]
    .sort(([a], [b]) => (b ?? -1) - (a ?? -1))
    .map(([days, count]) => {
      const percent = steps.find((step) => step.days === days)?.percent ?? 100;
      return days === null
        ? `${plural(count, "item")} before the first step (100%)`
        : `${plural(count, "item")} at ${plural(days, "day")} (${percent}%)`;
    })
    .join("\n");
}

function nextStepLine(staked: StakedItem[], steps: { days: number; percent: number }[]): string {
  if (steps.length === 0) return "None: the schedule has no tenure steps.";
  const next = staked
    .filter((item): item is StakedItem & { nextStep: NonNullable<StakedItem["nextStep"]> } => item.nextStep !== null)
    .sort((a, b) => a.nextStep.at.getTime() - b.nextStep.at.getTime());
  if (next.length === 0) return "None left: every staked item is at the last step.";
  const [first] = next;
  const same = next.filter((item) => item.nextStep.at.getTime() === first.nextStep.at.getTime()).length;
  const others = same > 1 ? ` (with ${plural(same - 1, "other item")})` : "";
  return `${first.name}${others} reaches ${plural(first.nextStep.days, "day")} (${first.nextStep.percent}%) ${relativeTime(first.nextStep.at)}`;
}

/** An open giveaway as GET /api/giveaways answers it. */
export type OpenGiveaway = { id: number; title: string; pointsCost: number; entriesCount: number; ticketsCount: number; endDate: Date };

export function giveawaysAnswer(site: string, open: OpenGiveaway[]): CommandAnswer {
  const soonest = [...open].sort((a, b) => a.endDate.getTime() - b.endDate.getTime() || a.id - b.id);
  const shown = soonest.slice(0, EMBED_LIMITS.fields);
  const more = soonest.length - shown.length;
  return answer(false, {
    title: "Open giveaways",
    url: sitePages(site).giveaways,
    description:
      open.length === 0
        ? "No giveaway is open right now."
        : `${plural(open.length, "giveaway")} open: enter with your Spook Points on the site.` +
          (more > 0 ? ` The ${shown.length} ending soonest are below; the other ${more} are on the site.` : ""),
    fields: shown.map((giveaway) => ({
      // 25 fields of at most 100 + ~100 characters stay within the 6,000 of an embed: none is dropped.
      name: clip(`#${giveaway.id} ${giveaway.title}`, 100),
      value:
        `${plural(giveaway.pointsCost, "point")} a ticket · ${plural(giveaway.entriesCount, "entry", "entries")}, ` +
        `${plural(giveaway.ticketsCount, "ticket")} · ends ${relativeTime(giveaway.endDate)}`,
    })),
  });
}

export function leaderboardAnswer(site: string, top: { address: string; rewards: number }[]): CommandAnswer {
  return answer(false, {
    title: `Leaderboard: top ${LEADERBOARD_SIZE}`,
    url: sitePages(site).staking,
    description:
      top.length === 0
        ? "Nobody has points yet."
        : top.map((entry, index) => `**${index + 1}.** ${code(entry.address)} ${formatPoints(entry.rewards)} points`).join("\n"),
  });
}

/** A giveaway's draw as GET /api/giveaways/{id}/draw publishes it, with the giveaway's title. */
export type DrawFigures = {
  id: number;
  title: string;
  version: 1 | 2;
  status: "open" | "drawing" | "drawn";
  commitment: string;
  seed: string | null;
  blockHeight: number | null;
  blockHash: string | null;
  winners: number;
  winnerAddresses: string[];
  entries: { address: string; tickets: number }[];
};

const STATUS_TEXT: Record<DrawFigures["status"], string> = {
  open: "Entries are open: the draw is not made yet.",
  drawing: "Entries are closed: the draw waits for its block.",
  drawn: "Drawn: recompute it from the figures below, or on the site.",
};

export function verifyAnswer(site: string, draw: DrawFigures): CommandAnswer {
  const tickets = draw.entries.reduce((sum, entry) => sum + entry.tickets, 0);
  const block =
    draw.version === 1
      ? "None: a version 1 draw uses the seed alone."
      : draw.blockHeight === null
        ? "Fixed when entries close (the chain's height + 6)."
        : `#${formatNumber(draw.blockHeight)}` +
          (draw.blockHash ? `\n${code(draw.blockHash)}` : " (its hash is read once 6 blocks are on top)");
  const winners =
    draw.winnerAddresses.length === 0
      ? `Not drawn yet (${plural(draw.winners, "winner")} to draw).`
      : linesWithin(
          draw.winnerAddresses.map((address, index) => `${index + 1}. ${code(address)}`),
          EMBED_LIMITS.fieldValue,
          (left) => `…and ${formatNumber(left)} more on the site`,
        );
  const url = sitePages(site).verify(draw.id);
  return answer(
    false,
    {
      title: `Verify giveaway #${draw.id}: ${draw.title}`,
      url,
      description: STATUS_TEXT[draw.status],
      fields: [
        { name: "Commitment (SHA-256 of the seed)", value: code(draw.commitment) },
        { name: "Draw block", value: block },
        { name: "Seed", value: draw.seed ? code(draw.seed) : "Revealed once drawn." },
        { name: "Winners", value: winners },
        {
          name: "Entries",
          // Version 2 publishes one row per wallet; version 1 every entry.
          value: `${draw.version === 2 ? plural(draw.entries.length, "wallet") : plural(draw.entries.length, "entry", "entries")}, ${plural(tickets, "ticket")}`,
        },
      ],
    },
    [{ label: "Verify this draw", url }],
  );
}

/** What a caller sees when answering failed on our side (the database unreachable): never a 5xx to Discord. */
export function unavailableAnswer(site: string): CommandAnswer {
  return refusalAnswer(sitePages(site).staking, "Spooks could not answer", "Something failed on our side. Try again in a minute.");
}
