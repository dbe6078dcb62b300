/**
 * The staking page's "Discord" section (issue 25): link the wallet to a Discord account (off to Discord and
 * back to /discord/linked), unlink it with a signed message, and the holder roles it holds. Which account it is
 * linked to is public to nobody (issue 32, item 4): "Show account" signs a request for it. Nothing shows when
 * Discord holder roles are not configured (the API answers 404).
 */
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { DiscordLinkedAccount, DiscordLinkStatus } from "../../api/discord.ts";
import { DISCORD_SECTION_ID, discordAccountMessage, unlinkMessage } from "../../domain/discord.ts";
import { api, ApiError } from "../../lib/api.ts";
import { queryKeyOf, useApiQuery } from "../../lib/queries.ts";
import { isWalletHandledError, useWallet } from "../../wallet/wallet-context.tsx";
import { Button, buttonClasses, Spinner } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";

export function DiscordSection({ address }: { address: string }) {
  const path = `/api/discord/link/${address}`;
  const status = useApiQuery<DiscordLinkStatus>(path, { staleTime: 10_000, refetchInterval: 30_000 });
  const wallet = useWallet();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [account, setAccount] = useState<DiscordLinkedAccount | null>(null);

  if (status.error instanceof ApiError && status.error.status === 404) return null;
  if (!status.data) return null;

  const unlink = async () => {
    setBusy(true);
    setError(null);
    try {
      const message = unlinkMessage(address, new Date());
      const signature = await wallet.signMessage(message);
      await api("/api/discord/link", { method: "DELETE", body: { address, message, signature } });
      await queryClient.invalidateQueries({ queryKey: queryKeyOf(path) });
    } catch (failure) {
      if (!isWalletHandledError(failure)) setError(failure instanceof Error ? failure.message : "Unlinking failed");
    } finally {
      setBusy(false);
    }
  };

  const showAccount = async () => {
    setBusy(true);
    setError(null);
    try {
      const message = discordAccountMessage(address, new Date());
      const signature = await wallet.signMessage(message);
      setAccount(await api<DiscordLinkedAccount>("/api/discord/account", { method: "POST", body: { address, message, signature } }));
    } catch (failure) {
      if (!isWalletHandledError(failure)) setError(failure instanceof Error ? failure.message : "The account could not be shown");
    } finally {
      setBusy(false);
    }
  };

  const data = status.data;
  return (
    <Card id={DISCORD_SECTION_ID} className="grid scroll-mt-20 gap-3 p-5" data-testid="discord-section">
      <h2 className="text-lg font-semibold text-white">Discord</h2>
      {data.linked ? (
        <>
          {account?.linked ? (
            <p className="text-sm text-zinc-300">
              Linked to <strong className="text-white">{account.username}</strong>.
              {account.inGuild === false && " Join the community's Discord server to receive your roles."}
            </p>
          ) : (
            <p className="text-sm text-zinc-300">
              Linked to a Discord account.{" "}
              <button
                type="button"
                className="text-violet-300 underline-offset-4 hover:underline"
                onClick={() => void showAccount()}
                disabled={busy}
              >
                Show account
              </button>{" "}
              <span className="text-zinc-500">(your wallet signs: only you see which account)</span>
            </p>
          )}
          <div>
            <p className="text-xs tracking-wide text-zinc-500 uppercase">Your roles</p>
            {data.roles && data.roles.length > 0 ? (
              <ul className="mt-1 flex flex-wrap gap-2" aria-label="Your Discord roles">
                {data.roles.map((role) => (
                  <li key={role.roleId} className="rounded-full bg-violet-600/25 px-3 py-1 text-xs text-violet-100">
                    {role.name}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="mt-1 text-sm text-zinc-400">No holder roles yet: staking earns them.</p>
            )}
          </div>
          <Button variant="secondary" onClick={() => void unlink()} disabled={busy}>
            {busy && <Spinner />} Unlink Discord
          </Button>
        </>
      ) : (
        <>
          <p className="text-sm text-zinc-300">
            Link your Discord account to get holder roles in the community's server, kept in step within a minute.
          </p>
          <a className={buttonClasses()} href={`/discord/link?address=${encodeURIComponent(address)}`}>
            Link Discord
          </a>
        </>
      )}
      {error && (
        <p role="alert" className="text-sm text-red-300">
          {error}
        </p>
      )}
    </Card>
  );
}
