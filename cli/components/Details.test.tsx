import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { Details } from "./Details.tsx";

describe("Details", () => {
  it("lines up values after labels of different lengths", () => {
    const { lastFrame } = render(
      <Details
        rows={[
          ["ID", "7"],
          ["Title", "Spooky raffle"],
        ]}
      />,
    );
    expect(lastFrame()).toBe(["ID:    7", "Title: Spooky raffle"].join("\n"));
  });
});
