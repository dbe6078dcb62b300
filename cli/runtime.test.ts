import { describe, expect, it } from "vitest";
import { describeError } from "./runtime.ts";

describe("describeError", () => {
  it("prints an error's message without the escape sequences and control characters a remote answer put in it", () => {
    const error = new Error("Discord answered 500: \u001b]0;owned\u0007\u001b[31mInternal\u001b[0m \u009b2JServer\tError\r\nagain\u0000");
    // Each line cleaned, the line breaks kept (the CLI's own refusals list their reasons a line each).
    expect(describeError(error)).toBe("Discord answered 500: Internal Server Error\nagain");
  });
});
