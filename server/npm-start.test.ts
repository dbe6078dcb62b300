/**
 * `npm start` itself, spawned as an operator runs it: npm's child is node (no shell between), an up-to-date
 * build is reused, ./.env is read (the environment wins over it), and SIGTERM sent to the npm process stops
 * the server within 10 s and frees the port. Runs in a scratch project folder (symlinks to this one) so its
 * .env and build touch nothing here.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeUrl } from "../db/client.server.ts";
import { ensureAppBuild } from "../tests/support/app-server.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { freePort } from "../tests/support/net.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(false)));
    socket.once("error", () => resolve(true));
  });
}

function childrenOf(pid: number): number[] {
  const tasks = fs.readdirSync(`/proc/${pid}/task`);
  return tasks.flatMap((task) =>
    fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("npm start", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let project: string;
  let port: number;
  let npm: ReturnType<typeof spawn>;
  let output = "";
  let exited: Promise<number | null>;

  beforeAll(async () => {
    let buildDir: string;
    [db, buildDir, port] = await Promise.all([createTestDatabase(), ensureAppBuild(), freePort()]);
    project = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-npm-start-"));
    for (const entry of ["package.json", "node_modules", "server", "scripts"])
      fs.symlinkSync(path.join(ROOT, entry), path.join(project, entry));
    // The server build resolves react from the folder above it, so the copy lives inside the project.
    fs.cpSync(buildDir, path.join(project, "build"), { recursive: true });
    fs.writeFileSync(
      path.join(project, ".env"),
      [
        "# read by npm start; HOST is overridden by the environment",
        `DATABASE_URL=${db.url}`,
        `PORT=${port}`,
        "HOST=203.0.113.7",
        `DATA_DIR=${path.join(project, "data-from-dotenv")}`,
        "",
      ].join("\n"),
    );
    npm = spawn("npm", ["start"], {
      cwd: project,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: "127.0.0.1", LOG_LEVEL: "info", npm_config_update_notifier: "false" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    npm.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    npm.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    exited = new Promise((resolve) => npm.on("exit", (code) => resolve(code)));
    for (let i = 0; i < 600 && npm.exitCode === null && !output.includes('"msg":"listening"'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!output.includes('"msg":"listening"')) throw new Error(`npm start did not start:\n${output}`);
  });

  afterAll(async () => {
    // Its own process group, so whatever it left behind (were node orphaned) goes too.
    if (npm?.pid) {
      try {
        process.kill(-npm.pid, "SIGKILL");
      } catch {
        // The group is already gone (npm exited and took its children with it): nothing left to stop.
      }
    }
    await db?.close();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  it("reuses the up-to-date build instead of building again", () => {
    expect(output).toContain('"msg":"build up to date"');
    expect(output).not.toContain('"msg":"building"');
  });

  it("reads .env from where it starts, and the environment wins over it", async () => {
    const listening = JSON.parse(output.split("\n").find((line) => line.includes('"msg":"listening"'))!);
    expect(listening.url).toBe(`http://127.0.0.1:${port}`); // PORT from .env, HOST from the environment
    expect(listening.database).toBe(describeUrl(db.url)); // DATABASE_URL from .env (else embedded PGlite)
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
  });

  it.runIf(process.platform === "linux")("has node as npm's child, with no shell between", () => {
    const children = childrenOf(npm.pid!);
    expect(children).toHaveLength(1);
    const argv = fs.readFileSync(`/proc/${children[0]}/cmdline`, "utf8").split("\0");
    expect(path.basename(argv[0])).toBe("node");
    expect(argv).toContain("server/start.ts");
  });

  it("stops on SIGTERM to the npm process within 10 s, exits 0 and frees the port", async () => {
    const node = process.platform === "linux" ? childrenOf(npm.pid!)[0] : undefined;
    const signalledAt = Date.now();
    npm.kill("SIGTERM");
    const code = await exited;
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    expect(code).toBe(0);
    expect(output).toContain('"msg":"shutting down","signal":"SIGTERM"');
    expect(await refused(port)).toBe(true);
    if (node) expect(alive(node)).toBe(false);
  });
});
