/**
 * The connected wallet's menu (radix DropdownMenu, with its positioning library): copy the address (✓ for
 * 2 s) or disconnect. Loaded only once a wallet is connected (wallet-button.tsx), so `/` does not ship it
 * for its first paint.
 */
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { useWallet } from "../../wallet/wallet-context.tsx";
import { BellIcon, CheckIcon, CopyIcon, LogOutIcon } from "../icons.tsx";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "../ui/dropdown-menu.tsx";
import { WalletMenuButton } from "./wallet-menu-button.tsx";

const COPIED_MS = 2000;

export function WalletMenu({
  address,
  open,
  onOpenChange,
  className,
}: {
  address: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  className?: string;
}) {
  const wallet = useWallet();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  return (
    // Not modal: a menu leaves the page readable (a modal one hides it all with aria-hidden, focusable content included).
    <DropdownMenu modal={false} open={open} onOpenChange={onOpenChange}>
      <DropdownMenuTrigger asChild>
        <WalletMenuButton address={address} isDemo={wallet.isDemo} className={className} />
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
        <DropdownMenuItem asChild>
          <Link to="/notifications">
            <BellIcon />
            Notification settings
          </Link>
        </DropdownMenuItem>
        <DropdownMenuItem disabled={wallet.loading} onSelect={() => void wallet.disconnect()}>
          <LogOutIcon />
          Disconnect
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
