/**
 * The API client's refusals (DECISIONS "Errors holders can act on"): the server's `message` travels with
 * the error, through any error that wraps it, with the next step its status calls for. `fetch` is replaced
 * by a stand-in answering real `Response`s (the end-to-end tests cover the real server).
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { stakeRequestError } from "../components/staking/use-staking.ts";
import { api, ApiError, NEXT_STEPS, refusalOf } from "./api.ts";

function answer(status: number, statusText: string, body: string, type = "application/json") {
  vi.stubGlobal("fetch", () => Promise.resolve(new Response(body, { status, statusText, headers: { "content-type": type } })));
}

afterEach(() => vi.unstubAllGlobals());

async function refusalFrom(path: string): Promise<unknown> {
  return api(path, { method: "POST", body: {} }).then(
    () => expect.unreachable("the call should have failed"),
    (error: unknown) => error,
  );
}

describe("refusalOf", () => {
  test("an expired signature: the server's message, and 'sign again'", async () => {
    answer(401, "Unauthorized", JSON.stringify({ message: "The signed message has expired" }));
    const error = await refusalFrom("/api/stake");
    expect(error).toBeInstanceOf(ApiError);
    expect(refusalOf(error)).toEqual({ message: "The signed message has expired", nextStep: NEXT_STEPS.signAgain });
  });

  test("found through a wrapping error (the stake call's 'Staking failed: {status text}')", async () => {
    answer(409, "Conflict", JSON.stringify({ message: "This giveaway is closed" }));
    const wrapped = stakeRequestError("stake", await refusalFrom("/api/giveaways/enter?x=1"));
    expect(wrapped.message).toBe("Staking failed: Conflict");
    expect(refusalOf(wrapped)).toEqual({ message: "This giveaway is closed", nextStep: NEXT_STEPS.reload });
  });

  test("the next step follows the status: sign in again on admin and auth paths, later on 5xx, none on bad input", async () => {
    answer(401, "Unauthorized", JSON.stringify({ message: "Sign in first" }));
    expect(refusalOf(await refusalFrom("/api/admin/audit"))?.nextStep).toBe(NEXT_STEPS.signInAgain);
    expect(refusalOf(await refusalFrom("/api/auth/session"))?.nextStep).toBe(NEXT_STEPS.signInAgain);
    answer(503, "Service Unavailable", JSON.stringify({ message: "Busy" }));
    expect(refusalOf(await refusalFrom("/api/stake"))).toEqual({ message: "Busy", nextStep: NEXT_STEPS.later });
    answer(400, "Bad Request", JSON.stringify({ message: "Tickets must be a whole number of at least 1" }));
    expect(refusalOf(await refusalFrom("/api/giveaways/enter"))?.nextStep).toBeNull();
  });

  test("no reason without a server message: an HTML error page, an empty message, a network failure", async () => {
    answer(502, "Bad Gateway", "<html>proxy</html>", "text/html");
    const proxy = await refusalFrom("/api/stake");
    expect((proxy as Error).message).toBe("API Error: Bad Gateway");
    expect(refusalOf(proxy)).toBeNull();
    answer(500, "Internal Server Error", JSON.stringify({ message: "  " }));
    expect(refusalOf(await refusalFrom("/api/stake"))).toBeNull();
    expect(refusalOf(new TypeError("Failed to fetch"))).toBeNull();
    expect(refusalOf("not an error")).toBeNull();
  });
});
