import type { ComponentProps } from "react";
import { shortenAddress } from "../../domain/format.ts";
import { ChevronDownIcon, WalletIcon } from "../icons.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { cn } from "../ui/cn.ts";

/** The connected wallet's header button: its address (4+4), 'Demo' for the demo wallet; it opens the wallet menu. */
export function WalletMenuButton({
  address,
  isDemo,
  className,
  ...props
}: ComponentProps<"button"> & { address: string; isDemo: boolean }) {
  return (
    <Button
      variant="outline"
      size="responsive"
      className={cn("font-mono", className)}
      // The visible text comes first in the name (WCAG 2.5.3 label in name), then the full address.
      aria-label={`${shortenAddress(address)}${isDemo ? " Demo" : ""}, Wallet ${address}`}
      {...props}
    >
      <WalletIcon className="hidden h-4 w-4 sm:inline" />
      {shortenAddress(address)}
      {isDemo && <Badge variant="warning">Demo</Badge>}
      <ChevronDownIcon className="h-3.5 w-3.5 opacity-70" />
    </Button>
  );
}
