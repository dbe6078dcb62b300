/** Which process a container runs, for its health check (server/healthcheck.ts): the web server or the indexer. */
export type Role = "web" | "indexer";

/** The indexer's program as a container command names it: compiled, from the sources, or the npm script. */
const INDEXER_PROGRAM = /(^|\/)(indexer\.js|indexer\/main\.ts)$|^start:indexer$/;

/**
 * The argument if given, else SPOOKS_ROLE, else the container's command (PID 1's arguments): the indexer when
 * one of them is the indexer's program, the web server otherwise. null: an unknown role was asked for.
 */
export function detectRole(argument: string | undefined, env: NodeJS.ProcessEnv, command: readonly string[]): Role | null {
  const given = argument ?? env.SPOOKS_ROLE;
  if (given !== undefined && given !== "") return given === "web" || given === "indexer" ? given : null;
  return command.some((arg) => INDEXER_PROGRAM.test(arg)) ? "indexer" : "web";
}
