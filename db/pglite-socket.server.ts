/**
 * Serves a PGlite instance on a loopback port to any number of `postgres` clients (web, indexer, CLI),
 * speaking PostgreSQL's wire protocol. PGlite has one backend, so the connections take turns on it.
 *
 * - Access: every connection must prove the server's password with SCRAM-SHA-256 (as a real PostgreSQL
 *   does with `scram-sha-256` in pg_hba.conf); without it the connection is refused (28P01) before any
 *   message reaches the database. The password is random per start and kept in the data folder's
 *   connection file, readable only by its owner (db/embedded.server.ts).
 * - Turns: one queue for all connections. A connection keeps the backend from its first message until
 *   its batch ends (Sync or a simple Query) and for as long as it has a transaction open, so two
 *   connections' extended-protocol batches (Parse, Bind, Execute … Sync) never interleave and one
 *   connection's unnamed statement or portal is never replaced by another's.
 * - Local accounts without the password cannot break it: every socket has an `error` handler (a peer's
 *   reset, even of a refused socket, never reaches the process as an uncaught error); a connection must
 *   finish authenticating within a deadline (AUTH_TIMEOUT_MS); and connections still authenticating
 *   are capped apart from the authenticated ones, which they can never take or fill.
 * - A flood of them cannot lock out a client with the password. On loopback every peer is 127.0.0.1,
 *   so what tells that client apart is its pace: it sends its startup message at once and answers each
 *   SCRAM step within milliseconds, while a flood's connections say nothing, or stop after a step, or
 *   send a partial frame. So when the pending slots (MAX_UNAUTHENTICATED, 1,024: a socket and a small
 *   buffer each) are full, the newcomer takes the slot of the connection the server has waited on longest
 *   since it last answered it (or accepted it), not the oldest: to push out a client that answers within
 *   t ms, a flood must open 1,024 connections within those t ms. Each step moves a connection forward
 *   once (one SSLRequest and one GSSENCRequest at most), so stalling cannot be dressed up as progress,
 *   and a frame declared larger than a startup message is refused before its bytes are waited for.
 *   53300 "too many clients already" is only for the authenticated slots, which only clients with the
 *   password fill. (Before, 8 slots, oldest dropped: 1,000 connections a second let 2 of 12 `psql`
 *   logins in; db/embedded-attacks.test.ts floods a real owning process.)
 * - Roles: the password of `postgres` makes an owner login (PGlite's superuser, for migrations); with
 *   `runtimePassword`, the login `spooks_runtime` acts as the runtime role (db/roles.server.ts) and can never
 *   get back to the superuser: the backend is switched to that role before its turns, and what it sends is
 *   checked first (./embedded-runtime.server.ts).
 * - Turns are short: when a connection holds the backend (a transaction or a batch open) and sends nothing for
 *   IDLE_IN_TRANSACTION_MS, its transaction is rolled back and the others go on, so one stalled client (a
 *   request waiting on a slow server inside its transaction) cannot stall every other one (issue 32, item 2).
 *   Unlike PostgreSQL (25P03, FATAL) the connection is not closed: postgres.js 3.4.9 crashes its process when a
 *   transaction's connection closes under it (a write on the closed socket from a timer: porsager/postgres#1208),
 *   or runs the dead transaction's next statements outside any transaction. Instead every statement it sends
 *   is refused with 25P03 until its ROLLBACK, which ends it as PostgreSQL's own failed transaction would. PGlite
 *   cannot interrupt a statement (its backend runs on this thread: `statement_timeout` has no effect).
 * - Settings are a turn's: each time another connection takes the backend its session settings are reset
 *   (and its role set), so nothing one runtime connection SETs reaches the next one's statements (item 11).
 * - Failure: an internal error while PGlite runs one connection's message is answered to that connection
 *   as a query error (XX000, its batch skipped up to its Sync, as PostgreSQL does after an error), the
 *   backend is returned clean (that batch and transaction rolled back), and the queue goes on for the
 *   others. (@electric-sql/pglite-socket, used before, stopped its queue for good
 *   on such an error, leaving every other connection waiting.)
 */
import type { PGlite } from "@electric-sql/pglite";
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";
import net from "node:net";
import { ACT_AS_OWNER, ACT_AS_RUNTIME, guardRuntimeMessage, prepareRuntimeRole } from "./embedded-runtime.server.ts";
import { RUNTIME_ROLE } from "./roles.server.ts";
import { cString, wireMessage } from "./wire.server.ts";

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const SCRAM_ITERATIONS = 4096;
/**
 * Startup and password messages are small; a larger one before authentication is refused as soon as its
 * length is read (PostgreSQL's limit for a startup packet).
 */
const MAX_UNAUTHENTICATED_BYTES = 10_000;
/** A client with the password authenticates in milliseconds on loopback; PostgreSQL allows 60 s. */
const AUTH_TIMEOUT_MS = 8_000;
/** Connections the kernel holds for us to accept (Node's default, stated: MAX_UNAUTHENTICATED is sized by it). */
const LISTEN_BACKLOG = 511;
/**
 * Connections still authenticating at once; beyond it the one that has kept the server waiting longest is
 * dropped (see the file comment). Each costs a socket and at most MAX_UNAUTHENTICATED_BYTES. Over twice the
 * listen backlog: however long the event loop was blocked (a long query), the connections accepted in one
 * turn, before any of their messages is read, cannot push out one that answered before the block.
 */
const MAX_UNAUTHENTICATED = 1024;
/**
 * How long a connection may hold the backend (a transaction or a batch open) without sending anything. The app's
 * transactions send their statements back to back (no outside call inside one), so only a stalled client waits
 * this long; PostgreSQL's own setting for the web's pool is the same (db/client.server.ts).
 */
export const IDLE_IN_TRANSACTION_MS = 15_000;

const SYNC = 0x53; // 'S'
const SIMPLE_QUERY = 0x51; // 'Q'
const TERMINATE = 0x58; // 'X'
const PASSWORD = 0x70; // 'p'
const PARSE = 0x50; // 'P'
const BIND = 0x42; // 'B'

// Wire messages --------------------------------------------------------------------------------------

function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}

function authentication(code: number, data: Buffer = Buffer.alloc(0)): Buffer {
  return wireMessage("R", Buffer.concat([int32(code), data]));
}

function errorResponse(code: string, text: string, severity: "FATAL" | "ERROR" = "FATAL"): Buffer {
  const field = (name: string, value: string) => Buffer.concat([Buffer.from(name, "latin1"), Buffer.from(`${value}\0`, "utf8")]);
  return wireMessage(
    "E",
    Buffer.concat([field("S", severity), field("V", severity), field("C", code), field("M", text), Buffer.from([0])]),
  );
}

/** ReadyForQuery, idle (after a failed message the backend is always rolled back to idle). */
const READY_IDLE = wireMessage("Z", Buffer.from("I", "latin1"));
/** ReadyForQuery, in a failed transaction: what a connection whose transaction the idle timeout ended is told until its ROLLBACK. */
const READY_FAILED = wireMessage("Z", Buffer.from("E", "latin1"));

const IDLE_ABORTED =
  "the transaction was rolled back: it held the embedded database and sent nothing for too long (idle-in-transaction timeout)";

/** A statement that ends a transaction the client still believes open: ROLLBACK (also TO a savepoint) or ABORT. */
const ENDS_FAILED_TRANSACTION = /^\s*(?:rollback|abort)\b/i;

const simpleQuery = (text: string) => wireMessage("Q", cString(text));
const SYNC_MESSAGE = wireMessage("S", Buffer.alloc(0));

// SCRAM-SHA-256 (RFC 5802 / 7677), server side -------------------------------------------------------

const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest();

type ScramSecret = { salt: Buffer; storedKey: Buffer; serverKey: Buffer };

function scramSecret(password: string): ScramSecret {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password.normalize("NFKC"), salt, SCRAM_ITERATIONS, 32, "sha256");
  return { salt, storedKey: sha256(hmac(salted, "Client Key")), serverKey: hmac(salted, "Server Key") };
}

function scramAttributes(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const part of text.split(",")) {
    const at = part.indexOf("=");
    if (at === 1) attributes.set(part[0], part.slice(2));
  }
  return attributes;
}

/** One connection's SCRAM exchange: answers the server-first message, then checks the client's proof. */
class ScramExchange {
  private clientFirstBare = "";
  private serverFirst = "";
  private nonce = "";

  constructor(private readonly secret: ScramSecret) {}

  /** `n,,n=user,r=nonce` → `r=…,s=…,i=…`, or null when malformed (or asking for channel binding). */
  first(clientFirst: string): string | null {
    if (!clientFirst.startsWith("n,,")) return null;
    this.clientFirstBare = clientFirst.slice(3);
    const clientNonce = scramAttributes(this.clientFirstBare).get("r");
    if (!clientNonce) return null;
    this.nonce = clientNonce + randomBytes(18).toString("base64");
    this.serverFirst = `r=${this.nonce},s=${this.secret.salt.toString("base64")},i=${SCRAM_ITERATIONS}`;
    return this.serverFirst;
  }

  /** `c=biws,r=…,p=proof` → `v=server signature`, or null when the proof is not the password's. */
  final(clientFinal: string): string | null {
    const attributes = scramAttributes(clientFinal);
    const proof = Buffer.from(attributes.get("p") ?? "", "base64");
    if (attributes.get("c") !== "biws" || attributes.get("r") !== this.nonce || proof.length !== 32) return null;
    const withoutProof = clientFinal.slice(0, clientFinal.lastIndexOf(",p="));
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const signature = hmac(this.secret.storedKey, authMessage);
    const clientKey = Buffer.from(proof.map((byte, i) => byte ^ signature[i]));
    if (!timingSafeEqual(sha256(clientKey), this.secret.storedKey)) return null;
    return `v=${hmac(this.secret.serverKey, authMessage).toString("base64")}`;
  }
}

/** Who a connection authenticates as: the owner, or the runtime role (guarded). */
type Login = { secret: ScramSecret; runtime: boolean };

// Connections and the queue ----------------------------------------------------------------------------

/** A message for the backend; `startup` marks the startup packet, which is no part of a batch. */
type Job = { connection: Connection; message: Uint8Array; startup?: boolean };

class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private phase: "startup" | "sasl-first" | "sasl-final" | "ready" = "startup";
  private startup: Buffer | null = null;
  private user = "postgres";
  private scram: ScramExchange | null = null;
  private login: Login | null = null;
  /** SSLRequest and GSSENCRequest answered: each at most once, as PostgreSQL allows. */
  private readonly negotiated = new Set<number>();
  closed = false;
  /**
   * Until authenticated: since when the server has been waiting for this connection's next handshake
   * message (its accept, or the server's last answer to it). A client with the password answers each step
   * at once, so this stays recent for it however long the flood around it.
   */
  awaitingSince = performance.now();
  /** After an internal error in a batch: its remaining messages are skipped until its Sync. */
  skippingToSync = false;
  /** Its transaction was rolled back by the idle timeout: every statement is refused until its ROLLBACK. */
  idleAborted = false;
  /** While idleAborted: a ROLLBACK is on its way to the backend (its batch passes, up to its Sync). */
  rollbackUnderWay = false;
  /** Names of the statements it prepared as ROLLBACK or ABORT (a Bind names only the statement). */
  readonly rollbackStatements = new Set<string>();
  private readonly authDeadline: NodeJS.Timeout;

  constructor(
    readonly socket: net.Socket,
    private readonly loginOf: (user: string) => Login,
    private readonly queue: BackendQueue,
    authTimeoutMs: number,
    private readonly onAuthenticated: (connection: Connection) => void,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (data) => this.receive(data));
    socket.on("close", () => this.close());
    this.authDeadline = setTimeout(() => this.refuse("08006", "authentication timed out"), authTimeoutMs).unref();
  }

  get authenticated(): boolean {
    return this.phase === "ready";
  }

  get runtime(): boolean {
    return this.login?.runtime ?? false;
  }

  write(data: Uint8Array): void {
    if (!this.closed && this.socket.writable) this.socket.write(data);
  }

  /** Ends the connection, after an optional last message (a FATAL error). */
  close(last?: Buffer): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.authDeadline);
    if (last && this.socket.writable) this.socket.end(last);
    else this.socket.destroy();
    setTimeout(() => this.socket.destroy(), 1000).unref();
    this.queue.forget(this);
  }

  private refuse(code: string, text: string): void {
    this.close(errorResponse(code, text));
  }

  /** A handshake step answered: the clock for the client's next message starts now. */
  private answer(data: Buffer): void {
    this.write(data);
    this.awaitingSince = performance.now();
  }

  private receive(data: Buffer): void {
    if (this.closed) return;
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, data]) : data;
    if (this.phase !== "ready" && this.buffer.length > MAX_UNAUTHENTICATED_BYTES) {
      return this.refuse("08P01", "startup message too large");
    }
    while (!this.closed) {
      // Before the startup packet a frame is int32 length + body; after it, a type byte comes first.
      const typed = this.phase !== "startup";
      if (this.buffer.length < (typed ? 5 : 4)) return;
      const length = typed ? 1 + this.buffer.readInt32BE(1) : this.buffer.readInt32BE(0);
      if (length < (typed ? 5 : 8)) return this.refuse("08P01", "invalid message length");
      // Not waited for: a declared length beyond the limit would hold a pending slot until the deadline.
      if (this.phase !== "ready" && length > MAX_UNAUTHENTICATED_BYTES) return this.refuse("08P01", "startup message too large");
      if (this.buffer.length < length) return;
      const frame = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      this.handle(frame);
    }
  }

  private handle(frame: Buffer): void {
    switch (this.phase) {
      case "startup":
        return this.handleStartup(frame);
      case "sasl-first":
      case "sasl-final":
        return this.handlePassword(frame);
      case "ready":
        if (frame[0] === TERMINATE) return this.close();
        if (frame[0] === PARSE) this.notePrepared(frame);
        return this.queue.push({
          connection: this,
          message: this.runtime ? guardRuntimeMessage(new Uint8Array(frame)) : new Uint8Array(frame),
        });
    }
  }

  /** Remembers whether a Parse prepares a ROLLBACK (or ABORT) under its name. */
  private notePrepared(frame: Buffer): void {
    const nameEnd = frame.indexOf(0, 5);
    if (nameEnd < 0) return;
    const name = frame.toString("utf8", 5, nameEnd);
    const queryEnd = frame.indexOf(0, nameEnd + 1);
    if (queryEnd >= 0 && ENDS_FAILED_TRANSACTION.test(frame.toString("utf8", nameEnd + 1, queryEnd))) this.rollbackStatements.add(name);
    else this.rollbackStatements.delete(name);
  }

  private handleStartup(frame: Buffer): void {
    const code = frame.length >= 8 ? frame.readInt32BE(4) : 0;
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      if (this.negotiated.has(code)) return this.refuse("08P01", "encryption requested twice");
      this.negotiated.add(code);
      return this.answer(Buffer.from("N"));
    }
    if (code === CANCEL_REQUEST) return this.close(); // PGlite has no running query to cancel
    if (code !== PROTOCOL_3) return this.refuse("0A000", "unsupported frontend protocol");
    const fields = frame.subarray(8).toString("utf8").split("\0");
    for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === "user") this.user = fields[i + 1];
    this.login = this.loginOf(this.user);
    this.scram = new ScramExchange(this.login.secret);
    this.startup = Buffer.from(frame);
    this.phase = "sasl-first";
    this.answer(authentication(10, Buffer.from("SCRAM-SHA-256\0\0", "latin1"))); // AuthenticationSASL
  }

  private handlePassword(frame: Buffer): void {
    const failed = () => this.refuse("28P01", `password authentication failed for user "${this.user}"`);
    if (frame[0] !== PASSWORD) return failed();
    const body = frame.subarray(5);
    if (this.phase === "sasl-first") {
      const end = body.indexOf(0);
      if (end < 0 || body.subarray(0, end).toString("latin1") !== "SCRAM-SHA-256" || body.length < end + 5) return failed();
      const serverFirst = this.scram!.first(body.subarray(end + 5).toString("utf8"));
      if (!serverFirst) return failed();
      this.phase = "sasl-final";
      return this.answer(authentication(11, Buffer.from(serverFirst, "utf8"))); // AuthenticationSASLContinue
    }
    const serverFinal = this.scram!.final(body.toString("utf8"));
    if (!serverFinal) return failed();
    this.write(authentication(12, Buffer.from(serverFinal, "utf8"))); // AuthenticationSASLFinal
    this.phase = "ready";
    clearTimeout(this.authDeadline);
    this.onAuthenticated(this);
    if (this.closed) return; // refused: the authenticated slots are full
    // PGlite answers the startup with AuthenticationOk, its parameters and ReadyForQuery.
    this.queue.push({ connection: this, message: new Uint8Array(this.startup!), startup: true });
    this.startup = null;
  }
}

/** Runs every connection's messages on the one backend, in turns (see the file comment). */
class BackendQueue {
  private jobs: Job[] = [];
  private running = false;
  /** The connection whose batch or transaction is open on the backend, and whether a batch is. */
  private holder: Connection | null = null;
  private batchOpen = false;
  /** The connection whose turn the backend's settings and role were last reset for (null: none yet, the superuser's). */
  private actingFor: Connection | null = null;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: PGlite,
    private readonly idleInTransactionMs: number,
  ) {}

  push(job: Job): void {
    if (job.connection === this.holder) clearTimeout(this.idleTimer);
    this.jobs.push(job);
    this.kick();
  }

  /** A closed connection's waiting messages are dropped; if it held the backend, it is cleaned up. */
  forget(connection: Connection): void {
    this.jobs = this.jobs.filter((job) => job.connection !== connection);
    this.kick();
  }

  private kick(): void {
    if (!this.running) void this.run();
  }

  private next(): Job | null {
    if (this.holder) {
      const index = this.jobs.findIndex((job) => job.connection === this.holder);
      return index < 0 ? null : this.jobs.splice(index, 1)[0];
    }
    return this.jobs.shift() ?? null;
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      for (;;) {
        if (this.holder?.closed) await this.release();
        const job = this.next();
        if (!job) return this.watchIdle();
        await this.execute(job);
      }
    } finally {
      this.running = false;
    }
  }

  /** The holder sends nothing more for now: if it still has sent nothing when its time is up, its transaction is rolled back. */
  private watchIdle(): void {
    clearTimeout(this.idleTimer);
    const holder = this.holder;
    if (!holder || this.idleInTransactionMs <= 0) return;
    this.idleTimer = setTimeout(() => {
      if (this.holder !== holder || this.running || this.jobs.some((job) => job.connection === holder)) return;
      void this.abortIdle(holder);
    }, this.idleInTransactionMs).unref();
  }

  private async abortIdle(holder: Connection): Promise<void> {
    this.running = true;
    try {
      await this.release();
      holder.idleAborted = true;
      holder.rollbackUnderWay = false;
    } finally {
      this.running = false;
    }
    this.kick();
  }

  /**
   * For a connection whose transaction the idle timeout ended: whether `message` belongs to its ROLLBACK (which
   * then runs, as on a failed transaction, and ends the state at its Sync or at once for a simple Query); any
   * other statement is answered 25P03 (a batch skipped to its Sync), as PostgreSQL answers one in a failed transaction.
   */
  private endsAbortedTransaction(connection: Connection, message: Uint8Array): boolean {
    const type = message[0];
    if (type === SIMPLE_QUERY && ENDS_FAILED_TRANSACTION.test(Buffer.from(message).toString("utf8", 5))) {
      connection.idleAborted = false;
      return true;
    }
    if (!connection.rollbackUnderWay) {
      if (type === PARSE) {
        const nameEnd = message.indexOf(0, 5);
        connection.rollbackUnderWay = nameEnd >= 0 && connection.rollbackStatements.has(Buffer.from(message).toString("utf8", 5, nameEnd));
      } else if (type === BIND) {
        const portalEnd = message.indexOf(0, 5);
        const statementEnd = portalEnd < 0 ? -1 : message.indexOf(0, portalEnd + 1);
        const statement = statementEnd < 0 ? null : Buffer.from(message).toString("utf8", portalEnd + 1, statementEnd);
        connection.rollbackUnderWay = statement !== null && connection.rollbackStatements.has(statement);
      }
    }
    if (connection.rollbackUnderWay) {
      if (type === SYNC) {
        connection.idleAborted = false;
        connection.rollbackUnderWay = false;
      }
      return true;
    }
    if (type === SYNC) {
      connection.write(READY_FAILED);
      return false;
    }
    connection.write(errorResponse("25P03", IDLE_ABORTED, "ERROR"));
    if (type === SIMPLE_QUERY) connection.write(READY_FAILED);
    else connection.skippingToSync = true;
    return false;
  }

  private async execute({ connection, message, startup }: Job): Promise<void> {
    if (connection !== this.actingFor && !(await this.actFor(connection))) return;
    if (connection.skippingToSync) {
      if (message[0] === SYNC) {
        connection.skippingToSync = false;
        connection.write(connection.idleAborted ? READY_FAILED : READY_IDLE);
      }
      return;
    }
    if (connection.idleAborted && !this.endsAbortedTransaction(connection, message)) return;
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(message, { onRawData: (data) => connection.write(Buffer.from(data)) }),
      );
    } catch (error) {
      // The backend's state is unknown: clean it up before anyone's turn, then tell this connection as
      // PostgreSQL tells a failed query (dropping the connection instead would make postgres.js, inside a
      // transaction, write to the closed socket and crash its process).
      this.holder = connection;
      this.batchOpen = true;
      await this.release();
      if (startup) return connection.close(errorResponse("XX000", "internal error in the embedded database"));
      const text = `internal error in the embedded database: ${(error as Error)?.message ?? String(error)}`;
      connection.write(errorResponse("XX000", text, "ERROR"));
      if (message[0] === SYNC || message[0] === SIMPLE_QUERY) connection.write(READY_IDLE);
      else connection.skippingToSync = true;
      return;
    }
    this.batchOpen = !startup && message[0] !== SYNC && message[0] !== SIMPLE_QUERY;
    this.holder = this.batchOpen || this.db.isInTransaction() ? connection : null;
  }

  /**
   * Makes the backend (idle: another connection's turn comes only between batches and transactions) ready for
   * `connection`: every session setting back to its default, and the role of its login; if that fails, the
   * connection is closed rather than run as the wrong role or with another connection's settings.
   */
  private async actFor(connection: Connection): Promise<boolean> {
    try {
      await this.db.exec(connection.runtime ? ACT_AS_RUNTIME : ACT_AS_OWNER);
      this.actingFor = connection;
      return true;
    } catch (error) {
      connection.close(errorResponse("XX000", `the embedded database could not take this login's role: ${(error as Error).message}`));
      return false;
    }
  }

  /**
   * Leaves the backend as a new connection expects it after its holder went away: an unfinished batch
   * or transaction is rolled back (ROLLBACK aborts an implicit or explicit transaction; Sync ends a batch
   * that an error left discarding messages; a last ROLLBACK for a transaction still open).
   */
  private async release(): Promise<void> {
    const discard = { onRawData: () => {} };
    const steps = this.batchOpen ? [simpleQuery("ROLLBACK"), SYNC_MESSAGE] : [];
    try {
      await this.db.runExclusive(async () => {
        for (const step of steps) await this.db.execProtocolRawStream(new Uint8Array(step), discard);
        if (this.db.isInTransaction()) await this.db.execProtocolRawStream(new Uint8Array(simpleQuery("ROLLBACK")), discard);
      });
    } catch {
      // The backend refused even the clean-up: nothing more can be done here; the next query will tell.
    }
    this.holder = null;
    this.batchOpen = false;
  }
}

// The server -----------------------------------------------------------------------------------------

/**
 * The connection the server has waited on longest for its next handshake message (one already closed, whose
 * socket has not yet gone, first): not the oldest, which may be a client with the password mid-handshake.
 */
function longestAwaited(authenticating: Set<Connection>): Connection {
  let longest: Connection | undefined;
  for (const connection of authenticating) {
    if (connection.closed) return connection;
    if (!longest || connection.awaitingSince < longest.awaitingSince) longest = connection;
  }
  return longest!;
}

/** `url` and `password`: the owner login; `runtime`: the runtime login, when served. */
export type SocketServing = {
  url: string;
  port: number;
  password: string;
  runtime?: { url: string; password: string };
  stop(): Promise<void>;
};

export type ServeOptions = {
  /** Authenticated connections beyond this are refused (53300). */
  maxConnections?: number;
  /**
   * Connections still authenticating at once; beyond it a newcomer takes the slot of the one that has kept
   * the server waiting longest.
   */
  maxUnauthenticated?: number;
  /** A connection not authenticated within this is closed (08006). */
  authTimeoutMs?: number;
  /** A connection holding the backend that sends nothing for this long is ended (25P03); 0: never. */
  idleInTransactionMs?: number;
  /** The password clients must prove; a random one when absent. */
  password?: string;
  /** Serve the runtime login too (user RUNTIME_ROLE), with this password. */
  runtimePassword?: string;
};

export function connectionUrl(port: number, password: string, user = "postgres"): string {
  return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres?sslmode=disable`;
}

export const newPassword = () => randomBytes(24).toString("hex");

export async function serveOverSocket(
  db: PGlite,
  {
    maxConnections = 16,
    maxUnauthenticated = MAX_UNAUTHENTICATED,
    authTimeoutMs = AUTH_TIMEOUT_MS,
    idleInTransactionMs = IDLE_IN_TRANSACTION_MS,
    password = newPassword(),
    runtimePassword,
  }: ServeOptions = {},
): Promise<SocketServing> {
  await db.waitReady;
  const logins = new Map<string, Login>([["postgres", { secret: scramSecret(password), runtime: false }]]);
  if (runtimePassword !== undefined) {
    await prepareRuntimeRole(db);
    logins.set(RUNTIME_ROLE, { secret: scramSecret(runtimePassword), runtime: true });
  }
  // Any other user name gets a secret nobody knows: refused like a wrong password, nothing said about names.
  const nobody: Login = { secret: scramSecret(newPassword()), runtime: false };
  const loginOf = (user: string) => logins.get(user) ?? nobody;
  const queue = new BackendQueue(db, idleInTransactionMs);
  const authenticated = new Set<Connection>();
  const authenticating = new Set<Connection>();
  const admitted = (connection: Connection) => {
    authenticating.delete(connection);
    if (authenticated.size >= maxConnections) return connection.close(errorResponse("53300", "sorry, too many clients already"));
    authenticated.add(connection);
  };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    // First of all: a reset by the peer (of any socket, refused ones too) must never be an uncaught error.
    socket.on("error", () => socket.destroy());
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    if (authenticated.size >= maxConnections) {
      socket.end(errorResponse("53300", "sorry, too many clients already"));
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    if (authenticating.size >= maxUnauthenticated) {
      const silentLongest = longestAwaited(authenticating);
      authenticating.delete(silentLongest);
      silentLongest.close(errorResponse("53300", "sorry, too many clients authenticating"));
    }
    const connection = new Connection(socket, loginOf, queue, authTimeoutMs, admitted);
    authenticating.add(connection);
    socket.on("close", () => {
      authenticating.delete(connection);
      authenticated.delete(connection);
    });
  });
  // Errors accepting a connection (e.g. out of file descriptors) concern that connection only.
  server.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1", backlog: LISTEN_BACKLOG }, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: connectionUrl(port, password),
    port,
    password,
    runtime:
      runtimePassword === undefined ? undefined : { url: connectionUrl(port, runtimePassword, RUNTIME_ROLE), password: runtimePassword },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const connection of [...authenticating, ...authenticated]) connection.close();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
