import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { Progress } from "./Progress.tsx";

describe("Progress", () => {
  it("draws a bar with done/total and a percentage", () => {
    const { lastFrame, rerender } = render(<Progress label="Importing" done={0} total={1883} width={10} />);
    expect(lastFrame()).toBe("Importing ░░░░░░░░░░ 0/1,883 (0%)");
    rerender(<Progress label="Importing" done={1000} total={1883} width={10} />);
    expect(lastFrame()).toBe("Importing █████░░░░░ 1,000/1,883 (53%)");
    rerender(<Progress label="Importing" done={1883} total={1883} width={10} />);
    expect(lastFrame()).toBe("Importing ██████████ 1,883/1,883 (100%)");
  });

  it("shows a spinner and a count when the total is unknown", () => {
    const { lastFrame } = render(<Progress label="Items checked" done={42} />);
    expect(lastFrame()).toMatch(/^\S Items checked 42$/);
  });
});
