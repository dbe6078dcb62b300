/**
 * .env.example lists every setting loadConfig reads, and the default it shows is the real default:
 * uncommenting every line changes nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./env.server.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const example = fs.readFileSync(path.join(ROOT, ".env.example"), "utf8");

/** The keys of `EnvSchema = z.object({ … })` in env.server.ts. */
function schemaKeys(): string[] {
  const source = fs.readFileSync(path.join(import.meta.dirname, "env.server.ts"), "utf8");
  const body = /const EnvSchema = z\.object\(\{\n([\s\S]*?)\n\}\);/.exec(source)?.[1] ?? "";
  return [...body.matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)].map((match) => match[1]);
}

/** The example's setting lines, uncommented. */
function uncommented(): Record<string, string> {
  const lines = example.split("\n").filter((line) => /^#?\s?[A-Z][A-Z0-9_]*=/.test(line));
  return parseEnv(lines.map((line) => line.replace(/^#\s?/, "")).join("\n")) as Record<string, string>;
}

describe(".env.example", () => {
  it("lists every setting of app/utils/env.server.ts", () => {
    const keys = schemaKeys();
    expect(keys.length).toBeGreaterThan(15);
    expect(keys.filter((key) => !(key in uncommented()))).toEqual([]);
  });

  it("shows the real defaults: uncommenting every line loads the same configuration as an empty one", () => {
    expect(loadConfig(uncommented())).toEqual(loadConfig({}));
  });

  it("sets nothing as it is: every setting is commented out", () => {
    expect(parseEnv(example)).toEqual({});
  });
});
