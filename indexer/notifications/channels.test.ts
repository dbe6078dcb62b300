/** Issue 33, item 8: links leaving the site use PUBLIC_URL, or the origin a demo is served on. */
import { describe, expect, it } from "vitest";
import { siteOrigin } from "./channels.server.ts";

describe("the site's origin for mails and channel posts", () => {
  it("is PUBLIC_URL when set, else HOST and PORT as served (0.0.0.0 read as localhost)", () => {
    expect(siteOrigin({ publicUrl: "https://spooks.example", host: "127.0.0.1", port: 3000 })).toBe("https://spooks.example");
    expect(siteOrigin({ host: "127.0.0.1", port: 3101 })).toBe("http://127.0.0.1:3101");
    expect(siteOrigin({ host: "0.0.0.0", port: 3000 })).toBe("http://localhost:3000");
    expect(siteOrigin({ host: "::1", port: 3000 })).toBe("http://[::1]:3000");
  });
});
