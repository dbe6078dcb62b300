import { describe, expect, it } from "vitest";
import {
  clip,
  COMMAND_REGISTRATIONS,
  EMBED_LIMITS,
  fitEmbed,
  giveawaysAnswer,
  leaderboardAnswer,
  linesWithin,
  linkAnswer,
  linkFirstAnswer,
  parseCommand,
  pointsAnswer,
  stakeAnswer,
  verifyAnswer,
  type CommandAnswer,
} from "./discord-commands.ts";

const SITE = "https://spooks.example";
const ADDRESS = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";
const points = (text: string | undefined) => [...(text ?? "")].length;

/** Every limit of REAL-WORLD.md "Channel webhooks", as the double checks them. */
function expectWithinLimits({ message }: CommandAnswer) {
  expect(message.embeds.length).toBeGreaterThan(0);
  expect(message.embeds.length).toBeLessThanOrEqual(10);
  for (const embed of message.embeds) {
    expect(points(embed.title)).toBeLessThanOrEqual(EMBED_LIMITS.title);
    expect(points(embed.description)).toBeLessThanOrEqual(EMBED_LIMITS.description);
    expect(embed.fields?.length ?? 0).toBeLessThanOrEqual(EMBED_LIMITS.fields);
    let total = points(embed.title) + points(embed.description) + points(embed.footer?.text);
    for (const field of embed.fields ?? []) {
      expect(points(field.name)).toBeGreaterThan(0);
      expect(points(field.name)).toBeLessThanOrEqual(EMBED_LIMITS.fieldName);
      expect(points(field.value)).toBeGreaterThan(0);
      expect(points(field.value)).toBeLessThanOrEqual(EMBED_LIMITS.fieldValue);
      total += points(field.name) + points(field.value);
    }
    expect(total).toBeLessThanOrEqual(EMBED_LIMITS.total);
  }
  expect(message.allowed_mentions).toEqual({ parse: [] });
}

describe("the commands registered", () => {
  it("are the six of the issue, named and described within Discord's rules", () => {
    expect(COMMAND_REGISTRATIONS.map((command) => command.name)).toEqual(["points", "stake", "giveaways", "leaderboard", "verify", "link"]);
    for (const command of COMMAND_REGISTRATIONS) {
      expect(command.name).toMatch(/^[-_'\p{L}\p{N}]{1,32}$/u);
      expect(points(command.description)).toBeGreaterThanOrEqual(1);
      expect(points(command.description)).toBeLessThanOrEqual(100);
      for (const option of command.options) expect(points(option.description)).toBeLessThanOrEqual(100);
    }
    expect(COMMAND_REGISTRATIONS.find((command) => command.name === "verify")!.options).toEqual([
      expect.objectContaining({ name: "giveaway", type: 4, required: true }),
    ]);
  });
});

describe("parseCommand", () => {
  it("reads the options each command registered", () => {
    expect(parseCommand(SITE, { name: "points", options: [{ name: "wallet", type: 3, value: ` ${ADDRESS} ` }] })).toEqual({
      ok: true,
      name: "points",
      options: { wallet: ADDRESS },
    });
    expect(parseCommand(SITE, { name: "verify", options: [{ name: "giveaway", type: 4, value: 7 }] })).toEqual({
      ok: true,
      name: "verify",
      options: { giveaway: 7 },
    });
    expect(parseCommand(SITE, { name: "leaderboard" })).toEqual({ ok: true, name: "leaderboard", options: {} });
  });

  it.each([
    [{ name: "balance" }, "Unknown command", "Spooks has no command /balance"],
    [
      { name: "stake", options: [{ name: "wallet", type: 3, value: ADDRESS }] },
      "Unknown option",
      "/stake has no option `wallet`: it takes none.",
    ],
    [{ name: "points", options: [{ name: "address", type: 3, value: ADDRESS }] }, "Unknown option", "it takes `wallet`"],
    [
      { name: "points", options: [{ name: "wallet", type: 3, value: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7M" }] },
      "Not a Dogecoin address",
      "is not a Dogecoin address",
    ],
    [
      { name: "points", options: [{ name: "wallet", type: 3, value: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq" }] },
      "Not a Dogecoin address",
      "bc1q",
    ],
    [{ name: "verify", options: [{ name: "giveaway", type: 3, value: "seven" }] }, "Not a giveaway number", "a whole number from 1"],
    [{ name: "verify", options: [{ name: "giveaway", type: 4, value: 1.5 }] }, "Not a giveaway number", "a whole number from 1"],
    [{ name: "verify" }, "Missing option", "/verify needs `giveaway`"],
  ])("refuses %j to the caller alone, saying what was wrong", (data, title, words) => {
    const parsed = parseCommand(SITE, data);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.answer.ephemeral).toBe(true);
    expect(parsed.answer.message.flags).toBe(64);
    expect(parsed.answer.message.embeds[0].title).toBe(title);
    expect(parsed.answer.message.embeds[0].url).toMatch(new RegExp(`^${SITE}/`));
    expect(parsed.answer.message.embeds[0].description).toContain(words);
    expectWithinLimits(parsed.answer);
  });
});

describe("fitEmbed and the limits", () => {
  it("clips every text and drops fields until the whole embed is within 6,000 characters", () => {
    const fitted = fitEmbed({
      title: "🎃".repeat(300),
      description: "d".repeat(5000),
      footer: { text: "f".repeat(3000) },
      fields: Array.from({ length: 30 }, (_, i) => ({ name: `n${i}`.repeat(200), value: "v".repeat(2000) })),
    });
    expect(points(fitted.title)).toBe(256);
    expect(fitted.title!.endsWith("…")).toBe(true);
    expectWithinLimits({ ephemeral: false, message: { embeds: [fitted], allowed_mentions: { parse: [] } } });
  });

  it("clip counts code points, as Discord does", () => {
    expect(clip("🎃🎃🎃", 3)).toBe("🎃🎃🎃");
    expect(clip("🎃🎃🎃🎃", 3)).toBe("🎃🎃…");
  });

  it("linesWithin keeps the lines that fit and says how many were left out", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `${i + 1}. \`${ADDRESS}\``);
    const text = linesWithin(lines, 1024, (left) => `…and ${left} more on the site`);
    expect(points(text)).toBeLessThanOrEqual(1024);
    const kept = text.split("\n");
    expect(kept.at(-1)).toBe(`…and ${100 - (kept.length - 1)} more on the site`);
    expect(kept.slice(0, -1)).toEqual(lines.slice(0, kept.length - 1));
    expect(linesWithin(lines.slice(0, 3), 1024, () => "never")).toBe(lines.slice(0, 3).join("\n"));
  });
});

describe("the answers", () => {
  it("/points: whole and exact balance, the boosted rate beside the base, the hour under way, the rank", () => {
    const creditedAt = new Date("2030-01-01T13:00:00Z");
    const answer = pointsAnswer(
      SITE,
      {
        address: ADDRESS,
        points: 1234.5,
        baseDailyRate: 48,
        tier: 2,
        stakedCount: 4,
        boostedPerDay: 57.6,
        rank: 3,
        currentHour: { creditedAt, stakedCount: 4, points: 2.4 },
      },
      true,
    );
    expect(answer.ephemeral).toBe(true);
    const [embed] = answer.message.embeds;
    expect(embed.url).toBe(`${SITE}/rewards/history`);
    expect(embed.description).toBe("**1,234** Spook Points (exactly 1,234.50)");
    const field = (name: string) => embed.fields!.find((candidate) => candidate.name === name)!.value;
    expect(field("Daily rate")).toContain("**+57.60** a day with boosts (120% of the base)");
    expect(field("Daily rate")).toContain("Base +48 a day: 4 items staked, tier 2");
    expect(field("This hour")).toBe(
      `+2.40 at <t:${creditedAt.getTime() / 1000}:t> (<t:${creditedAt.getTime() / 1000}:R>), for 4 items staked all hour`,
    );
    expect(field("Rank")).toBe("#3");
    expectWithinLimits(answer);
  });

  it("/stake: by collection, the tenure steps reached and the next one", () => {
    const at = new Date("2030-01-08T12:00:00Z");
    const item = (name: string, collection: "spooks" | "spook-society", tenureDays: number | null, next: Date | null) => ({
      name,
      collection,
      isStaked: true,
      tenurePercent: tenureDays === null ? 100 : 110,
      tenureDays,
      nextStep: next ? { at: next, percent: next === at ? 110 : 120, days: next === at ? 7 : 30 } : null,
    });
    const answer = stakeAnswer(
      SITE,
      ADDRESS,
      [
        item("Spooks #1", "spooks", 7, new Date("2030-02-01T12:00:00Z")),
        item("Spooks #2", "spooks", null, at),
        { ...item("Spooks #3", "spooks", null, null), isStaked: false },
        item("Spook Society #9", "spook-society", null, at),
      ],
      [
        { days: 7, percent: 110 },
        { days: 30, percent: 120 },
      ],
    );
    const [embed] = answer.message.embeds;
    const field = (name: string) => embed.fields!.find((candidate) => candidate.name === name)!.value;
    expect(embed.description).toBe(`3 items staked of 4 held by \`${ADDRESS}\`.`);
    expect(field("Spooks")).toBe("2 staked of 3 held");
    expect(field("Spook Society")).toBe("1 staked of 1 held");
    expect(field("Tenure")).toBe("1 item at 7 days (110%)\n2 items before the first step (100%)");
    expect(field("Next step")).toBe(`Spooks #2 (with 1 other item) reaches 7 days (110%) <t:${at.getTime() / 1000}:R>`);
    expect(field("Tenure steps")).toContain("7 days: 110% · 30 days: 120%");
    expectWithinLimits(answer);
  });

  it("/giveaways: 30 open giveaways with titles of 10,000 characters stay within the limits, and say how many are left out", () => {
    const open = Array.from({ length: 30 }, (_, i) => ({
      id: i + 1,
      title: "🎃".repeat(10_000),
      pointsCost: 1_000_000,
      entriesCount: 1_000_000,
      ticketsCount: 100_000_000,
      endDate: new Date(Date.UTC(2030, 0, 30 - i)),
    }));
    const answer = giveawaysAnswer(SITE, open);
    expect(answer.ephemeral).toBe(false);
    expect(answer.message.flags).toBeUndefined();
    const [embed] = answer.message.embeds;
    expect(embed.fields).toHaveLength(25);
    expect(embed.fields![0].name.startsWith("#30 ")).toBe(true); // the one ending soonest first
    expect(embed.description).toContain("the other 5 are on the site");
    expectWithinLimits(answer);
    expect(giveawaysAnswer(SITE, []).message.embeds[0].description).toBe("No giveaway is open right now.");
  });

  it("/leaderboard and /verify: public, linked to the site, within the limits with 100 winners", () => {
    const board = leaderboardAnswer(SITE, [{ address: ADDRESS, rewards: 15230.5 }]);
    expect(board.ephemeral).toBe(false);
    expect(board.message.embeds[0].description).toBe(`**1.** \`${ADDRESS}\` 15,230 points`);
    const verify = verifyAnswer(SITE, {
      id: 7,
      title: "Golden Spook",
      version: 2,
      status: "drawn",
      commitment: "c".repeat(64),
      seed: "s".repeat(64),
      blockHeight: 5_412_345,
      blockHash: "h".repeat(64),
      winners: 100,
      winnerAddresses: Array.from({ length: 100 }, () => ADDRESS),
      entries: [{ address: ADDRESS, tickets: 3 }],
    });
    expect(verify.message.embeds[0].url).toBe(`${SITE}/giveaways/7/verify`);
    expect(verify.message.components![0].components[0]).toEqual({
      type: 2,
      style: 5,
      label: "Verify this draw",
      url: `${SITE}/giveaways/7/verify`,
    });
    expect(verify.message.embeds[0].fields!.find((field) => field.name === "Winners")!.value).toMatch(/…and \d+ more on the site$/);
    expectWithinLimits(verify);
  });

  it("/link and the answer to a caller without a wallet: ephemeral, with the button to /discord/link", () => {
    for (const answer of [linkAnswer(SITE, null), linkAnswer(SITE, ADDRESS), linkFirstAnswer(SITE, "stake")]) {
      expect(answer.ephemeral).toBe(true);
      expect(answer.message.components![0].components[0]).toMatchObject({ type: 2, style: 5, url: `${SITE}/discord/link` });
      expectWithinLimits(answer);
    }
    expect(linkAnswer(SITE, ADDRESS).message.embeds[0].description).toContain(ADDRESS);
  });
});
