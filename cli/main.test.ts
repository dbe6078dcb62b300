import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createProgram } from "./program.ts";
import { cliEnv, runCli } from "./testing/run-cli.ts";

// No database is needed to print help or to reject a command line.
const env = cliEnv(undefined);

function leaves(command: Command, prefix = ""): { name: string; options: string[] }[] {
  const name = `${prefix}${command.name()}`;
  if (command.commands.length === 0) return [{ name, options: command.options.map((option) => option.long ?? "") }];
  return command.commands.flatMap((child) => leaves(child, command.parent ? `${name} ` : ""));
}

describe("spooks-admin command tree", () => {
  it("has every command of the issue, each with --json, and --yes exactly on the destructive ones", async () => {
    const commands = leaves(await createProgram());
    expect(commands.map((command) => command.name).sort()).toEqual(
      [
        "users",
        "points add",
        "points clear",
        "points recalculate",
        "points reset-negative",
        "points accrue",
        "points history",
        "boosts show",
        "boosts set",
        "boosts cancel",
        "giveaways list",
        "giveaways create",
        "giveaways end",
        "giveaways activate",
        "giveaways set-image",
        "giveaways entries",
        "giveaways claims",
        "giveaways draw",
        "giveaways verify",
        "giveaways delete",
        "proposals list",
        "proposals create",
        "proposals results",
        "proposals delete",
        "proposals verify",
        "catalogue import",
        "catalogue stats",
        "indexer status",
        "indexer sync",
        "discord rules",
        "discord preview",
        "discord sync",
        "discord links",
        "discord commands sync",
        "notifications list",
        "notifications replay",
        "notifications test",
        "audit",
        "team list",
        "team add",
        "team remove",
        "approvals list",
        "log keygen",
        "log verify",
        "log witness",
        "log rotate",
      ].sort(),
    );
    const destructive = [
      "boosts cancel",
      "points clear",
      "points reset-negative",
      "giveaways end",
      "giveaways draw",
      "giveaways delete",
      "proposals delete",
      "team remove",
      "log rotate",
    ];
    // A server runs until stopped and prints what it does as it goes: no result to print as JSON.
    const servers = ["log witness"];
    for (const command of commands) {
      if (servers.includes(command.name)) continue;
      expect(command.options, command.name).toContain("--json");
      expect(command.options.includes("--yes"), command.name).toBe(destructive.includes(command.name));
    }
  });
});

describe("spooks-admin --help and command-line errors (the real binary)", () => {
  it("prints help for the program, a group and a command, and rejects an unknown command", async () => {
    const [top, points, create, unknown] = await Promise.all([
      runCli(["--help"], env, { program: "bin" }),
      runCli(["points", "--help"], env, { program: "bin" }),
      runCli(["giveaways", "create", "--help"], env, { program: "bin" }),
      runCli(["poinst"], env, { program: "bin" }),
    ]);
    for (const result of [top, points, create]) expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(top.stdout).toMatch(/^Usage: spooks-admin \[options\] \[command\]\n/);
    for (const group of ["users", "points", "giveaways", "proposals", "catalogue", "indexer", "audit"]) {
      expect(top.stdout).toMatch(new RegExp(`\\n  ${group}\\b`));
    }
    expect(top.stdout).toContain("Every command takes --json");
    expect(top.stdout).toContain("Examples:\n  spooks-admin users --search");
    for (const command of ["add", "clear", "recalculate", "reset-negative", "accrue", "history"]) {
      expect(points.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
    }
    for (const option of ["--json", "--title <text>", "--description <text>", "--image <file|url>", "--cost <points>", "--end <iso>"]) {
      expect(create.stdout).toContain(option);
    }
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain("error: unknown command 'poinst'\n(Did you mean points?)");
  });
});

describe("spooks-admin --version (the real binary)", () => {
  it("prints package.json's version with --version and -V, and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    const results = await Promise.all([runCli(["--version"], env, { program: "bin" }), runCli(["-V"], env, { program: "bin" })]);
    for (const result of results) expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });
});
