/**
 * The MyDoge browser extension as the page sees it (`window.doge`), per DECISIONS "Wallet extension".
 * The demo wallet (demo-wallet.ts) implements the same interface.
 */
export type DogeConnectResult = { approved: boolean; address: string; publicKey?: string; balance?: string | number };
export type DogeConnectionStatus = { connected: boolean; address: string };
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
  requestSignedMessage(request: { message: string }): Promise<{ signedMessage: string }>;
};

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

/** The injected extension, when there is one. */
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
