import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { z } from "zod";
import { setClock } from "./clock.ts";
import {
  addPointsSchema,
  addressSchema,
  createGiveawaySchema,
  createProposalSchema,
  DEFAULT_ADJUSTMENT_DESCRIPTION,
  firstIssue,
  MAX_POINTS,
  MESSAGES,
  TITLE_MAX,
} from "./validation.ts";

const ADDRESS = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";
const NOW = new Date("2030-06-01T12:00:00.000Z");
const inMs = (ms: number) => new Date(NOW.getTime() + ms);
const DAY = 86_400_000;

let restoreClock: () => void;
beforeEach(() => {
  restoreClock = setClock(() => NOW);
});
afterEach(() => restoreClock());

/** The message a person would see for `input`, or null when it passes. */
function shown<S extends z.ZodType>(schema: S, input: unknown): string | null {
  const result = schema.safeParse(input);
  return result.success ? null : firstIssue(result.error);
}

function messages<S extends z.ZodType>(schema: S, input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
}

describe("the spec's texts", () => {
  it("are the exact strings of product-spec section 5", () => {
    expect(MESSAGES.missingFields).toBe("Please fill out all required fields");
    expect(MESSAGES.positivePoints).toBe("Please enter a positive number of points");
    expect(MESSAGES.needMoreOptions).toBe("Multiple choice proposals require at least two options");
    expect(MESSAGES.startInFuture).toBe("Start date must be in the future");
    expect(MESSAGES.endAfterStart).toBe("End date must be after start date");
    expect(DEFAULT_ADJUSTMENT_DESCRIPTION).toBe("Manual adjustment by admin");
  });
});

describe("addressSchema", () => {
  it("accepts a Dogecoin address (trimmed) and refuses anything else", () => {
    expect(addressSchema.parse(`  ${ADDRESS} `)).toBe(ADDRESS);
    expect(shown(addressSchema, "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")).toBe("Invalid Dogecoin address");
    expect(shown(addressSchema, `${ADDRESS.slice(0, -1)}M`)).toBe("Invalid Dogecoin address");
    expect(shown(addressSchema, 42)).toBe("Invalid Dogecoin address");
  });
});

describe("addPointsSchema", () => {
  it("defaults the description to 'Manual adjustment by admin' when absent or blank", () => {
    expect(addPointsSchema.parse({ address: ADDRESS, amount: 10 }).description).toBe("Manual adjustment by admin");
    expect(addPointsSchema.parse({ address: ADDRESS, amount: 10, description: "" }).description).toBe("Manual adjustment by admin");
    expect(addPointsSchema.parse({ address: ADDRESS, amount: 10, description: "   " }).description).toBe("Manual adjustment by admin");
    expect(addPointsSchema.parse({ address: ADDRESS, amount: 10, description: " Bonus " }).description).toBe("Bonus");
  });

  it("coerces form text to a number", () => {
    expect(addPointsSchema.parse({ address: ADDRESS, amount: "250" }).amount).toBe(250);
  });

  it.each([0, -1, "0", "-5", "", "abc", Number.NaN, Number.POSITIVE_INFINITY])(
    "refuses the amount %j with 'Please enter a positive number of points'",
    (amount) => {
      expect(shown(addPointsSchema, { address: ADDRESS, amount })).toBe(MESSAGES.positivePoints);
    },
  );

  it("accepts up to two decimals, including ones binary floating point cannot hold exactly", () => {
    for (const amount of [0.01, 0.29, 1.1, 1.15, 4.35, 123_456_789.15, "0.29"]) {
      expect(shown(addPointsSchema, { address: ADDRESS, amount }), `amount ${amount}`).toBeNull();
    }
    expect(shown(addPointsSchema, { address: ADDRESS, amount: 2.675 })).toBe("Amount can have at most 2 decimals");
    expect(shown(addPointsSchema, { address: ADDRESS, amount: 0.001 })).toBe("Amount can have at most 2 decimals");
  });

  it("caps the amount", () => {
    expect(shown(addPointsSchema, { address: ADDRESS, amount: MAX_POINTS })).toBeNull();
    expect(shown(addPointsSchema, { address: ADDRESS, amount: MAX_POINTS + 1 })).toMatch(/at most/);
  });

  it("refuses a missing or invalid address", () => {
    expect(shown(addPointsSchema, { amount: 5 })).toBe("Invalid Dogecoin address");
    expect(shown(addPointsSchema, { address: "nope", amount: 5 })).toBe("Invalid Dogecoin address");
  });
});

describe("createGiveawaySchema", () => {
  const valid = { title: "Ghost pack", description: "Win it", imageUrl: "/uploads/a.png", endDate: inMs(DAY).toISOString() };

  it("defaults the points cost to 100 and trims texts", () => {
    const parsed = createGiveawaySchema.parse({ ...valid, title: "  Ghost pack  " });
    expect(parsed.pointsCost).toBe(100);
    expect(parsed.title).toBe("Ghost pack");
    expect(parsed.endDate).toEqual(inMs(DAY));
  });

  it.each(["title", "description", "imageUrl", "endDate"])("refuses a missing %s with 'Please fill out all required fields'", (field) => {
    expect(shown(createGiveawaySchema, { ...valid, [field]: undefined })).toBe(MESSAGES.missingFields);
  });

  it.each(["title", "description", "imageUrl"])("refuses a blank %s", (field) => {
    expect(shown(createGiveawaySchema, { ...valid, [field]: "   " })).toBe(MESSAGES.missingFields);
  });

  it("refuses an unparseable end date as missing", () => {
    expect(shown(createGiveawaySchema, { ...valid, endDate: "" })).toBe(MESSAGES.missingFields);
    expect(shown(createGiveawaySchema, { ...valid, endDate: "next week" })).toBe(MESSAGES.missingFields);
  });

  it("requires points cost to be a whole number ≥ 1", () => {
    expect(createGiveawaySchema.parse({ ...valid, pointsCost: "1" }).pointsCost).toBe(1);
    expect(shown(createGiveawaySchema, { ...valid, pointsCost: 0 })).toBe("Points cost must be at least 1");
    expect(shown(createGiveawaySchema, { ...valid, pointsCost: 2.5 })).toBe("Points cost must be a whole number");
  });

  it("requires the end date to be in the future by the app clock", () => {
    expect(shown(createGiveawaySchema, { ...valid, endDate: NOW.toISOString() })).toBe(MESSAGES.endInFuture);
    expect(shown(createGiveawaySchema, { ...valid, endDate: inMs(1).toISOString() })).toBeNull();
  });

  it("limits the title to 200 characters", () => {
    expect(shown(createGiveawaySchema, { ...valid, title: "t".repeat(TITLE_MAX) })).toBeNull();
    expect(shown(createGiveawaySchema, { ...valid, title: "t".repeat(TITLE_MAX + 1) })).toBe("Title must be at most 200 characters");
  });
});

describe("createProposalSchema", () => {
  const valid = {
    title: "Next collection?",
    description: "Vote",
    startDate: inMs(DAY).toISOString(),
    endDate: inMs(3 * DAY).toISOString(),
    voteType: "multiple_choice",
    options: ["Ghosts", "Ghouls"],
  };

  it("gives yes_no proposals Yes and No, ignoring any options sent", () => {
    expect(createProposalSchema.parse({ ...valid, voteType: "yes_no", options: undefined }).options).toEqual(["Yes", "No"]);
    expect(createProposalSchema.parse({ ...valid, voteType: "yes_no", options: ["A"] }).options).toEqual(["Yes", "No"]);
  });

  it("trims multiple-choice options and drops blank ones", () => {
    expect(createProposalSchema.parse({ ...valid, options: ["  Ghosts ", "", "  ", "Ghouls\n"] }).options).toEqual(["Ghosts", "Ghouls"]);
  });

  it("requires at least two non-blank options for multiple choice", () => {
    expect(shown(createProposalSchema, { ...valid, options: ["Only one", "   ", ""] })).toBe(MESSAGES.needMoreOptions);
    expect(shown(createProposalSchema, { ...valid, options: [] })).toBe(MESSAGES.needMoreOptions);
    expect(shown(createProposalSchema, { ...valid, options: undefined })).toBe(MESSAGES.needMoreOptions);
  });

  it.each(["title", "description", "startDate", "endDate"])("refuses a missing %s", (field) => {
    expect(shown(createProposalSchema, { ...valid, [field]: undefined })).toBe(MESSAGES.missingFields);
  });

  it("refuses an unknown vote type", () => {
    expect(shown(createProposalSchema, { ...valid, voteType: "ranked" })).not.toBeNull();
  });

  it("requires the start not to be in the past (now is allowed)", () => {
    expect(shown(createProposalSchema, { ...valid, startDate: inMs(-1).toISOString() })).toBe(MESSAGES.startInFuture);
    expect(shown(createProposalSchema, { ...valid, startDate: NOW.toISOString() })).toBeNull();
  });

  it("requires the end after the start", () => {
    expect(shown(createProposalSchema, { ...valid, endDate: valid.startDate })).toBe(MESSAGES.endAfterStart);
    expect(shown(createProposalSchema, { ...valid, endDate: inMs(DAY - 1).toISOString() })).toBe(MESSAGES.endAfterStart);
    expect(shown(createProposalSchema, { ...valid, endDate: inMs(DAY + 1).toISOString() })).toBeNull();
  });

  it("reports every broken rule at once", () => {
    expect(
      messages(createProposalSchema, {
        ...valid,
        options: ["x"],
        startDate: inMs(-DAY).toISOString(),
        endDate: inMs(-2 * DAY).toISOString(),
      }).sort(),
    ).toEqual([MESSAGES.endAfterStart, MESSAGES.needMoreOptions, MESSAGES.startInFuture].sort());
  });

  it("follows the app clock, not the machine's", () => {
    const restore = setClock(() => inMs(2 * DAY));
    try {
      expect(shown(createProposalSchema, valid)).toBe(MESSAGES.startInFuture);
    } finally {
      restore();
    }
    expect(shown(createProposalSchema, valid)).toBeNull();
  });
});
