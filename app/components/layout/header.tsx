import { Link, NavLink, useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "../../root.tsx";
import { useWallet } from "../../wallet/wallet-context.tsx";
import { ChatIcon, GhostIcon, GlobeIcon, XLogoIcon } from "../icons.tsx";
import { cn } from "../ui/cn.ts";
import { NAV_LINKS, SOCIAL_LINKS, TAGLINE } from "./links.ts";
import { NotificationBell } from "./notification-bell.tsx";
import { WalletButton, WalletPanel } from "./wallet-button.tsx";

const SOCIAL_ICONS = { globe: GlobeIcon, x: XLogoIcon, chat: ChatIcon } as const;

const navLinkClasses = ({ isActive }: { isActive: boolean }) =>
  cn(
    "rounded-lg px-3 py-2 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-violet-400",
    isActive ? "bg-violet-600/20 text-violet-100" : "text-zinc-400 hover:bg-zinc-800/70 hover:text-white",
  );

/** True when the connected wallet is on the admin team (the owner or a member of any role): the header then links to /admin. */
function useIsTeamWallet(): boolean {
  const wallet = useWallet();
  const team = useRouteLoaderData<typeof rootLoader>("root")?.teamAddresses ?? [];
  return wallet.connected && wallet.address !== null && team.includes(wallet.address);
}

export function Header() {
  const isAdmin = useIsTeamWallet();
  return (
    <header className="relative z-40 border-b sm:sticky sm:top-0 border-violet-500/15 bg-zinc-950/85 backdrop-blur-md">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-3 gap-y-3 sm:gap-x-6 px-4 py-3 sm:px-6">
        <Link to="/" className="group flex items-center gap-2.5 rounded-lg focus-visible:outline-2 focus-visible:outline-violet-400">
          <span className="grid h-9 w-9 place-items-center rounded-xl sm:h-10 sm:w-10 bg-gradient-to-br from-violet-500 to-fuchsia-700 text-white shadow-lg shadow-violet-900/50">
            <GhostIcon className="h-6 w-6" />
          </span>
          <span className="leading-tight">
            <span className="block text-lg font-bold tracking-tight text-white">Spooks</span>
            <span className="block text-xs text-violet-300/80">{TAGLINE}</span>
          </span>
        </Link>

        <nav aria-label="Main" className="order-3 flex w-full items-center gap-1 sm:order-none sm:w-auto">
          {NAV_LINKS.map((link) => (
            <NavLink key={link.to} to={link.to} end={link.to === "/"} className={navLinkClasses}>
              {link.label}
            </NavLink>
          ))}
          {isAdmin && (
            <NavLink to="/admin" className={navLinkClasses}>
              Admin
            </NavLink>
          )}
        </nav>

        <div className="ml-auto flex items-center gap-2 sm:gap-3">
          <WalletPanel className="hidden lg:flex" />
          <ul className="hidden items-center gap-1 md:flex" aria-label="Community links">
            {SOCIAL_LINKS.map((link) => {
              const LinkIcon = SOCIAL_ICONS[link.icon];
              return (
                <li key={link.href}>
                  <a
                    href={link.href}
                    target="_blank"
                    rel="noopener noreferrer"
                    aria-label={link.label}
                    title={link.label}
                    className="grid h-9 w-9 place-items-center rounded-lg text-zinc-400 hover:bg-zinc-800 hover:text-violet-200 focus-visible:outline-2 focus-visible:outline-violet-400"
                  >
                    <LinkIcon />
                  </a>
                </li>
              );
            })}
          </ul>
          <NotificationBell />
          <WalletButton />
        </div>
      </div>
      <WalletPanel className="mx-auto max-w-7xl justify-end px-4 pb-3 sm:px-6 lg:hidden" />
    </header>
  );
}
