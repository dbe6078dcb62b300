import { describe, expect, it } from "vitest";
import { loadConfig } from "../utils/env.server.ts";
import { itemImageOrigins, itemImageUrl, parseItemImageUrl } from "./image-hosts.ts";

const ID = `${"ab".repeat(32)}i0`;

describe("item image URL templates (ITEM_IMAGE_URLS)", () => {
  it("puts the inscription id in for {id}", () => {
    expect(itemImageUrl("https://cdn.example/content/{id}", ID)).toBe(`https://cdn.example/content/${ID}`);
    expect(itemImageUrl("https://api.example/i/{id}/content?id={id}", ID)).toBe(`https://api.example/i/${ID}/content?id=${ID}`);
    expect(itemImageUrl("https://cdn.example/content/{id}", "a/b?c")).toBe("https://cdn.example/content/a%2Fb%3Fc");
  });

  it("accepts http(s) templates with {id} outside the host; says what is wrong otherwise", () => {
    expect(parseItemImageUrl("https://cdn.example:8443/content/{id}")).toEqual({ origin: "https://cdn.example:8443" });
    expect(parseItemImageUrl("https://cdn.example/content/")).toMatch(/must contain \{id\}/);
    expect(parseItemImageUrl("ftp://cdn.example/{id}")).toMatch(/is not an http\(s\) URL template/);
    expect(parseItemImageUrl("cdn.example/{id}")).toMatch(/is not an http\(s\) URL template/);
    expect(parseItemImageUrl("https://user:pw@cdn.example/{id}")).toMatch(/is not an http\(s\) URL template/);
    expect(parseItemImageUrl("https://{id}.cdn.example/")).toMatch(/out of the host/);
  });

  it("the CSP's origins: each once", () => {
    expect(itemImageOrigins(["https://a.example/{id}", "https://b.example/x/{id}", "https://a.example/y/{id}"])).toEqual([
      "https://a.example",
      "https://b.example",
    ]);
  });

  it("the setting: none by default, comma-separated, each checked", () => {
    expect(loadConfig({}).itemImageUrls).toEqual([]);
    expect(loadConfig({ ITEM_IMAGE_URLS: " https://a.example/c/{id} ,https://b.example/{id}," }).itemImageUrls).toEqual([
      "https://a.example/c/{id}",
      "https://b.example/{id}",
    ]);
    expect(() => loadConfig({ ITEM_IMAGE_URLS: "https://a.example/c/" })).toThrow(
      /^ITEM_IMAGE_URLS: "https:\/\/a.example\/c\/" must contain \{id\}/,
    );
  });
});
