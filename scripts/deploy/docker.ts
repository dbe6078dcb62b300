/**
 * The docker and compose commands `npm run test:deploy` runs, on whatever engine DOCKER_HOST names. DOCKER is the
 * docker CLI (default `docker`); COMPOSE the compose command (default `docker compose` when that plugin answers,
 * else `docker-compose`). The test stack is its own compose project in a folder of its own, so an operator's
 * `.env` and stack are never touched.
 */
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
export const DOCKER = process.env.DOCKER ?? "docker";

export async function docker(args: string[], options: { input?: string } = {}): Promise<string> {
  if (options.input === undefined) {
    const { stdout } = await run(DOCKER, args, { maxBuffer: 64 * 1024 * 1024 });
    return stdout.trim();
  }
  return pipeInto(DOCKER, args, options.input);
}

/** Runs a command with `input` on its stdin; its stdout, or an error with its stderr. */
function pipeInto(command: string, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(stdout.trim()) : reject(new Error(`${command} ${args.join(" ")}: ${stderr}`))));
    child.stdin.end(input);
  });
}

/** Runs a command with its output shown (builds, `up`); rejects on a non-zero exit. */
export function visible(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"], env });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited with ${code}`))));
  });
}

async function composeCommand(): Promise<string[]> {
  if (process.env.COMPOSE) return process.env.COMPOSE.split(" ").filter(Boolean);
  try {
    await run(DOCKER, ["compose", "version"]);
    return [DOCKER, "compose"];
  } catch {
    return ["docker-compose"];
  }
}

export type Compose = {
  /** Runs compose in the project with its output shown. */
  visible(args: string[], env?: Record<string, string>): Promise<void>;
  /** Runs compose in the project; its stdout. */
  output(args: string[]): Promise<string>;
  /** The project's running containers of `service`, oldest first. */
  containers(service: string): Promise<string[]>;
};

export async function composeProject(dir: string, project: string): Promise<Compose> {
  const [command, ...prefix] = await composeCommand();
  const base = [...prefix, "--project-directory", dir, "-f", `${dir}/docker-compose.yml`, "-p", project];
  return {
    visible: (args, env = {}) => visible(command, [...base, ...args], { ...process.env, ...env }),
    output: async (args) => (await run(command, [...base, ...args], { maxBuffer: 64 * 1024 * 1024 })).stdout.trim(),
    async containers(service) {
      const ids = await docker([
        "ps",
        "--quiet",
        "--filter",
        `label=com.docker.compose.project=${project}`,
        "--filter",
        `label=com.docker.compose.service=${service}`,
      ]);
      if (!ids) return [];
      const rows = await docker(["inspect", "--format", "{{.Created}} {{.Id}}", ...ids.split("\n")]);
      return rows
        .split("\n")
        .sort()
        .map((row) => row.split(" ")[1]);
    },
  };
}

/** A container's health ("healthy", "starting", "unhealthy") or its state when it has no health check. */
export async function healthOf(container: string): Promise<string> {
  return docker(["inspect", "--format", "{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}", container]);
}

/**
 * Runs the container's own health check now (docker runs it only once an interval: the indexer's first probe
 * comes 60 s after its start). True when it passes.
 */
export async function passesHealthCheckNow(container: string): Promise<boolean> {
  const test = JSON.parse(await docker(["inspect", "--format", "{{json .Config.Healthcheck.Test}}", container])) as string[] | null;
  if (!test || test[0] === "NONE") return false;
  const command = test[0] === "CMD-SHELL" ? ["sh", "-c", test[1]] : test.slice(1);
  return docker(["exec", container, ...command]).then(
    () => true,
    () => false,
  );
}

export async function imageOf(container: string): Promise<string> {
  return docker(["inspect", "--format", "{{.Image}}", container]);
}

/** The image's size in bytes. */
export async function imageSize(image: string): Promise<number> {
  return Number(await docker(["image", "inspect", "--format", "{{.Size}}", image]));
}
