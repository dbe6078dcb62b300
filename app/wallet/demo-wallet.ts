/**
 * Demo mode only: an in-page wallet with MyDoge's interface that signs with a demo key the server generated
 * (GET /api/demo/wallets answers only when the server runs in demo mode; never in production).
 * Signatures are made exactly as MyDoge makes them (app/domain/signature.ts, Bitcoin magic). The signing
 * code is loaded only when a demo signature is asked for, so normal visitors never download it.
 */
import type { DemoWallet } from "../context.ts";
import { MYDOGE_ERRORS, type DogeProvider } from "./mydoge.ts";

const STORAGE_KEY = "spooks.demoWallet";
/** The demo chain has no coin balances; the panel shows this so the layout looks as it will. */
export const DEMO_BALANCE_KOINU = 100_000_000_000;

function stored(wallets: DemoWallet[]): DemoWallet | null {
  try {
    const address = window.localStorage.getItem(STORAGE_KEY);
    return wallets.find((wallet) => wallet.address === address) ?? null;
  } catch {
    return null;
  }
}

function store(address: string | null) {
  try {
    if (address) window.localStorage.setItem(STORAGE_KEY, address);
    else window.localStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage may be unavailable (private mode); the connection then lasts for the page only
  }
}

/**
 * `choose` plays the extension's approval popup: it resolves the wallet the visitor picked, or null when
 * they closed it (connect then rejects as MyDoge does when its popup is closed). Rejections use MyDoge's
 * own messages, so the page treats both wallets alike.
 */
export function createDemoDoge(wallets: DemoWallet[], choose: () => Promise<DemoWallet | null>): DogeProvider {
  let current: DemoWallet | null = stored(wallets);
  return {
    isMyDoge: false,
    async connect() {
      const wallet = wallets.length === 1 ? wallets[0] : await choose();
      if (!wallet) throw new Error(MYDOGE_ERRORS.popupClosed);
      current = wallet;
      store(wallet.address);
      return { approved: true, address: wallet.address, balance: DEMO_BALANCE_KOINU };
    },
    async getConnectionStatus() {
      if (!current) throw new Error(MYDOGE_ERRORS.notConnected);
      return { connected: true, address: current.address, selectedWalletAddress: current.address };
    },
    async getBalance() {
      if (!current) throw new Error(MYDOGE_ERRORS.notConnected);
      return { address: current.address, balance: DEMO_BALANCE_KOINU };
    },
    async disconnect() {
      current = null;
      store(null);
      return { disconnected: true };
    },
    async requestSignedMessage({ message }) {
      if (!message) throw new Error(MYDOGE_ERRORS.invalidData);
      if (!current) throw new Error(MYDOGE_ERRORS.notConnected);
      const [{ signMessage }, { hexToBytes }] = await Promise.all([import("../domain/signature.ts"), import("@noble/hashes/utils.js")]);
      return { signedMessage: signMessage(hexToBytes(current.privateKeyHex), message) };
    },
  };
}
