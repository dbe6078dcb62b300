import { useEffect, useState } from "react";
import { formatDoge, formatPoints, shortenAddress } from "../../domain/format.ts";
import { useWallet } from "../../wallet/wallet-context.tsx";
import { MYDOGE_INSTALL_URL, MYDOGE_NAME } from "../../wallet/mydoge.ts";
import { Badge } from "../ui/badge.tsx";
import { Button, Spinner } from "../ui/button.tsx";
import { cn } from "../ui/cn.ts";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "../ui/dropdown-menu.tsx";
import { CheckIcon, ChevronDownIcon, CopyIcon, LogOutIcon, WalletIcon } from "../icons.tsx";

const COPIED_MS = 2000;

/**
 * Header wallet button: 'Install MyDoge' (disabled) with no extension, 'Connect Wallet', a spinner while
 * loading, and once connected the address (4+4) opening a menu to copy it (✓ for 2 s) or disconnect.
 */
export function WalletButton({ className }: { className?: string }) {
  const wallet = useWallet();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  if (wallet.connected && wallet.address) {
    const address = wallet.address;
    return (
      // Not modal: a menu leaves the page readable (a modal one hides it all with aria-hidden, focusable content included).
      <DropdownMenu modal={false}>
        <DropdownMenuTrigger asChild>
          <Button
            variant="outline"
            size="responsive"
            className={cn("font-mono", className)}
            // The visible text comes first in the name (WCAG 2.5.3 label in name), then the full address.
            aria-label={`${shortenAddress(address)}${wallet.isDemo ? " Demo" : ""}, Wallet ${address}`}
          >
            <WalletIcon className="hidden h-4 w-4 sm:inline" />
            {shortenAddress(address)}
            {wallet.isDemo && <Badge variant="warning">Demo</Badge>}
            <ChevronDownIcon className="h-3.5 w-3.5 opacity-70" />
          </Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent>
          <DropdownMenuLabel className="font-mono break-all">{address}</DropdownMenuLabel>
          <DropdownMenuSeparator />
          <DropdownMenuItem
            onSelect={(event) => {
              event.preventDefault();
              void navigator.clipboard?.writeText(address).then(
                () => setCopied(true),
                () => setCopied(false),
              );
            }}
          >
            {copied ? <CheckIcon className="h-4 w-4 text-emerald-400" /> : <CopyIcon />}
            {copied ? "Copied!" : "Copy Address"}
          </DropdownMenuItem>
          <DropdownMenuItem disabled={wallet.loading} onSelect={() => void wallet.disconnect()}>
            <LogOutIcon />
            Disconnect
          </DropdownMenuItem>
        </DropdownMenuContent>
      </DropdownMenu>
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
      <div className="rounded-lg border border-violet-500/30 bg-violet-500/10 px-3 py-1.5">
        <span className="font-semibold text-violet-200" data-testid="points-balance">
          {formatPoints(wallet.points)}
        </span>{" "}
        <span className="text-zinc-400">Spook Points</span>
      </div>
    </div>
  );
}
