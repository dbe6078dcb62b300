/**
 * /notifications: a holder's notification settings (issue 33, item 9), reached from the bell and the wallet menu:
 * where notifications show (the bell, always) and the email form (app/components/notifications), and the
 * Discord link where the site offers one.
 */
import { ConnectWalletPrompt } from "../components/layout/connect-wallet-prompt.tsx";
import { DiscordSection } from "../components/discord/discord-section.tsx";
import { EmailNotifications } from "../components/notifications/email-notifications.tsx";
import { useWallet } from "../wallet/wallet-context.tsx";
import type { Route } from "./+types/notification-settings";

export const meta: Route.MetaFunction = () => [
  { title: "Notification settings | Spooks" },
  { name: "description", content: "Choose where your Spooks notifications go: the bell, email, Discord." },
];

export default function NotificationSettings() {
  const wallet = useWallet();
  return (
    <section className="mx-auto grid w-full max-w-2xl gap-4 py-2">
      <div>
        <h1 className="text-3xl font-bold tracking-tight text-white">Notification settings</h1>
        <p className="mt-1 text-zinc-400">
          The bell in the header lists every notification for your wallet. Here you choose what else reaches you.
        </p>
      </div>
      {wallet.connected && wallet.address ? (
        <>
          <EmailNotifications />
          <DiscordSection address={wallet.address} />
        </>
      ) : (
        <ConnectWalletPrompt description="Connect your wallet to choose where its notifications go." />
      )}
    </section>
  );
}
