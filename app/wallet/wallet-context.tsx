/**
 * The wallet, for every page: MyDoge detection and connection (DECISIONS "Wallet extension", REAL-WORLD.md
 * "MyDoge", docs/decisions.md "Wallet"), the DOGE
 * balance, the Spook Points balance (GET /api/rewards/{address}, refetched every 30 s while connected,
 * stale after 10 s, and on window focus: `REWARDS_REFRESH`), message signing, and in demo mode the built-in
 * demo wallet. Disconnecting (or another account) drops the wallet's cached queries.
 */
import { useQueryClient } from "@tanstack/react-query";
import { createContext, lazy, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type { DemoWallet } from "../context.ts";
import { DEFAULT_REWARDS, paths, type Rewards } from "../lib/api.ts";
import { REWARDS_REFRESH, REWARDS_STALE_MS, useApiQuery, walletQueries } from "../lib/queries.ts";
import { OpenedOnce } from "../components/ui/opened-once.tsx";
import { toast } from "../components/ui/toast.tsx";
import { createDemoDoge } from "./demo-wallet.ts";
import {
  canSignMessages,
  CONNECTION_LOST_TOAST,
  DETECT_INTERVAL_MS,
  DETECT_TIMEOUT_MS,
  DOGE_INITIALIZED_EVENT,
  detectMyDoge,
  MYDOGE_ERRORS,
  MYDOGE_TIMEOUT_TOAST,
  MyDogeTimeoutError,
  parseKoinu,
  rejectionMessage,
  UPDATE_MYDOGE_TOAST,
  type DogeProvider,
  withinMyDogeTimeout,
} from "./mydoge.ts";

// Demo mode's wallet chooser (a dialog) loads when first asked for: no page needs it for its first paint.
const DemoWalletChooser = lazy(() => import("./demo-wallet-chooser.tsx").then((module) => ({ default: module.DemoWalletChooser })));

/** Success toasts of the wallet button last 5 s (spec section 9). */
const WALLET_TOAST_MS = 5000;

/**
 * A signing failure the wallet has already shown to the holder (the wallet now reads as disconnected,
 * MyDoge must be updated, or it did not answer in time): callers roll back and show nothing more (no
 * 'Signature Cancelled').
 */
export class WalletHandledError extends Error {
  constructor(
    message: string,
    readonly reason: "not-connected" | "cannot-sign" | "timed-out",
  ) {
    super(message);
    this.name = "WalletHandledError";
  }
}

export function isWalletHandledError(error: unknown): error is WalletHandledError {
  return error instanceof WalletHandledError;
}

export type WalletStatus = "detecting" | "no-wallet" | "disconnected" | "connecting" | "connected";

export type WalletState = {
  /** A wallet is available: the MyDoge extension, or in demo mode the built-in demo wallet. */
  hasExtension: boolean;
  connected: boolean;
  /** Detecting, connecting, disconnecting or reading the connection. */
  loading: boolean;
  address: string | null;
  /** DOGE balance in koinu. */
  balance: number;
  /** Spook Points balance (whole points are shown); null until known, and when loading it failed. */
  points: number | null;
  /** Why the points could not be loaded (shown with a retry), or null. */
  pointsError: Error | null;
  /** Connects (asks the wallet); resolves true when connected. Shows the failure toasts itself. */
  connect(options?: { failureDescription?: string }): Promise<boolean>;
  disconnect(): Promise<void>;
  /**
   * Asks the wallet to sign `message`; resolves the signature as the wallet gave it (base64, or 130 hex
   * characters from MyDoge 1.0.1-1.1.1; the server accepts both). Rejects when declined (MyDoge's message),
   * with 'Failed to sign message' when the wallet failed, and with a WalletHandledError (already shown)
   * when the wallet is no longer connected or cannot sign.
   */
  signMessage(message: string): Promise<string>;
  /** Refetches the points (and the rest of the rewards figures); resolves the balance, null when that failed. */
  refreshPoints(): Promise<number | null>;
  /** The connected (or offered) wallet is the built-in demo wallet, not MyDoge. */
  isDemo: boolean;
  status: WalletStatus;
};

const WalletContext = createContext<WalletState | null>(null);

type Provider = { kind: "mydoge" | "demo"; doge: DogeProvider };

/**
 * A call to the provider: MyDoge's within its timeout; the demo wallet's as it is (its chooser is a dialog
 * of this page, which cannot hang).
 */
function timed<T>(provider: Provider, call: Promise<T>): Promise<T> {
  return provider.kind === "mydoge" ? withinMyDogeTimeout(call) : call;
}

function showTimeout(): void {
  toast({ ...MYDOGE_TIMEOUT_TOAST, variant: "destructive", duration: 10_000 });
}

export function WalletProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<WalletStatus>("detecting");
  const [busy, setBusy] = useState(false);
  const [address, setAddress] = useState<string | null>(null);
  const [balance, setBalance] = useState(0);
  const [provider, setProvider] = useState<Provider | null>(null);
  const [chooser, setChooser] = useState<{ wallets: DemoWallet[]; resolve: (wallet: DemoWallet | null) => void } | null>(null);
  const providerRef = useRef<Provider | null>(null);
  const addressRef = useRef<string | null>(null);
  /** True while connect() waits for the wallet (its popup takes focus; the focus re-read must wait). */
  const connectingRef = useRef(false);

  const clearWallet = useCallback(() => {
    if (addressRef.current) queryClient.removeQueries(walletQueries(addressRef.current));
    addressRef.current = null;
    setAddress(null);
    setBalance(0);
  }, [queryClient]);

  const readBalance = useCallback(async (current: Provider) => {
    try {
      const result = await timed(current, current.doge.getBalance());
      setBalance(parseKoinu(result?.balance));
    } catch {
      // balance unknown: keep the last one
    }
  }, []);

  /** Reads the wallet's connection; a rejection means "not connected" (never an error toast). */
  const readConnection = useCallback(
    async (current: Provider) => {
      let connectedAddress: string | null = null;
      try {
        const result = await timed(current, current.doge.getConnectionStatus());
        if (result?.connected && result.address) connectedAddress = result.address;
      } catch {
        connectedAddress = null;
      }
      if (providerRef.current !== current) return;
      if (connectedAddress) {
        if (addressRef.current && addressRef.current !== connectedAddress) clearWallet();
        addressRef.current = connectedAddress;
        setAddress(connectedAddress);
        setStatus("connected");
        await readBalance(current);
      } else {
        clearWallet();
        setStatus("disconnected");
      }
    },
    [clearWallet, readBalance],
  );

  const adoptProvider = useCallback(
    (next: Provider) => {
      providerRef.current = next;
      setProvider(next);
      void readConnection(next);
    },
    [readConnection],
  );

  // Detection: now, every 1 s for up to 5 s (spec), and - since MyDoge creates `window.doge` only at the
  // window's `load` event, which a slow page reaches after those 5 s - at `load` and on the extension's
  // 'doge#initialized' event for the page's whole life.
  useEffect(() => {
    let demoChecked = false;
    let polling = true;
    const started = Date.now();

    const check = () => {
      const doge = detectMyDoge();
      if (doge && providerRef.current?.kind !== "mydoge") {
        // The real extension wins over the demo wallet unless the demo wallet is already connected.
        if (providerRef.current?.kind === "demo" && addressRef.current) return stopPolling();
        adoptProvider({ kind: "mydoge", doge });
        return stopPolling();
      }
      if (doge || Date.now() - started >= DETECT_TIMEOUT_MS) stopPolling();
    };
    const stopPolling = () => {
      if (!polling) return;
      polling = false;
      clearInterval(timer);
      if (!providerRef.current && demoChecked) setStatus("no-wallet");
    };
    // MyDoge's own `load` listener may run after ours: check once more when the event has finished.
    const onLoad = () => {
      check();
      setTimeout(check, 0);
    };

    window.addEventListener(DOGE_INITIALIZED_EVENT, check);
    window.addEventListener("load", onLoad);
    const timer = setInterval(check, DETECT_INTERVAL_MS);
    check();

    if (!providerRef.current) {
      // Demo mode: the server offers its demo wallets (404 outside demo mode).
      void fetch(paths.demoWallets(), { headers: { accept: "application/json" } })
        .then(async (response) => {
          if (response.ok) return ((await response.json()) as { wallets?: DemoWallet[] }).wallets ?? [];
          // Read to its end even when unused: a body left unread keeps the request open in the browser.
          await response.arrayBuffer();
          return [];
        })
        .catch(() => [] as DemoWallet[])
        .then((wallets) => {
          demoChecked = true;
          if (providerRef.current) return;
          if (wallets.length > 0) {
            const choose = () => new Promise<DemoWallet | null>((resolve) => setChooser({ wallets, resolve }));
            adoptProvider({ kind: "demo", doge: createDemoDoge(wallets, choose) });
          } else {
            // No wallet yet: say so now; detection keeps polling and upgrades if MyDoge shows up.
            setStatus("no-wallet");
          }
        });
    }
    return () => {
      clearInterval(timer);
      window.removeEventListener(DOGE_INITIALIZED_EVENT, check);
      window.removeEventListener("load", onLoad);
    };
  }, [adoptProvider]);

  // There is no account-changed event: re-read the connection when the window regains focus.
  useEffect(() => {
    const onFocus = () => {
      const current = providerRef.current;
      if (current && !busy && !connectingRef.current) void readConnection(current);
    };
    window.addEventListener("focus", onFocus);
    return () => window.removeEventListener("focus", onFocus);
  }, [busy, readConnection]);

  const rewardsQuery = useApiQuery<Rewards>(address ? paths.rewards(address) : null, REWARDS_REFRESH);

  const connect = useCallback(
    async ({ failureDescription = "Failed to connect to MyDoge wallet." }: { failureDescription?: string } = {}) => {
      const current = providerRef.current;
      if (!current) {
        toast({
          title: "MyDoge Not Installed",
          description: "Please install the MyDoge wallet extension to continue.",
          variant: "destructive",
        });
        return false;
      }
      setStatus("connecting");
      connectingRef.current = true;
      try {
        const result = await timed(current, current.doge.connect());
        if (!result?.approved || !result.address) throw new Error("Connection not approved");
        addressRef.current = result.address;
        setAddress(result.address);
        setBalance(parseKoinu(result.balance));
        setStatus("connected");
        void readBalance(current);
        toast({ title: "Wallet Connected", description: "Your wallet is connected.", variant: "success", duration: WALLET_TOAST_MS });
        return true;
      } catch (error) {
        setStatus(addressRef.current ? "connected" : "disconnected");
        if (error instanceof MyDogeTimeoutError) showTimeout();
        else toast({ title: "Connection Failed", description: failureDescription, variant: "destructive" });
        return false;
      } finally {
        connectingRef.current = false;
      }
    },
    [readBalance],
  );

  const disconnect = useCallback(async () => {
    const current = providerRef.current;
    if (!current) return;
    setBusy(true);
    try {
      await current.doge.disconnect();
      clearWallet();
      setStatus("disconnected");
      toast({ title: "Wallet Disconnected", description: "Your wallet is disconnected.", variant: "success", duration: WALLET_TOAST_MS });
    } catch (error) {
      toast({
        title: "Disconnection Failed",
        description: (error as Error)?.message || "Failed to disconnect the wallet.",
        variant: "destructive",
      });
    } finally {
      setBusy(false);
    }
  }, [clearWallet]);

  const signMessage = useCallback(
    async (message: string) => {
      const current = providerRef.current;
      if (!current) throw new Error("Wallet not found");
      const { doge } = current;
      if (!canSignMessages(doge)) {
        toast({ ...UPDATE_MYDOGE_TOAST, variant: "destructive", duration: 10_000 });
        throw new WalletHandledError(UPDATE_MYDOGE_TOAST.description, "cannot-sign");
      }
      let result: { signedMessage: string } | undefined;
      try {
        result = await timed(current, doge.requestSignedMessage!({ message }));
      } catch (error) {
        if (error instanceof MyDogeTimeoutError) {
          showTimeout();
          throw new WalletHandledError(error.message, "timed-out");
        }
        const reason = rejectionMessage(error);
        if (reason === MYDOGE_ERRORS.notConnected) {
          // Locked (or the site was disconnected) while asking: the wallet is disconnected, not declined.
          if (providerRef.current === current) {
            clearWallet();
            setStatus("disconnected");
          }
          toast({ ...CONNECTION_LOST_TOAST, variant: "success", duration: WALLET_TOAST_MS });
          throw new WalletHandledError(reason, "not-connected");
        }
        if (reason === MYDOGE_ERRORS.signFailed || reason === MYDOGE_ERRORS.invalidData) {
          throw new Error("Failed to sign message");
        }
        // Declined ('User refused signed message') or its popup closed ('Request rejected by user').
        throw error instanceof Error ? error : new Error(reason || MYDOGE_ERRORS.popupClosed);
      }
      if (!result?.signedMessage) throw new Error("Failed to sign message");
      return result.signedMessage;
    },
    [clearWallet],
  );

  const { refetch: refetchRewards } = rewardsQuery;
  const refreshPoints = useCallback(async () => (await refetchRewards()).data?.unclaimedRewards ?? null, [refetchRewards]);

  const value = useMemo<WalletState>(
    () => ({
      hasExtension: provider !== null,
      connected: status === "connected" && address !== null,
      loading: status === "detecting" || status === "connecting" || busy,
      address: status === "connected" ? address : null,
      balance,
      points: rewardsQuery.data?.unclaimedRewards ?? null,
      pointsError: rewardsQuery.data ? null : rewardsQuery.error,
      connect,
      disconnect,
      signMessage,
      refreshPoints,
      isDemo: provider?.kind === "demo",
      status,
    }),
    [provider, status, address, busy, balance, rewardsQuery.data, rewardsQuery.error, connect, disconnect, signMessage, refreshPoints],
  );

  return (
    <WalletContext.Provider value={value}>
      {children}
      <OpenedOnce open={chooser !== null}>
        <DemoWalletChooser
          wallets={chooser?.wallets ?? []}
          open={chooser !== null}
          onChoose={(wallet) => {
            chooser?.resolve(wallet);
            setChooser(null);
          }}
        />
      </OpenedOnce>
    </WalletContext.Provider>
  );
}

export function useWallet(): WalletState {
  const wallet = useContext(WalletContext);
  if (!wallet) throw new Error("useWallet() must be used inside <WalletProvider>");
  return wallet;
}

/**
 * The connected wallet's rewards figures (unclaimedRewards, dailyRate, rewardTier, stakedCount, totalCount,
 * rank), from the same cache entry the wallet polls. `rewards` is null until the first answer and when the
 * load failed (`error`, with `refetch` to retry): never zeros standing in for an answer (DECISIONS "Errors
 * holders can act on").
 */
export function useRewards(): {
  rewards: Rewards | null;
  isLoading: boolean;
  error: Error | null;
  isFetching: boolean;
  refetch: () => Promise<void>;
} {
  const { address } = useWallet();
  const query = useApiQuery<Rewards>(address ? paths.rewards(address) : null, { staleTime: REWARDS_STALE_MS });
  // A tier of 0 or none reads as the default tier 1 (spec: "default tier 1").
  const rewards = query.data ? { ...query.data, rewardTier: query.data.rewardTier || DEFAULT_REWARDS.rewardTier } : null;
  const { refetch } = query;
  const refetchRewards = useCallback(async () => void (await refetch()), [refetch]);
  return {
    rewards,
    isLoading: query.isLoading && !query.data,
    error: query.data ? null : query.error,
    isFetching: query.isFetching,
    refetch: refetchRewards,
  };
}
