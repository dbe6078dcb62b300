import { afterEach, beforeEach, vi, type MockInstance } from "vitest";
import { markQuotedFramesInEveryStack } from "./quoted-stack.ts";

// An unexpected console.error fails the test that caused it (tests that expect one mock it first).
let errorSpy: MockInstance<typeof console.error> | undefined;
beforeEach(() => {
  errorSpy = vi.spyOn(console, "error");
});
afterEach(() => {
  const calls = errorSpy?.mock.calls ?? [];
  const isMocked = errorSpy && errorSpy.getMockImplementation() !== undefined;
  errorSpy?.mockRestore();
  if (calls.length > 0 && !isMocked) {
    throw new Error(`console.error was called: ${calls.map((args: unknown[]) => args.map(String).join(" ")).join("\n")}`);
  }
});

// A failure quoting a child process's stack is reported with that stack as text (quoted-stack.ts says why).
markQuotedFramesInEveryStack();
