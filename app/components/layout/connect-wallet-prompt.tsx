import { useWallet } from "../../wallet/wallet-context.tsx";
import { WalletIcon } from "../icons.tsx";
import { Alert, AlertDescription, AlertTitle } from "../ui/alert.tsx";
import { Button } from "../ui/button.tsx";
import { Skeleton } from "../ui/skeleton.tsx";
import { InstallWalletLink } from "./wallet-button.tsx";

/** A page's "Connect Wallet" alert, saying what connecting shows, with the connect button (or the install link). */
export function ConnectWalletPrompt({ description }: { description: string }) {
  const wallet = useWallet();
  return (
    <>
      <Alert>
        <AlertTitle>Connect Wallet</AlertTitle>
        <AlertDescription>{description}</AlertDescription>
      </Alert>
      <div className="flex justify-center">
        {wallet.status === "detecting" ? (
          <Skeleton className="h-12 w-48" />
        ) : wallet.hasExtension ? (
          <Button
            size="lg"
            disabled={wallet.loading}
            onClick={() => void wallet.connect({ failureDescription: "Failed to connect to MyDoge wallet. Please try again." })}
          >
            <WalletIcon /> Connect Wallet
          </Button>
        ) : (
          <InstallWalletLink />
        )}
      </div>
    </>
  );
}
