import { describe, expect, test } from "vitest";
import { cn } from "./cn.ts";
import { panelClasses } from "./dialog.tsx";
import { buttonClasses } from "./button.tsx";

describe("cn", () => {
  test("skips falsy values and joins the rest", () => {
    expect(cn("a", false, null, undefined, "", "b")).toBe("a b");
  });

  test("a later Tailwind class overrides an earlier one of the same utility", () => {
    expect(cn("p-6 text-xl", "p-3 text-base")).toBe("p-3 text-base");
    expect(cn("h-8 px-3", "px-5")).toBe("h-8 px-5");
  });

  test("the enlarged image dialog gets its own width and padding", () => {
    const classes = cn(panelClasses, "max-w-3xl p-3").split(" ");
    expect(classes).toContain("max-w-3xl");
    expect(classes).toContain("p-3");
    expect(classes).not.toContain("max-w-lg");
    expect(classes).not.toContain("p-6");
  });

  test("a title size override replaces the default size", () => {
    const classes = cn("text-xl font-semibold text-zinc-50", "px-2 pt-1 text-base").split(" ");
    expect(classes).toContain("text-base");
    expect(classes).not.toContain("text-xl");
    expect(classes).toContain("text-zinc-50");
  });

  test("the red 'Clear Points' button keeps its red text over the ghost variant's grey", () => {
    const classes = cn(buttonClasses("ghost", "sm"), "text-red-300 hover:text-red-200").split(" ");
    expect(classes).toContain("text-red-300");
    expect(classes).toContain("hover:text-red-200");
    expect(classes).not.toContain("text-zinc-300");
    expect(classes).not.toContain("hover:text-white");
    // The size's text size is not a colour: it stays.
    expect(classes).toContain("text-xs");
  });
});
