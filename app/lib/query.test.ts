import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { GC_TIME_MS, getQueryData, setQueryData, subscribeQuery } from "./query.ts";

describe("query cache garbage collection (spec section 9: after 5 minutes)", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  test("gcTime is 5 minutes", () => {
    expect(GC_TIME_MS).toBe(300_000);
  });

  test("an entry nobody reads is dropped 5 minutes after it was written", () => {
    setQueryData("/api/test/unread", 1);
    vi.advanceTimersByTime(GC_TIME_MS - 1);
    expect(getQueryData("/api/test/unread")).toBe(1);
    vi.advanceTimersByTime(1);
    expect(getQueryData("/api/test/unread")).toBeUndefined();
  });

  test("an entry is kept while read, and dropped 5 minutes after its last reader left", () => {
    setQueryData("/api/test/read", "kept");
    const first = subscribeQuery("/api/test/read", () => {});
    const second = subscribeQuery("/api/test/read", () => {});
    vi.advanceTimersByTime(GC_TIME_MS * 3);
    expect(getQueryData("/api/test/read")).toBe("kept");
    first();
    vi.advanceTimersByTime(GC_TIME_MS * 3);
    expect(getQueryData("/api/test/read")).toBe("kept");
    second();
    vi.advanceTimersByTime(GC_TIME_MS - 1000);
    expect(getQueryData("/api/test/read")).toBe("kept");
    // A reader coming back in time cancels the collection.
    const again = subscribeQuery("/api/test/read", () => {});
    vi.advanceTimersByTime(GC_TIME_MS * 2);
    expect(getQueryData("/api/test/read")).toBe("kept");
    again();
    vi.advanceTimersByTime(GC_TIME_MS);
    expect(getQueryData("/api/test/read")).toBeUndefined();
  });
});
