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

  it("prints no escape sequence or control character a value brought", () => {
    const { lastFrame } = render(<Details rows={[["Error", "\u001b]52;c;ZXZpbA==\u0007\u001b[1mrefused\u001b[0m\u0007"]]} />);
    expect(lastFrame()).toBe("Error: refused");
  });
});
