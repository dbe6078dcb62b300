/**
 * Who may see the admin panel, from the browser's side (the server checks the session on every call):
 * - no wallet connected → ask to connect;
 * - a wallet that is not on the admin team (the owner, ADMIN_ADDRESS, and the members the owner added: the
 *   page's `members`) → 'Unauthorized' toast once, no admin call at all;
 * - a member's wallet without a session → sign the server's one-time challenge once
 *   (GET /api/auth/challenge, POST /api/auth/session), then reload the page data from the session;
 * - a member's wallet disconnected here → DELETE /api/auth/session.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { useRevalidator } from "react-router";
import { api, apiGet, apiPost } from "../../lib/api.ts";
import { isWalletHandledError, useWallet } from "../../wallet/wallet-context.tsx";
import { toastFailure } from "../ui/failure-toast.ts";
import { toast } from "../ui/toast.tsx";

export type AdminAccess =
  | { view: "loading" }
  | { view: "disconnected" }
  | { view: "forbidden" }
  | { view: "sign-in"; signingIn: boolean; signIn: () => Promise<void> }
  | { view: "admin"; address: string };

export function useAdminAccess({ members, signedIn }: { members: readonly string[]; signedIn: string | null }): AdminAccess {
  const wallet = useWallet();
  const revalidator = useRevalidator();
  const [signingIn, setSigningIn] = useState(false);
  const attempted = useRef<string | null>(null);
  const warned = useRef<string | null>(null);
  const address = wallet.connected ? wallet.address : null;
  const isAdminWallet = address !== null && members.includes(address);
  const hasSession = isAdminWallet && signedIn === address;

  const signIn = useCallback(async () => {
    if (!address) return;
    setSigningIn(true);
    try {
      // The cookie is SameSite=Strict: a visit from a link on another site loads the page without it, though
      // the session is valid. This same-site call carries it; only without a session is the wallet asked.
      const current = await apiGet<{ address: string | null }>("/api/auth/session");
      if (current.address === address) {
        await revalidator.revalidate();
        return;
      }
      const challenge = await apiGet<{ message: string }>(`/api/auth/challenge?address=${encodeURIComponent(address)}`);
      const signature = await wallet.signMessage(challenge.message);
      await apiPost("/api/auth/session", { address, message: challenge.message, signature });
      await revalidator.revalidate();
    } catch (error) {
      // Already shown by the wallet (now disconnected, or MyDoge must be updated).
      if (isWalletHandledError(error)) return;
      toastFailure({ title: "Sign-in failed", description: "The admin sign-in was not completed." }, error);
    } finally {
      setSigningIn(false);
    }
  }, [address, wallet, revalidator]);

  // The admin wallet is asked to sign once per connection; after that, only on request.
  useEffect(() => {
    if (!isAdminWallet || hasSession || !address || attempted.current === address) return;
    attempted.current = address;
    void signIn();
  }, [isAdminWallet, hasSession, address, signIn]);

  useEffect(() => {
    if (!address || isAdminWallet || warned.current === address) return;
    warned.current = address;
    toast({ title: "Unauthorized", description: "This wallet is not the admin wallet.", variant: "destructive" });
  }, [address, isAdminWallet]);

  // Disconnecting the admin wallet here also ends the admin session (a shared computer keeps nothing).
  const previous = useRef<string | null>(null);
  useEffect(() => {
    const was = previous.current;
    previous.current = address;
    if (address) return;
    attempted.current = null;
    if (was !== null && members.includes(was) && signedIn === was && wallet.status === "disconnected") {
      void api("/api/auth/session", { method: "DELETE" })
        .catch(() => {})
        .then(() => revalidator.revalidate());
    }
  }, [address, members, signedIn, wallet.status, revalidator]);

  if (!wallet.connected && (wallet.status === "detecting" || wallet.status === "connecting")) return { view: "loading" };
  if (!address) return { view: "disconnected" };
  if (!isAdminWallet) return { view: "forbidden" };
  if (!hasSession) return { view: "sign-in", signingIn: signingIn || revalidator.state === "loading", signIn };
  return { view: "admin", address };
}
