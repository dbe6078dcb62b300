/**
 * `spooks-admin log witness --port P --key FILE --log VKEY` (issue 34, item 5): a C2SP tlog-witness. It keeps
 * its latest checkpoint per origin in a state file (written atomically before it answers), and answers
 * POST /add-checkpoint with its cosignature/v1 once the consistency proof from the one it kept holds; a fork
 * gets 409 (another size) or 422 (a bad proof).
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseVerifierKey, type Signer, type Verifier } from "../app/domain/tlog/note.ts";
import { witnessDecision, type WitnessedCheckpoint } from "../app/domain/tlog/witness.ts";

export type Witness = { url: string; port: number; close(): Promise<void> };

const MAX_BODY = 64 * 1024;

export async function startWitness(options: {
  port: number;
  host?: string;
  key: Signer;
  logs: string[];
  stateFile: string;
  onEvent?: (line: string) => void;
}): Promise<Witness> {
  const logs: Verifier[] = options.logs.map(parseVerifierKey);
  const state: Record<string, WitnessedCheckpoint> = fs.existsSync(options.stateFile)
    ? (JSON.parse(fs.readFileSync(options.stateFile, "utf8")) as Record<string, WitnessedCheckpoint>)
    : {};
  const save = () => {
    fs.writeFileSync(`${options.stateFile}.tmp`, JSON.stringify(state, null, 2));
    fs.renameSync(`${options.stateFile}.tmp`, options.stateFile);
  };
  // One request at a time: each decision reads the state the previous one left.
  let queue = Promise.resolve();
  const server = http.createServer((request, response) => {
    if (request.method !== "POST" || request.url !== "/add-checkpoint") {
      response.writeHead(404, { "Content-Type": "text/plain" }).end("not found\n");
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) request.destroy();
      else chunks.push(chunk);
    });
    request.on("end", () => {
      queue = queue.then(() => {
        const answer = witnessDecision(
          Buffer.concat(chunks).toString("utf8"),
          logs,
          (origin) => state[origin] ?? null,
          options.key,
          Math.floor(Date.now() / 1000),
        );
        if (answer.status === 200) {
          const origin = answer.keep.note.split("\n")[0];
          state[origin] = answer.keep;
          save();
          options.onEvent?.(`cosigned ${origin} at size ${answer.keep.size}`);
        } else {
          options.onEvent?.(`refused (${answer.status}): ${answer.body.trim()}`);
        }
        const type = "contentType" in answer ? answer.contentType : "text/plain; charset=utf-8";
        response.writeHead(answer.status, { "Content-Type": type }).end(answer.body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
