import { QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { Outlet } from "react-router";
import { Footer } from "../components/layout/footer.tsx";
import { Header } from "../components/layout/header.tsx";
import { LogMismatchBanner } from "../components/layout/log-status.tsx";
import { MAIN_ID, SkipLink } from "../components/layout/skip-link.tsx";
import { Toaster } from "../components/ui/toast.tsx";
import { createQueryClient } from "../lib/queries.ts";
import { WalletProvider } from "../wallet/wallet-context.tsx";

/** The shell of every page: data cache, wallet, header, the page, footer, toasts (the statistics are the staking page's). */
export default function Layout() {
  // One cache for the page's life (a new one per server render, which never fetches).
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <WalletProvider>
        <div className="flex min-h-screen flex-col">
          <SkipLink />
          <LogMismatchBanner />
          <Header />
          <main id={MAIN_ID} tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 focus:outline-none sm:px-6">
            <Outlet />
          </main>
          <Footer />
        </div>
        <Toaster />
      </WalletProvider>
    </QueryClientProvider>
  );
}
