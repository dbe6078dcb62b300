import { describe, expect, it } from "vitest";
import { contentPath, imageSources, isLocalImage, localImagePath } from "./item-image.tsx";

const ID = `${"cd".repeat(32)}i3`;
const item = { collection: "spooks" as const, name: "Spooks #42", inscriptionId: ID, imageUrl: null as string | null };

describe("an item's image sources", () => {
  it("in order: local collection_images, this site's /content/{id}, then the configured outside hosts", () => {
    expect(imageSources(item, ["https://cdn.example/content/{id}", "https://api.example/i/{id}"], ["spooks"])).toEqual([
      "/collection_images/spooks/42.png",
      `/content/${ID}`,
      `https://cdn.example/content/${ID}`,
      `https://api.example/i/${ID}`,
    ]);
  });

  it("no outside host is built in", () => {
    expect(imageSources(item, [], ["spooks"])).toEqual(["/collection_images/spooks/42.png", `/content/${ID}`]);
  });

  it("issue 33: no local picture is asked for when the install has no folder for the collection", () => {
    expect(imageSources(item)).toEqual([`/content/${ID}`]);
    expect(imageSources(item, [], ["spook-society"])).toEqual([`/content/${ID}`]);
  });

  it("the catalogue's own image URL comes first; no source twice", () => {
    expect(imageSources({ ...item, imageUrl: "https://img.example/42.png" }, ["https://img.example/42.png?{id}"])[0]).toBe(
      "https://img.example/42.png",
    );
    expect(imageSources({ ...item, imageUrl: `/content/${ID}` }, [], ["spooks"])).toEqual([
      `/content/${ID}`,
      "/collection_images/spooks/42.png",
    ]);
  });

  it("an item without a number has no local image", () => {
    expect(localImagePath({ collection: "spooks", name: "Odd one" })).toBeNull();
    expect(imageSources({ ...item, name: "Odd one" }, [], ["spooks"])).toEqual([`/content/${ID}`]);
  });

  it("only the collection_images folder counts as local (downloadable)", () => {
    expect(isLocalImage("/collection_images/spooks/42.png")).toBe(true);
    expect(isLocalImage(contentPath(ID))).toBe(false);
    expect(isLocalImage("https://cdn.example/x.png")).toBe(false);
  });
});
