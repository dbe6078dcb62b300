import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { markQuotedFrames, stackWithQuotedFramesMarked } from "./quoted-stack.ts";

const frameLines = (stack: string) => stack.split("\n").filter((line) => /^\s*at /.test(line));

describe("a failure quoting another process's stack", () => {
  it("keeps the quoted frames as text and the real frames as frames", () => {
    const message = "spooks-admin exited 1: Error: boom\n    at main (/app/node_modules/tsx/dist/register.cjs:1:2)";
    const stack = stackWithQuotedFramesMarked(`Error: ${message}\n    at Object.<anonymous> (/app/tests/a.test.ts:3:4)`, message);
    expect(stack).toContain("    │ at main (/app/node_modules/tsx/dist/register.cjs:1:2)");
    expect(frameLines(stack)).toEqual(["    at Object.<anonymous> (/app/tests/a.test.ts:3:4)"]);
  });

  it("is how every stack of a test process is written (each-file.ts), a child's failure included", () => {
    const failing = "console.error(new Error('boom').stack); process.exit(1)";
    let caught: Error | undefined;
    try {
      execFileSync(process.execPath, ["-e", failing], { encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      caught = error as Error;
    }
    expect(caught?.message).toMatch(/\n\s+at /);
    expect(caught?.stack).toMatch(/│ at /);
    expect(frameLines(caught?.stack ?? "").every((line) => !line.includes("[eval]"))).toBe(true);
  });

  it("leaves a message without frame-like lines alone", () => {
    expect(markQuotedFrames("expected 1 to be 0")).toBe("expected 1 to be 0");
  });
});
