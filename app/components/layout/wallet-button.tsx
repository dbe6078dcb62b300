import { lazy, Suspense, useState } from "react";
import { formatDoge } from "../../domain/format.ts";
import { PointsFigure } from "../ui/points-figure.tsx";
import { useWallet } from "../../wallet/wallet-context.tsx";
import { MYDOGE_INSTALL_URL, MYDOGE_NAME } from "../../wallet/mydoge.ts";
import { Button, Spinner } from "../ui/button.tsx";
import { cn } from "../ui/cn.ts";
import { LoadFailed } from "../ui/load-failed.tsx";
import { WalletIcon } from "../icons.tsx";
import { WalletMenuButton } from "./wallet-menu-button.tsx";

// The menu and its positioning library load once a wallet is connected, not with the page.
const WalletMenu = lazy(() => import("./wallet-menu.tsx").then((module) => ({ default: module.WalletMenu })));

/**
 * Header wallet button: 'Install MyDoge' (disabled) with no extension, 'Connect Wallet', a spinner while
 * loading, and once connected the address (4+4) opening a menu to copy it (✓ for 2 s) or disconnect.
 */
export function WalletButton({ className }: { className?: string }) {
  const wallet = useWallet();
  const [menuOpen, setMenuOpen] = useState(false);
  // A menu left open when the wallet went away stays closed for the next connection.
  if (!wallet.connected && menuOpen) setMenuOpen(false);

  if (wallet.connected && wallet.address) {
    // Until the menu has loaded the same button stands in; a click on it opens the menu once loaded.
    const standIn = (
      <WalletMenuButton address={wallet.address} isDemo={wallet.isDemo} className={className} onClick={() => setMenuOpen(true)} />
    );
    return (
      <Suspense fallback={standIn}>
        <WalletMenu address={wallet.address} open={menuOpen} onOpenChange={setMenuOpen} className={className} />
      </Suspense>
    );
  }

  if (wallet.loading) {
    return (
      <Button size="responsive" disabled className={className} aria-busy="true">
        <Spinner label="Loading wallet" />
        <span className="sr-only">Loading wallet</span>
      </Button>
    );
  }

  if (!wallet.hasExtension) {
    return (
      <Button size="responsive" disabled className={className}>
        <WalletIcon className="hidden h-4 w-4 sm:inline" />
        Install {MYDOGE_NAME}
      </Button>
    );
  }

  return (
    <Button size="responsive" className={className} onClick={() => void wallet.connect()}>
      <WalletIcon className="hidden h-4 w-4 sm:inline" />
      Connect Wallet
    </Button>
  );
}

/** The pages' link to install the extension (the header button is disabled instead). */
export function InstallWalletLink({ className }: { className?: string }) {
  return (
    <Button asChild size="lg" className={className}>
      <a href={MYDOGE_INSTALL_URL} target="_blank" rel="noopener noreferrer">
        <WalletIcon /> Install {MYDOGE_NAME}
      </a>
    </Button>
  );
}

/** DOGE balance (2 decimals) and Spook Points of the connected wallet. */
export function WalletPanel({ className }: { className?: string }) {
  const wallet = useWallet();
  if (!wallet.connected) return null;
  return (
    <div role="group" className={cn("flex items-center gap-2 text-sm", className)} aria-label="Wallet balances">
      <div className="rounded-lg border border-zinc-800 bg-zinc-900/80 px-3 py-1.5">
        <span className="font-semibold text-amber-300" data-testid="doge-balance">
          {formatDoge(wallet.balance)}
        </span>{" "}
        <span className="text-zinc-400">DOGE</span>
      </div>
      {wallet.pointsError ? (
        <LoadFailed compact what="Spook Points" error={wallet.pointsError} onRetry={() => wallet.refreshPoints()} />
      ) : (
        <div className="rounded-lg border border-violet-500/30 bg-violet-500/10 px-3 py-1.5">
          {wallet.points === null ? (
            <span className="font-semibold text-violet-200" data-testid="points-balance">
              …
            </span>
          ) : (
            <PointsFigure value={wallet.points} className="font-semibold text-violet-200" data-testid="points-balance" />
          )}{" "}
          <span className="text-zinc-400">Spook Points</span>
        </div>
      )}
    </div>
  );
}
