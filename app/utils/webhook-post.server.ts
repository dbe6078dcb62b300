/**
 * One webhook POST: no redirect followed (a 3xx is an answer like any other), a hard timeout, the
 * destination checked on the addresses the socket connects to (./public-destination.server.ts), and at
 * most a little of the answer read (what the admin is shown).
 *
 * Connections are kept alive between POSTs (a new one costs about what the POST does): a kept socket is connected
 * to an address its connection checked, so reusing it reaches nothing the check would refuse. Private and public
 * destinations have separate pools (WEBHOOK_ALLOW_PRIVATE differs in what a connection may reach). A kept socket
 * is dropped after 4 s idle, before a receiver's usual 5 s; one the receiver closed anyway is replaced once.
 */
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { guardedLookup, isPublicAddress } from "./public-destination.server.ts";

export type WebhookAnswer = { status: number; headers: Record<string, string>; text: string };

export type WebhookPost = (
  url: string,
  request: { headers: Record<string, string>; body: string; timeoutMs: number; allowPrivate: boolean },
) => Promise<WebhookAnswer>;

/** How much of an answer's body is kept to show the admin. */
const ANSWER_TEXT_LIMIT = 500;

export class WebhookTransportError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const IDLE_SOCKET_MS = 4_000;

/** The kept-alive pools: one per protocol and per `allowPrivate`, each connecting through the guarded lookup. */
const agents = new Map<string, http.Agent>();
function agentFor(protocol: string, allowPrivate: boolean): http.Agent {
  const key = `${protocol}${allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, lookup: guardedLookup(allowPrivate) };
    agent = protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

export const postWebhook: WebhookPost = (url, request) =>
  postOnce(url, request).catch((error: unknown) => {
    // A kept socket the receiver closed meanwhile: the POST never reached it, so it is sent once on a new one.
    if (error instanceof StaleSocketError) return postOnce(url, request);
    throw error;
  });

class StaleSocketError extends WebhookTransportError {}

const postOnce: WebhookPost = (url, { headers, body, timeoutMs, allowPrivate }) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
    // An address written in the URL is never looked up: it is checked here.
    if (net.isIP(host) && !allowPrivate && !isPublicAddress(host)) {
      return reject(new WebhookTransportError(`${host} is not a public address`, "EDESTINATION"));
    }
    const client = target.protocol === "https:" ? https : http;
    const bytes = Buffer.from(body, "utf8");
    const request = client.request(target, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "content-length": String(bytes.length) },
      lookup: guardedLookup(allowPrivate),
      agent: agentFor(target.protocol, allowPrivate),
    });
    const timer = setTimeout(
      () => request.destroy(new WebhookTransportError(`No answer within ${timeoutMs / 1000} s`, "ETIMEDOUT")),
      timeoutMs,
    );
    let answered = false;
    request.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (request.reusedSocket && !answered && error.code === "ECONNRESET")
        return reject(new StaleSocketError(error.message, "ECONNRESET"));
      reject(error instanceof WebhookTransportError ? error : new WebhookTransportError(error.message, error.code ?? "ENETWORK"));
    });
    request.on("response", (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        if (size < ANSWER_TEXT_LIMIT) chunks.push(chunk);
        size += chunk.length;
        // Enough read: the rest of a large answer is not waited for.
        if (size >= ANSWER_TEXT_LIMIT) response.destroy();
      });
      const done = () => {
        clearTimeout(timer);
        const answerHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(", ") : value;
        }
        resolve({
          status: response.statusCode ?? 0,
          headers: answerHeaders,
          text: Buffer.concat(chunks).toString("utf8").slice(0, ANSWER_TEXT_LIMIT),
        });
      };
      response.on("end", done);
      response.on("close", done);
      response.on("error", done);
    });
    request.end(bytes);
  });
