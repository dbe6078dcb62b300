/**
 * The log's service in the web and indexer processes (docs/transparency.md): every LOG_CHECKPOINT_INTERVAL_S
 * (and at once when asked, after a draw) it integrates the entries committed since, signs a checkpoint of the
 * new size and sends it to the witnesses of LOG_WITNESSES, keeping their cosignatures. Several processes may
 * run it: the integration lock lets one at a time work.
 */
import { consistencyProof } from "../domain/tlog/merkle.ts";
import { formatVerifierKey, verifierOf, type Signer } from "../domain/tlog/note.ts";
import { tileHashReader } from "../domain/tlog/tiles.ts";
import { formatAddCheckpoint } from "../domain/tlog/witness.ts";
import { now } from "../domain/clock.ts";
import type { Database, Sql } from "../../db/client.server.ts";
import { addCosignatures, databaseTiles, integrate, latestCheckpoint } from "../../db/queries/log.server.ts";
import type { Config } from "./env.server.ts";
import { loadLogKey } from "./log-key.server.ts";
import type { Logger } from "./logger.server.ts";

export type LogService = { integrateNow(): Promise<void>; stop(): Promise<void> };

let running: LogService | null = null;

/** Asks this process's log service (if it runs one) to integrate and sign now: after a draw. */
export function requestLogIntegration(): void {
  void running?.integrateNow();
}

/**
 * Records the key as the log's (refusing another key than the one the log was signed with) and answers
 * whether this process may sign with it.
 */
export async function claimLogKey(sql: Sql, signer: Signer): Promise<{ ok: true } | { ok: false; reason: string }> {
  const key = formatVerifierKey(verifierOf(signer));
  const [row] = await sql<{ verifierKey: string }[]>`
    update log_state set verifier_key = coalesce(verifier_key, ${key}) returning verifier_key`;
  if (row.verifierKey !== key) {
    return {
      ok: false,
      reason: `the log is signed by ${row.verifierKey}, not by this key (${key}): a new key starts a new log (docs/transparency.md, "Key rotation")`,
    };
  }
  return { ok: true };
}

type Witness = { key: string; url: string };

/** Sends the latest checkpoint to one witness; answers the size it now holds (or the one it reported). */
async function sendToWitness(sql: Sql, witness: Witness, oldSize: number, logger: Logger): Promise<number | null> {
  const checkpoint = await latestCheckpoint(sql);
  if (!checkpoint || checkpoint.size < oldSize) return null;
  const proof = oldSize === 0 ? [] : await consistencyProof(tileHashReader(checkpoint.size, databaseTiles(sql)), oldSize, checkpoint.size);
  const response = await fetch(`${witness.url}/add-checkpoint`, {
    method: "POST",
    body: formatAddCheckpoint({ oldSize, proof, note: checkpoint.note }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.text();
  if (response.status === 200) {
    await addCosignatures(sql, checkpoint.size, body);
    return checkpoint.size;
  }
  if (response.status === 409) return Number(body.trim());
  logger.warn({ msg: "log witness refused the checkpoint", witness: witness.url, status: response.status, reason: body.slice(0, 200) });
  return null;
}

export function startLogService(options: {
  sql: Sql;
  signer: Signer | null;
  witnesses: Witness[];
  intervalMs: number;
  logger: Logger;
}): LogService {
  const { sql, signer, witnesses, intervalMs, logger } = options;
  /** What each witness holds of this log, as far as we know (its 409 tells us when we are wrong). */
  const witnessed = new Map<string, number>();
  let busy: Promise<void> | null = null;
  let again = false;

  const tick = async () => {
    const { signed } = await integrate(sql, signer, now());
    if (signed) logger.debug({ msg: "log checkpoint signed" });
    const latest = await latestCheckpoint(sql);
    if (!latest) return;
    for (const witness of witnesses) {
      const known = witnessed.get(witness.url) ?? 0;
      if (known === latest.size && latest.cosignatures.includes(witness.key.split("+")[0])) continue;
      try {
        let size = await sendToWitness(sql, witness, known, logger);
        // A 409 names the size the witness holds: send again from there, once.
        if (size !== null && size !== latest.size) size = await sendToWitness(sql, witness, size, logger);
        if (size !== null) witnessed.set(witness.url, size);
      } catch (error) {
        logger.warn({ msg: "log witness unreachable", witness: witness.url, err: error });
      }
    }
  };

  const integrateNow = async (): Promise<void> => {
    if (busy) {
      again = true;
      return busy;
    }
    busy = (async () => {
      do {
        again = false;
        try {
          await tick();
        } catch (error) {
          logger.error({ msg: "log integration failed", err: error });
        }
      } while (again);
    })().finally(() => (busy = null));
    return busy;
  };

  const timer = setInterval(() => void integrateNow(), intervalMs);
  timer.unref();
  void integrateNow();
  const service: LogService = {
    integrateNow,
    async stop() {
      clearInterval(timer);
      await busy;
      if (running === service) running = null;
    },
  };
  running = service;
  return service;
}

/** Loads the key, claims it as the log's, names its verifier key in the start log, and starts the service. */
export async function startPublicLog(db: Database, config: Config, logger: Logger): Promise<LogService> {
  const key = await loadLogKey(db, config);
  let signer: Signer | null = null;
  if (!key) {
    logger.warn({ msg: "public log: this process cannot read the log's signing key; it serves the log and another process signs" });
  } else {
    const claim = await claimLogKey(db.sql, key.signer);
    if (claim.ok) {
      signer = key.signer;
      logger.info({ msg: "public log", verifierKey: key.verifierKey, keyFrom: key.source });
    } else {
      logger.error({ msg: `public log: not signing: ${claim.reason}` });
    }
  }
  return startLogService({ sql: db.sql, signer, witnesses: config.log.witnesses, intervalMs: config.log.intervalS * 1000, logger });
}
