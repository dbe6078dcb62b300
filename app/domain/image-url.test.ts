import { describe, expect, it } from "vitest";
import { isGiveawayImageUrl } from "./image-url.ts";

describe("isGiveawayImageUrl", () => {
  it.each(["/uploads/2f1c9a4e-7b1d-4c1e-9d3a-5e8f6a7b9c0d.png", "https://images.example/a.png", "https://cdn.example:8443/x/y.webp?v=2"])(
    "accepts %s",
    (value) => expect(isGiveawayImageUrl(value)).toBe(true),
  );

  it.each([
    "http://images.example/a.png",
    "/\\evil.example/a.png",
    "\\\\evil.example\\a.png",
    "https:\\\\evil.example/a.png",
    "https://evil.example\\@images.example/a.png",
    "//evil.example/a.png",
    "/uploads/../secret",
    "/uploads/a/b.png",
    "/admin",
    "/uploads/",
    "javascript:alert(1)",
    "data:image/png;base64,AAAA",
    "https://user:pass@images.example/a.png",
    "https:///a.png",
    "https://images.example/a b.png",
    "https://images.example/a.png\n",
    `https://images.example/${"a".repeat(2000)}`,
  ])("refuses %s", (value) => expect(isGiveawayImageUrl(value)).toBe(false));
});
