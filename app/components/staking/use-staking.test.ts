import { describe, expect, test } from "vitest";
import { ApiError } from "../../lib/api.ts";
import { stakeRequestError } from "./use-staking.ts";

describe("stake and unstake call errors (spec sections 7 and 8)", () => {
  test("a non-OK reply raises 'Staking failed: {status text}' / 'Unstaking failed: {status text}'", () => {
    const conflict = new ApiError("You do not own this Spook", 409, "Conflict", { message: "You do not own this Spook" });
    const staking = stakeRequestError("stake", conflict);
    expect(staking.message).toBe("Staking failed: Conflict");
    expect(staking.cause).toBe(conflict);
    expect(stakeRequestError("unstake", new ApiError("x", 400, "Bad Request", null)).message).toBe("Unstaking failed: Bad Request");
  });

  test("without a status text (HTTP/2) the status code stands in", () => {
    expect(stakeRequestError("stake", new ApiError("x", 503, "", null)).message).toBe("Staking failed: 503");
  });

  test("other errors (no reply at all) pass unchanged", () => {
    const network = new TypeError("Failed to fetch");
    expect(stakeRequestError("stake", network)).toBe(network);
  });
});
