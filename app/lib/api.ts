/**
 * The browser's client for /api. A failed call raises the server's `message`, or 'API Error: {status text}'
 * (spec section 7). Shapes follow the API issue; times are ISO strings.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly statusText: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export type ApiOptions = { method?: "GET" | "POST" | "PATCH" | "DELETE"; body?: unknown; signal?: AbortSignal };

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
    headers: body === undefined || isForm ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
    body: body === undefined ? undefined : isForm ? (body as FormData) : JSON.stringify(body),
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
    throw new ApiError(serverMessage ?? `API Error: ${response.statusText || response.status}`, response.status, response.statusText, data);
  }
  return data as T;
}

export const apiGet = <T>(path: string, signal?: AbortSignal) => api<T>(path, { signal });
export const apiPost = <T>(path: string, body?: unknown) => api<T>(path, { method: "POST", body });

// Shapes ---------------------------------------------------------------------------------------------

export type WalletItem = {
  id: number;
  name: string;
  inscriptionId: string;
  collection: "spooks" | "spook-society" | "unknown";
  imageUrl: string | null;
  rarity: number;
  rarityLabel: string;
  rank: number | null;
  isStaked: boolean;
  stakedAt: string | null;
  rewardRate: number;
};

export type Rewards = {
  unclaimedRewards: number;
  dailyRate: number;
  rewardTier: number;
  stakedCount: number;
  totalCount: number;
  stakingPercentage: number;
  stakingSince: string | null;
  rank: number;
};

export const DEFAULT_REWARDS: Rewards = {
  unclaimedRewards: 0,
  dailyRate: 0,
  rewardTier: 1,
  stakedCount: 0,
  totalCount: 0,
  stakingPercentage: 0,
  stakingSince: null,
  rank: 0,
};

export type WalletStats = { stakedCount: number; totalCount: number; spooksCount: number; societyCount: number };

export type LeaderboardEntry = { address: string; rewards: number };

export type StakeResponse = { success: true; alreadyStaked?: boolean; rewards?: Rewards };
export type BulkStakeResponse = { success: true; count: number; alreadyStaked: number; rewards?: Rewards };

export type Giveaway = {
  id: number;
  title: string;
  description: string;
  imageUrl: string;
  pointsCost: number;
  endDate: string;
  active: boolean;
  winnerAddress: string | null;
  entriesCount: number;
  ticketsCount: number;
  drawCommitment: string;
  drawSeed: string | null;
};

export type GiveawayEntry = {
  id: number;
  giveawayId: number;
  address: string;
  tickets: number;
  enteredAt: string;
  isWinner: boolean;
};

export type UserGiveawayEntry = GiveawayEntry & {
  giveawayTitle: string;
  pointsCost: number;
  endDate: string;
  active: boolean;
};

export type EnterGiveawayResponse = { success: true; entry: GiveawayEntry; rewards?: Rewards };

// Paths (also the cache keys of app/lib/query.ts) ------------------------------------------------------

export const paths = {
  walletItems: (address: string) => `/api/wallet-doginals/${address}`,
  rewards: (address: string) => `/api/rewards/${address}`,
  stats: (address: string) => `/api/stats/${address}`,
  leaderboard: (limit?: number) => (limit ? `/api/leaderboard?limit=${limit}` : "/api/leaderboard"),
  giveaways: () => "/api/giveaways",
  userEntries: (address: string) => `/api/giveaways/entries/user/${address}`,
  demoWallets: () => "/api/demo/wallets",
};
