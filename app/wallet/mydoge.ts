/**
 * The MyDoge browser extension as the page sees it (`window.doge`), per DECISIONS "Wallet extension" and
 * the MyDoge section of REAL-WORLD.md (version 1.3.1): the provider is created at the window's `load`
 * event and announced once with `doge#initialized`; its methods live on its prototype (call them on the
 * provider, never detached); popup requests (connect, signing) are served one at a time; failures are
 * rejections whose messages are below. Builds that set only `isMyDogeMask` have no
 * `requestSignedMessage`. The demo wallet (demo-wallet.ts) implements the same interface.
 */
export type DogeConnectResult = { approved: boolean; address: string; publicKey?: string; balance?: string | number };
export type DogeConnectionStatus = { connected: boolean; address: string; selectedWalletAddress?: string };
export type DogeBalance = { address: string; balance: string | number };

export type DogeProvider = {
  isMyDoge?: boolean;
  /** Older builds of the extension. */
  isMyDogeMask?: boolean;
  connect(): Promise<DogeConnectResult>;
  /** Rejects when not connected (treat as disconnected, not as an error). */
  getConnectionStatus(): Promise<DogeConnectionStatus>;
  getBalance(): Promise<DogeBalance>;
  disconnect(): Promise<{ disconnected: boolean }>;
  /** Absent from old `isMyDogeMask` builds. Resolves base64 (1.2+) or 130 hex characters (1.0.1-1.1.1). */
  requestSignedMessage?(request: { message: string }): Promise<{ signedMessage: string }>;
};

/** MyDoge's rejection messages, verbatim (REAL-WORLD.md). */
export const MYDOGE_ERRORS = {
  notConnected: "MyDoge is not connected to this website",
  connectDeclined: "Unable to connect to MyDoge",
  popupClosed: "Request rejected by user",
  signRefused: "User refused signed message",
  signFailed: "Failed to sign message",
  invalidData: "Invalid data",
} as const;

/** Shown instead of a failed signature when the extension cannot sign (old `isMyDogeMask` builds). */
export const UPDATE_MYDOGE_TOAST = {
  title: "Update MyDoge",
  description: "This version of the MyDoge extension cannot sign messages. Update MyDoge to its latest version, then try again.",
} as const;

/** Shown when MyDoge refuses a signature because it is no longer connected to the site (e.g. it locked). */
export const CONNECTION_LOST_TOAST = {
  title: "Wallet Disconnected",
  description: "MyDoge is no longer connected to this website. Connect your wallet again to continue.",
} as const;

/**
 * How long the site waits for a MyDoge popup call (connect, signing) before it stops waiting. After the
 * extension reloads or updates, a call can hang forever and block the calls queued behind it
 * (REAL-WORLD.md); two minutes is far beyond any holder reading a popup.
 */
export const MYDOGE_CALL_TIMEOUT_MS = 2 * 60 * 1000;

/** Shown when a MyDoge call timed out (docs/decisions.md, "MyDoge timeouts"). */
export const MYDOGE_TIMEOUT_TOAST = {
  title: "MyDoge Not Responding",
  description: "MyDoge did not answer for 2 minutes. Reopen MyDoge from your browser's toolbar, then try again.",
} as const;

export class MyDogeTimeoutError extends Error {
  constructor() {
    super(MYDOGE_TIMEOUT_TOAST.description);
    this.name = "MyDogeTimeoutError";
  }
}

/**
 * `call`, or a MyDogeTimeoutError once `ms` have passed. The hung call is left behind (MyDoge offers no
 * way to cancel it), so nothing of ours waits on it any more.
 */
export function withinMyDogeTimeout<T>(call: Promise<T>, ms = MYDOGE_CALL_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new MyDogeTimeoutError()), ms);
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}

/** The message of a rejection (MyDoge rejects with Errors; be lenient with strings and `{ message }` objects). */
export function rejectionMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : "";
}

/** The provider can sign messages (old `isMyDogeMask` builds cannot). */
export function canSignMessages(doge: DogeProvider): boolean {
  return typeof doge.requestSignedMessage === "function";
}

declare global {
  interface Window {
    doge?: DogeProvider;
  }
}

export const MYDOGE_NAME = "MyDoge";
export const MYDOGE_INSTALL_URL = "https://www.mydoge.com/";
export const DOGE_INITIALIZED_EVENT = "doge#initialized";
export const DETECT_INTERVAL_MS = 1000;
export const DETECT_TIMEOUT_MS = 5000;

/** The injected extension, when there is one (current builds: `isMyDoge`; older ones: `isMyDogeMask`). */
export function detectMyDoge(): DogeProvider | null {
  if (typeof window === "undefined") return null;
  const doge = window.doge;
  return doge && (doge.isMyDoge || doge.isMyDogeMask) ? doge : null;
}

/** Balances come as koinu strings or numbers. */
export function parseKoinu(balance: string | number | undefined | null): number {
  const value = typeof balance === "number" ? balance : Number.parseFloat(String(balance ?? "0"));
  return Number.isFinite(value) && value > 0 ? value : 0;
}
