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
      // Its name is its visible text (WCAG 2.5.3, label in name): the short address, and 'Demo'. The full
      // address is its description.
      title={`Wallet ${address}`}
      {...props}
    >
      <WalletIcon className="hidden h-4 w-4 sm:inline" />
      {shortenAddress(address)}
      {isDemo && (
        <>
          {" "}
          <Badge variant="warning">Demo</Badge>
        </>
      )}
      <ChevronDownIcon className="h-3.5 w-3.5 opacity-70" />
    </Button>
  );
}
