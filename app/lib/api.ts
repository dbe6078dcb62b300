/**
 * The browser's client for /api. A failed call raises the server's `message`, or 'API Error: {status text}'
 * (spec section 7). The shapes are the contract's (app/api/): what the server's answer schemas send.
 */
import type { Rewards } from "../api/holdings.ts";

export type { Rewards, WalletItem, WalletStats, LeaderboardEntry } from "../api/holdings.ts";
export type { StakeResponse, BulkStakeResponse } from "../api/staking.ts";
export type {
  Giveaway,
  GiveawayEntry,
  UserGiveawayEntry,
  EnterGiveawayResponse,
  ClaimPrizeResponse,
  GiveawayClaims,
} from "../api/giveaways.ts";

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly statusText: string,
    readonly body: unknown,
    /** The API path that answered (no query), for the next step of a refusal. */
    readonly path: string | null = null,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The `message` the server answered with, or null when its answer had none (a proxy's 502, HTML). */
  get serverMessage(): string | null {
    const body = this.body as { message?: unknown } | null;
    return body && typeof body === "object" && typeof body.message === "string" && body.message.trim() ? body.message : null;
  }
}

/** Why the server refused, and what the holder can do about it (DECISIONS "Errors holders can act on"). */
export type Refusal = { message: string; nextStep: string | null };

export const NEXT_STEPS = {
  signAgain: "Sign again to retry.",
  reload: "Reload the page to see the current state.",
  signInAgain: "Sign in again.",
  later: "Try again in a moment.",
} as const;

/**
 * The next step a refusal calls for: a refused or expired signature is signed again; a state that changed
 * under the page (a closed giveaway, a vote already cast, a deleted item) needs a reload; a server or
 * network failure, a later try. Input the holder typed wrong needs no step: the message says what to fix.
 */
function nextStepFor(status: number, path: string | null): string | null {
  if (status === 401)
    return path?.startsWith("/api/admin") || path?.startsWith("/api/auth") ? NEXT_STEPS.signInAgain : NEXT_STEPS.signAgain;
  if (status === 403 || status === 404 || status === 409 || status === 410) return NEXT_STEPS.reload;
  if (status === 429 || status >= 500) return NEXT_STEPS.later;
  return null;
}

/**
 * The server's reason behind a failure, found on the error or any error it wraps (`cause`); null when the
 * failure never reached the server or the server gave no `message`.
 */
export function refusalOf(error: unknown): Refusal | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof ApiError) {
      const message = current.serverMessage;
      return message ? { message, nextStep: nextStepFor(current.status, current.path) } : null;
    }
  }
  return null;
}

export type ApiOptions = { method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"; body?: unknown; signal?: AbortSignal };

/** Adds `_t={timestamp}` to GETs, as the spec's calls do, so no cache answers for the server. */
export function withTimestamp(path: string): string {
  return `${path}${path.includes("?") ? "&" : "?"}_t=${Date.now()}`;
}

export async function api<T>(path: string, { method = "GET", body, signal }: ApiOptions = {}): Promise<T> {
  const isForm = typeof FormData !== "undefined" && body instanceof FormData;
  const response = await fetch(method === "GET" ? withTimestamp(path) : path, {
    method,
    signal,
    credentials: "same-origin",
    // Every change is sent as JSON (even with no body): the server refuses other types on cookie routes (415).
    headers:
      method === "GET" || isForm ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
    body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!response.ok) {
    const serverMessage =
      data && typeof data === "object" && typeof (data as { message?: unknown }).message === "string"
        ? (data as { message: string }).message
        : null;
    throw new ApiError(
      serverMessage ?? `API Error: ${response.statusText || response.status}`,
      response.status,
      response.statusText,
      data,
      path.split("?")[0],
    );
  }
  return data as T;
}

export const apiGet = <T>(path: string, signal?: AbortSignal) => api<T>(path, { signal });
export const apiPost = <T>(path: string, body?: unknown) => api<T>(path, { method: "POST", body });

/** What the rewards panel shows before the first answer (and for no wallet). */
export const DEFAULT_REWARDS: Rewards = {
  unclaimedRewards: 0,
  dailyRate: 0,
  rewardTier: 1,
  stakedCount: 0,
  totalCount: 0,
  stakingPercentage: 0,
  stakingSince: null,
  rank: 0,
  currentHour: {
    start: new Date(0).toISOString(),
    creditedAt: new Date(3_600_000).toISOString(),
    stakedCount: 0,
    tier: 1,
    percentSum: 0,
    points: 0,
  },
};

// Paths (the query keys of app/lib/queries.ts are made from them) ---------------------------------------

export const paths = {
  walletItems: (address: string) => `/api/wallet-doginals/${address}`,
  rewards: (address: string) => `/api/rewards/${address}`,
  stats: (address: string) => `/api/stats/${address}`,
  leaderboard: (limit?: number) => (limit ? `/api/leaderboard?limit=${limit}` : "/api/leaderboard"),
  giveaways: () => "/api/giveaways",
  userEntries: (address: string) => `/api/giveaways/entries/user/${address}`,
  demoWallets: () => "/api/demo/wallets",
  boosts: () => "/api/boosts",
};

// The admin team (issue 35) ------------------------------------------------------------------------------

export type { TeamMember, ApprovalEntry, ApprovalsAnswer, ApprovalPolicyAnswer, ApprovedAction, AdminSessionEntry } from "../api/team.ts";

/** The 202 of a change the owner's approval policy covers: nothing changed, a second member's signature applies it. */
export type PendingApproval = { approvalId: number; status: "pending"; summary: string; expiresAt: string };

export function isPendingApproval(answer: unknown): answer is PendingApproval {
  return typeof answer === "object" && answer !== null && (answer as { status?: unknown }).status === "pending" && "approvalId" in answer;
}

export const teamPaths = {
  team: () => "/api/admin/team",
  member: (address: string) => `/api/admin/team/${encodeURIComponent(address)}`,
  approvals: (status?: string) => (status ? `/api/admin/approvals?status=${encodeURIComponent(status)}` : "/api/admin/approvals"),
  policy: () => "/api/admin/approvals/policy",
  approve: (id: number) => `/api/admin/approvals/${id}/approve`,
  reject: (id: number) => `/api/admin/approvals/${id}/reject`,
  sessions: () => "/api/admin/sessions",
  session: (id: string) => `/api/admin/sessions/${encodeURIComponent(id)}`,
};

/** The team's changes, as the admin page makes them (each may answer a PendingApproval where the policy covers it). */
export const teamApi = {
  addMember: (body: { address: string; role: string }) => apiPost<unknown>(teamPaths.team(), body),
  removeMember: (address: string) => api<unknown>(teamPaths.member(address), { method: "DELETE" }),
  setPolicy: (body: { pointsAbove: number | null; actions: string[] }) => api<unknown>(teamPaths.policy(), { method: "PUT", body }),
  approve: (id: number, body: { message: string; signature: string }) => apiPost<unknown>(teamPaths.approve(id), body),
  reject: (id: number) => apiPost<unknown>(teamPaths.reject(id)),
  endSession: (id: string) => api<unknown>(teamPaths.session(id), { method: "DELETE" }),
};
