import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { StatusLine } from "./StatusLine.tsx";

describe("StatusLine", () => {
  it("prefixes the text with the status symbol", () => {
    expect(render(<StatusLine status="success">Points added</StatusLine>).lastFrame()).toBe("✔ Points added");
    expect(render(<StatusLine status="error">Refused</StatusLine>).lastFrame()).toBe("✖ Refused");
    expect(render(<StatusLine status="warning">Careful</StatusLine>).lastFrame()).toBe("⚠ Careful");
    expect(render(<StatusLine status="info">Note</StatusLine>).lastFrame()).toBe("ℹ Note");
  });
});
