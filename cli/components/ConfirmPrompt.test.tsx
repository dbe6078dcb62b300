import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { ConfirmPrompt } from "./ConfirmPrompt.tsx";

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("ConfirmPrompt", () => {
  it("asks with 'no' as the default and confirms on y", async () => {
    const onAnswer = vi.fn();
    const { lastFrame, stdin } = render(<ConfirmPrompt question="Delete giveaway #3?" onAnswer={onAnswer} />);
    expect(lastFrame()).toBe("? Delete giveaway #3? y/N");
    await tick();
    stdin.write("y");
    await tick();
    expect(onAnswer).toHaveBeenCalledWith(true);
    expect(lastFrame()).toBe("? Delete giveaway #3? yes");
  });

  it("cancels on Enter and on n", async () => {
    for (const key of ["\r", "n"]) {
      const onAnswer = vi.fn();
      const { lastFrame, stdin } = render(<ConfirmPrompt question="Clear points?" onAnswer={onAnswer} />);
      await tick();
      stdin.write(key);
      await tick();
      expect(onAnswer).toHaveBeenCalledWith(false);
      expect(lastFrame()).toBe("? Clear points? no");
    }
  });
});
