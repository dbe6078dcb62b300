/**
 * `log keygen`, `log verify`, `log witness`: the public log from outside (docs/transparency.md). None of them
 * reads the database: verify and witness work against any deployment. `log rotate` (the operator's, on the
 * database as its owner) hands the log over to a new key.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type { Command } from "commander";
import {
  ALG_COSIGNATURE_V1,
  ALG_ED25519,
  formatSignerKey,
  formatVerifierKey,
  parseSignerKey,
  parseVerifierKey,
  signerFromSeed,
  verifierOf,
} from "../../app/domain/tlog/note.ts";
import { defaultLogOrigin } from "../../app/utils/log-key.server.ts";
import { verifyLog } from "../log-verify.ts";
import { startWitness } from "../log-witness.ts";
import { createSql } from "../../db/client.server.ts";
import { rotateLog } from "../../db/queries/log.server.ts";
import {
  action,
  CliError,
  destructiveLeaf,
  leaf,
  withConfirmedChange,
  writeJson,
  type DestructiveOptions,
  type OutputOptions,
} from "../runtime.ts";

export function registerLog(program: Command): void {
  const log = program.command("log").description("the public log: make keys, check a deployment's log, run a witness");
  leaf(log, "keygen", "print a new signer key (set it as LOG_SIGNING_KEY, back it up) and its verifier key (publish it)")
    .option("--origin <origin>", "the log's origin, its key's name (default: the PUBLIC_URL host + /log)")
    .option("--witness <name>", "a witness key (cosignature/v1) of this name instead")
    .action(action(keygen));
  leaf(log, "verify", "check a deployment's log and recompute its balances, draws and tallies from the entries alone")
    .requiredOption("--url <url>", "the site (https://spooks.example)")
    .option("--key <vkey>", "the log's verifier key (default: the state file's, else the one the site names)")
    .option("--state <file>", "keeps the newest checkpoint verified; the next run proves the log consistent with it")
    .action(action(verify));
  destructiveLeaf(log, "rotate", "end this log at its latest checkpoint and start the log of a new key (docs/transparency.md)")
    .requiredOption("--key <vkey>", "the new key's verifier key (log keygen --origin <another origin>)")
    .action(action(rotate));
  log
    .command("witness")
    .description("run a tlog-witness: cosign each checkpoint consistent with the last one, refuse a fork (409/422)")
    .requiredOption("--port <port>", "the port to listen on")
    .requiredOption("--key <file>", "the witness's signer key file (made on first use)")
    .requiredOption("--log <vkey>", "the verifier key of a log to witness (repeat for several)", (value: string, all: string[] = []) => [
      ...all,
      value,
    ])
    .option("--host <host>", "the address to listen on", "127.0.0.1")
    .option("--name <name>", "the witness key's name, when the key file is made", "spooks-witness")
    .action(action(witness));
}

async function keygen(options: OutputOptions & { origin?: string; witness?: string }): Promise<void> {
  const name = options.witness ?? options.origin ?? defaultLogOrigin(process.env.PUBLIC_URL);
  let signer;
  try {
    signer = signerFromSeed(name, randomBytes(32), options.witness ? ALG_COSIGNATURE_V1 : ALG_ED25519);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  const keys = { signerKey: formatSignerKey(signer), verifierKey: formatVerifierKey(verifierOf(signer)) };
  if (options.json) return writeJson(keys);
  process.stdout.write(
    `signer key (secret: LOG_SIGNING_KEY, back it up):\n${keys.signerKey}\nverifier key (publish it):\n${keys.verifierKey}\n`,
  );
}

async function verify(options: OutputOptions & { url: string; key?: string; state?: string }): Promise<void> {
  const report = await verifyLog(options, (line) => {
    if (!options.json) process.stderr.write(`${line}\n`);
  });
  if (options.json) writeJson(report);
  else {
    process.stdout.write(
      `${report.origin}: ${report.size} entries; ${report.wallets} wallets, ${report.giveaways} draws, ${report.proposals} proposals recomputed\n`,
    );
    for (const line of report.differences) process.stdout.write(`DIFFERENCE ${line}\n`);
    process.stdout.write(
      report.differences.length === 0 ? "OK: the site matches its log\n" : `${report.differences.length} difference(s)\n`,
    );
  }
  if (report.differences.length > 0) process.exitCode = 1;
}

async function rotate(options: DestructiveOptions & { key: string }): Promise<void> {
  let key: string;
  try {
    key = formatVerifierKey(parseVerifierKey(options.key));
  } catch (error) {
    throw new CliError(`--key: ${(error as Error).message}`);
  }
  const n = await withConfirmedChange(
    options,
    async ({ sql }) => {
      const [row] = await sql<{ key: string | null; size: number }[]>`
        select verifier_key as key, (select size from log_head)::int8 as size from log_state`;
      return `End the log of ${row.key ?? "(no key yet)"} at its ${row.size} entries and start the log of ${key}?`;
    },
    async ({ sql, ownerUrl }) => {
      const owner = ownerUrl ? createSql(ownerUrl, { max: 1 }) : sql;
      try {
        return await rotateLog(owner, key);
      } catch (error) {
        throw new CliError(`not rotated: ${(error as Error).message}`);
      } finally {
        if (owner !== sql) await owner.end({ timeout: 5 });
      }
    },
  );
  if (options.json) return writeJson({ previous: n, verifierKey: key });
  process.stdout.write(
    `The log of ${key} begins with the old log's last checkpoint (served under /log/previous/${n}/).\n` +
      "Now: set LOG_SIGNING_KEY to the new signer key in every web and indexer process, start them, and publish the new verifier key beside the old one.\n",
  );
}

async function witness(options: { port: string; key: string; log: string[]; host: string; name: string }): Promise<void> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number (got '${options.port}')`);
  if (!fs.existsSync(options.key)) {
    fs.writeFileSync(options.key, `${formatSignerKey(signerFromSeed(options.name, randomBytes(32), ALG_COSIGNATURE_V1))}\n`, {
      mode: 0o600,
    });
  }
  const key = parseSignerKey(fs.readFileSync(options.key, "utf8").trim());
  if (key.alg !== ALG_COSIGNATURE_V1) throw new CliError("the witness key must be a cosignature/v1 key (log keygen --witness NAME)");
  const server = await startWitness({
    port,
    host: options.host,
    key,
    logs: options.log,
    stateFile: `${options.key}.state.json`,
    onEvent: (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`),
  });
  // Listened for before "listening" is said: a signal sent on reading it must not find Node's default (end at once).
  const stopAsked = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  process.stdout.write(`witness ${formatVerifierKey(verifierOf(key))} listening on ${server.url}\n`);
  await stopAsked;
  await server.close();
}
