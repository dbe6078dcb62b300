/**
 * /discord/linked: back from Discord. With `?token=` the wallet signs the link in one click (connecting
 * first if it must); with `?error=` it says what happened (cancelled, expired, used...). 404 when Discord
 * holder roles are not configured.
 */
import { data, Link } from "react-router";
import { useState } from "react";
import { isWalletHandledError, useWallet } from "../wallet/wallet-context.tsx";
import { isLinkFailure, LINK_FAILURES } from "../domain/discord.ts";
import { Refusal } from "../domain/errors.ts";
import { api, ApiError } from "../lib/api.ts";
import type { DiscordLinkStatus } from "../api/discord.ts";
import { Alert, AlertDescription, AlertTitle } from "../components/ui/alert.tsx";
import { Button, Spinner } from "../components/ui/button.tsx";
import { Card } from "../components/ui/card.tsx";
import { pendingLink } from "../utils/discord-link.server.ts";
import { pageData } from "../utils/pages.server.ts";
import NotFound from "./not-found.tsx";
import type { Route } from "./+types/discord-linked";

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export const meta: Route.MetaFunction = () => [{ title: "Link Discord | Spooks" }, { name: "robots", content: "noindex" }];

type Pending = { address: string; discordUserId: string; username: string; message: string };
type LoaderData = { off: true } | { off: false; token: string; pending: Pending | null; failure: string | null };

export async function loader({ request, context }: Route.LoaderArgs) {
  if (!context.config.discord) return data<LoaderData>({ off: true }, { status: 404 });
  const query = new URL(request.url).searchParams;
  const error = query.get("error");
  if (error !== null) {
    return data<LoaderData>({
      off: false,
      token: "",
      pending: null,
      failure: isLinkFailure(error) ? LINK_FAILURES[error] : LINK_FAILURES.invalid,
    });
  }
  const token = query.get("token") ?? "";
  if (!/^[A-Za-z0-9_-]{16,100}$/.test(token))
    return data<LoaderData>({ off: false, token: "", pending: null, failure: LINK_FAILURES.invalid }, { status: 404 });
  try {
    const pending = await pageData(() => pendingLink(request, context, token));
    return data<LoaderData>({ off: false, token, pending, failure: null });
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const failure =
      error.status === 404
        ? LINK_FAILURES.invalid
        : error.status === 403
          ? LINK_FAILURES.browser
          : error.message.includes("used")
            ? LINK_FAILURES.used
            : LINK_FAILURES.expired;
    return data<LoaderData>({ off: false, token, pending: null, failure }, { status: error.status });
  }
}

export default function DiscordLinked({ loaderData }: Route.ComponentProps) {
  if (loaderData.off) return <NotFound />;
  return (
    <section className="mx-auto grid w-full max-w-xl gap-4 py-6">
      <h1 className="text-3xl font-bold tracking-tight text-white">Link Discord</h1>
      {loaderData.failure || !loaderData.pending ? (
        <Alert variant="destructive" data-testid="discord-link-failure">
          <AlertTitle>Nothing was linked</AlertTitle>
          <AlertDescription>{loaderData.failure ?? LINK_FAILURES.invalid}</AlertDescription>
        </Alert>
      ) : (
        <SignLink token={loaderData.token} pending={loaderData.pending} />
      )}
      <Link to="/" className="text-sm text-violet-300 underline-offset-4 hover:underline">
        Back to staking
      </Link>
    </section>
  );
}

function SignLink({ token, pending }: { token: string; pending: Pending }) {
  const wallet = useWallet();
  const [state, setState] = useState<{ kind: "idle" | "busy" | "done" } | { kind: "error"; message: string }>({ kind: "idle" });
  const wrongWallet = wallet.connected && wallet.address !== null && wallet.address !== pending.address;

  const link = async () => {
    setState({ kind: "busy" });
    try {
      if (!wallet.connected && !(await wallet.connect())) return setState({ kind: "idle" });
      const signature = await wallet.signMessage(pending.message);
      await api<DiscordLinkStatus>("/api/discord/link", { method: "POST", body: { linkToken: token, signature } });
      setState({ kind: "done" });
    } catch (error) {
      if (isWalletHandledError(error)) return setState({ kind: "idle" });
      const message = error instanceof ApiError || error instanceof Error ? error.message : "The link failed";
      setState({ kind: "error", message });
    }
  };

  if (state.kind === "done") {
    return (
      <Alert data-testid="discord-linked">
        <AlertTitle>Linked</AlertTitle>
        <AlertDescription>
          {pending.username} is linked to {pending.address}. Your holder roles arrive in Discord within a minute.
        </AlertDescription>
      </Alert>
    );
  }
  return (
    <Card className="grid gap-4 p-6" data-testid="discord-link-confirm">
      <p className="text-zinc-200">
        Link the Discord account <strong className="text-white">{pending.username}</strong> to the wallet{" "}
        <code className="break-all text-violet-200">{pending.address}</code>?
      </p>
      <p className="text-sm text-zinc-400">Your wallet signs this message (nothing is sent to the chain):</p>
      <pre className="overflow-x-auto rounded-lg bg-zinc-900 p-3 text-xs whitespace-pre-wrap text-zinc-300">{pending.message}</pre>
      {wrongWallet && (
        <Alert variant="destructive">
          <AlertDescription>
            The connected wallet is {wallet.address}. Switch to {pending.address} in your wallet to link it.
          </AlertDescription>
        </Alert>
      )}
      {state.kind === "error" && (
        <Alert variant="destructive" data-testid="discord-link-error">
          <AlertDescription>{state.message}</AlertDescription>
        </Alert>
      )}
      <Button onClick={() => void link()} disabled={state.kind === "busy" || !wallet.hasExtension}>
        {state.kind === "busy" && <Spinner />} Sign and link
      </Button>
    </Card>
  );
}
