import { Badge } from "../components/ui/badge.tsx";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "../components/ui/dialog.tsx";
import type { DemoWallet } from "../context.ts";
import { shortenAddress } from "../domain/format.ts";

/** Demo mode's stand-in for the extension's approval popup: pick which demo wallet to connect. */
export function DemoWalletChooser({
  wallets,
  open,
  onChoose,
}: {
  wallets: DemoWallet[];
  open: boolean;
  onChoose: (wallet: DemoWallet | null) => void;
}) {
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onChoose(null)}>
      <DialogContent className="max-w-md">
        <DialogHeader>
          <DialogTitle className="flex items-center gap-2">
            Demo wallet <Badge variant="warning">Demo mode</Badge>
          </DialogTitle>
          <DialogDescription>
            No MyDoge extension was found, and this server runs in demo mode. Pick one of its local demo wallets; it signs messages exactly
            as MyDoge does. Demo wallets never exist in production.
          </DialogDescription>
        </DialogHeader>
        <ul className="grid gap-2">
          {wallets.map((wallet) => (
            <li key={wallet.address}>
              <button
                type="button"
                onClick={() => onChoose(wallet)}
                className="flex w-full cursor-pointer items-center justify-between gap-3 rounded-lg border border-zinc-800 bg-zinc-900 px-4 py-3 text-left hover:border-violet-500/60 hover:bg-violet-500/10 focus-visible:outline-2 focus-visible:outline-violet-400"
              >
                <span className="font-medium text-zinc-100">{wallet.label}</span>
                <span className="font-mono text-xs text-zinc-400">{shortenAddress(wallet.address, 6, 6)}</span>
              </button>
            </li>
          ))}
        </ul>
      </DialogContent>
    </Dialog>
  );
}
