import { afterEach, describe, expect, it } from "vitest";
import { HOUR_MS, hourStart, now, nowMs, setClock } from "./clock.ts";

describe("clock", () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it("follows Date.now() by default", () => {
    const before = Date.now();
    const at = nowMs();
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });

  it("can be moved with a number or a Date, and restored", () => {
    const fixed = Date.UTC(2030, 0, 2, 3, 4, 5);
    restore = setClock(() => fixed);
    expect(nowMs()).toBe(fixed);
    expect(now().toISOString()).toBe("2030-01-02T03:04:05.000Z");

    const inner = setClock(() => new Date("2031-06-01T00:00:00.000Z"));
    expect(now().toISOString()).toBe("2031-06-01T00:00:00.000Z");
    inner();
    expect(nowMs()).toBe(fixed);

    restore();
    restore = undefined;
    expect(Math.abs(nowMs() - Date.now())).toBeLessThan(1000);
  });

  it("is one clock per process: another copy of the module (the server build bundles one) reads the time set here", async () => {
    // @ts-expect-error: the query names another instance of the module for Vite; TypeScript knows no such file
    const copy = (await import("./clock.ts?another-copy")) as typeof import("./clock.ts");
    expect(copy.setClock).not.toBe(setClock);
    const fixed = Date.UTC(2030, 0, 2, 3, 4, 5);
    restore = setClock(() => fixed);
    expect(copy.nowMs()).toBe(fixed);
    const inner = copy.setClock(() => fixed + 1);
    expect(nowMs()).toBe(fixed + 1);
    inner();
    expect(nowMs()).toBe(fixed);
  });

  it("hourStart is the start of the UTC hour", () => {
    expect(HOUR_MS).toBe(3_600_000);
    expect(hourStart(new Date("2030-01-02T03:59:59.999Z")).toISOString()).toBe("2030-01-02T03:00:00.000Z");
    expect(hourStart(new Date("2030-01-02T04:00:00.000Z")).toISOString()).toBe("2030-01-02T04:00:00.000Z");
    expect(hourStart(new Date("2030-01-02T04:00:00.001Z")).toISOString()).toBe("2030-01-02T04:00:00.000Z");
  });
});
