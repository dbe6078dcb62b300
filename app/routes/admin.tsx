/**
 * /admin: the admin panel. The page data comes only from an admin session (signed challenge + cookie);
 * every form posts to this route's action, which checks the session, parses the form with its shared
 * schema and calls db/queries with the web actor (spec section 2 "Admin panel", DECISIONS "Admin").
 */
import { parseWithZod } from "@conform-to/zod/v4";
import { data, useNavigation, useRevalidator, useSearchParams } from "react-router";
import { useCallback, useEffect, useState } from "react";
import { auditActions as listAuditActions } from "../../db/queries/audit.server.ts";
import { listGiveaways } from "../../db/queries/giveaways.server.ts";
import { blockIntervalMs } from "../domain/giveaways.ts";
import { listUsers } from "../../db/queries/points.server.ts";
import { listProposals } from "../../db/queries/proposals.server.ts";
import { teamAddresses } from "../../db/queries/team.server.ts";
import { refusalFor } from "../domain/team.ts";
import { INTENT_REQUIREMENTS } from "../components/admin/permissions.ts";
import { errorToast, runAdminIntent } from "../components/admin/admin-actions.server.ts";
import { AuditTab } from "../components/admin/audit-tab.tsx";
import { BoostsTab } from "../components/admin/boosts-tab.tsx";
import { DiscordTab } from "../components/admin/discord-tab.tsx";
import { GiveawaysTab } from "../components/admin/giveaways-tab.tsx";
import { NotificationsTab } from "../components/admin/notifications-tab.tsx";
import { ProposalsTab } from "../components/admin/proposals-tab.tsx";
import { adminFormSchema, isAdminIntent, validationTitle, type AdminActionData } from "../components/admin/schemas.ts";
import { firstError } from "../components/admin/use-admin-form.ts";
import { useAdminAccess } from "../components/admin/use-admin-access.ts";
import { UsersTab } from "../components/admin/users-tab.tsx";
import { ApprovalsTab } from "../components/admin/approvals-tab.tsx";
import { AdminRoleProvider } from "../components/admin/role-context.tsx";
import { SignedInAs } from "../components/admin/signed-in-as.tsx";
import { TeamTab } from "../components/admin/team-tab.tsx";
import { ShieldIcon } from "../components/icons.tsx";
import { Alert, AlertDescription, AlertTitle } from "../components/ui/alert.tsx";
import { Button, Spinner } from "../components/ui/button.tsx";
import { Card } from "../components/ui/card.tsx";
import { Input } from "../components/ui/input.tsx";
import { Skeleton } from "../components/ui/skeleton.tsx";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../components/ui/tabs.tsx";
import { Refusal } from "../domain/errors.ts";
import { pictureOrigins } from "../domain/image-hosts.ts";
import { requireAdmin, sessionMember } from "../utils/auth.server.ts";
import { pageData } from "../utils/pages.server.ts";
import { useWallet } from "../wallet/wallet-context.tsx";
import type { Route } from "./+types/admin";

/** The panel shows private data: never stored by a browser or a shared cache. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export const meta: Route.MetaFunction = () => [{ title: "Admin Panel | Spooks" }, { name: "robots", content: "noindex" }];

// A database outage answers 503 with the reason (app/utils/pages.server.ts), for the page and its forms.
export const loader = (args: Route.LoaderArgs) => pageData(() => load(args));
export const action = (args: Route.ActionArgs) => pageData(() => act(args));

async function load({ request, context }: Route.LoaderArgs) {
  const adminAddress = context.config.adminAddress;
  // The team's addresses (the owner's first) tell the page, before any admin call, whether a wallet may sign in.
  const [member, members] = await Promise.all([sessionMember(request, context), teamAddresses(context.sql, adminAddress)]);
  if (!member?.role) return { adminAddress, members, signedIn: null, role: null, panel: null };
  const signedIn = member.address;
  const search = new URL(request.url).searchParams.get("q")?.trim() ?? "";
  const [users, giveaways, proposals, auditActions] = await Promise.all([
    listUsers(context.sql, { search }),
    listGiveaways(context.sql, blockIntervalMs(context.config)),
    listProposals(context.sql),
    listAuditActions(context.sql),
  ]);
  return {
    adminAddress,
    members,
    signedIn,
    role: member.role,
    panel: { search, users, giveaways, proposals, discord: context.config.discord !== undefined, auditActions },
  };
}

async function act({ request, context }: Route.ActionArgs) {
  let actor;
  try {
    // The forms post here as form data; requireAdmin also refuses a foreign Origin/Referer (403).
    actor = await requireAdmin(request, context, "form");
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return data<AdminActionData>(
      {
        intent: null,
        ok: false,
        unauthorized: true,
        toast: { title: "Unauthorized", description: error.message, variant: "destructive" },
      },
      { status: error.status },
    );
  }
  const formData = await request.formData();
  const intent = formData.get("intent");
  if (!isAdminIntent(intent)) {
    return data<AdminActionData>(
      { intent: null, ok: false, toast: { title: "Invalid input", description: "Unknown admin action", variant: "destructive" } },
      { status: 400 },
    );
  }
  // The role is judged before the form: a moderator learns nothing from how a points form would have been read.
  const refusal = refusalFor(actor.role, INTENT_REQUIREMENTS[intent]);
  if (refusal) return data<AdminActionData>({ intent, ok: false, toast: errorToast(intent, refusal) }, { status: 403 });
  const submission = parseWithZod(formData, { schema: adminFormSchema(intent, pictureOrigins(context.config)) });
  if (submission.status !== "success") {
    const message = firstError(submission.error) ?? "Invalid input";
    return data<AdminActionData>(
      {
        intent,
        ok: false,
        result: submission.reply(),
        toast: { title: validationTitle(message), description: message, variant: "destructive" },
      },
      { status: 400 },
    );
  }
  try {
    const toast = await runAdminIntent(context.sql, submission.value, actor, context.config);
    return data<AdminActionData>({ intent, ok: true, result: submission.reply({ resetForm: true }), toast });
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return data<AdminActionData>(
      { intent, ok: false, result: submission.reply({ formErrors: [error.message] }), toast: errorToast(intent, error.message) },
      { status: error.status },
    );
  }
}

function PageTitle() {
  return (
    <div className="flex items-center gap-3">
      <span className="grid size-11 place-items-center rounded-xl bg-violet-600/25 text-violet-200">
        <ShieldIcon className="h-5 w-5" />
      </span>
      <div>
        <h1 className="text-3xl font-bold tracking-tight text-white">Admin Panel</h1>
        <p className="text-sm text-zinc-400">Points, giveaways and governance</p>
      </div>
    </div>
  );
}

function Gate({ children }: { children: React.ReactNode }) {
  return <Card className="mx-auto mt-2 grid max-w-xl gap-4 p-6 text-center">{children}</Card>;
}

export default function AdminPage({ loaderData }: Route.ComponentProps) {
  const wallet = useWallet();
  const revalidator = useRevalidator();
  const access = useAdminAccess({ members: loaderData.members, signedIn: loaderData.signedIn });
  const onUnauthorized = useCallback(() => void revalidator.revalidate(), [revalidator]);

  let body: React.ReactNode;
  if (access.view === "loading") {
    body = <Skeleton className="mx-auto h-40 w-full max-w-xl rounded-xl" />;
  } else if (access.view === "disconnected") {
    body = (
      <Gate>
        <p className="text-zinc-300">Please connect your wallet to access the admin panel</p>
        {wallet.hasExtension && (
          <Button className="justify-self-center" onClick={() => void wallet.connect()} disabled={wallet.loading}>
            Connect Wallet
          </Button>
        )}
      </Gate>
    );
  } else if (access.view === "forbidden") {
    body = (
      <Alert variant="destructive" className="mx-auto max-w-xl">
        <AlertTitle>Access denied</AlertTitle>
        <AlertDescription>You don't have permission to access this admin panel</AlertDescription>
      </Alert>
    );
  } else if (access.view === "sign-in" || !loaderData.panel) {
    const signingIn = access.view === "sign-in" && access.signingIn;
    body = (
      <Gate>
        <p className="font-medium text-zinc-100">Admin sign-in</p>
        <p className="text-sm text-zinc-400">
          Sign the one-time sign-in message in your wallet to open the admin panel. Nothing is sent to the chain.
        </p>
        <Button className="justify-self-center" onClick={() => access.view === "sign-in" && void access.signIn()} disabled={signingIn}>
          {signingIn && <Spinner />} {signingIn ? "Signing in..." : "Sign In"}
        </Button>
      </Gate>
    );
  } else {
    body = (
      <AdminRoleProvider value={{ address: loaderData.signedIn ?? "", role: loaderData.role ?? "viewer" }}>
        <AdminPanel panel={loaderData.panel} onUnauthorized={onUnauthorized} />
      </AdminRoleProvider>
    );
  }

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageTitle />
      {body}
    </div>
  );
}

type Panel = NonNullable<Route.ComponentProps["loaderData"]["panel"]>;

const SEARCH_DELAY_MS = 300;

function AdminPanel({ panel, onUnauthorized }: { panel: Panel; onUnauthorized: () => void }) {
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const [, setSearchParams] = useSearchParams();
  const [search, setSearch] = useState(panel.search);

  useEffect(() => {
    if (search.trim() === panel.search) return;
    const timer = setTimeout(() => {
      setSearchParams(search.trim() ? { q: search.trim() } : {}, { replace: true, preventScrollReset: true });
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search, panel.search, setSearchParams]);

  const refreshing = revalidator.state === "loading" || navigation.state === "loading";

  return (
    <div className="grid grid-cols-1 gap-4">
      <SignedInAs />
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
        <label htmlFor="admin-user-search" className="sr-only">
          Search users by address
        </label>
        <Input
          id="admin-user-search"
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          placeholder="Search users by address..."
          className="sm:max-w-md"
          autoComplete="off"
        />
        <Button variant="secondary" onClick={() => void revalidator.revalidate()} disabled={refreshing} className="sm:ml-auto">
          {refreshing && <Spinner />} Refresh Data
        </Button>
      </div>
      <Tabs defaultValue="points">
        <TabsList aria-label="Admin sections">
          <TabsTrigger value="points">User Points</TabsTrigger>
          <TabsTrigger value="giveaways">Giveaways</TabsTrigger>
          <TabsTrigger value="governance">Governance</TabsTrigger>
          <TabsTrigger value="notifications">Notifications</TabsTrigger>
          {panel.discord && <TabsTrigger value="discord">Discord</TabsTrigger>}
          <TabsTrigger value="audit">Audit</TabsTrigger>
          <TabsTrigger value="boosts">Boosts</TabsTrigger>
          <TabsTrigger value="team">Team</TabsTrigger>
          <TabsTrigger value="approvals">Approvals</TabsTrigger>
        </TabsList>
        <TabsContent value="points">
          <UsersTab users={panel.users} search={panel.search} onUnauthorized={onUnauthorized} />
        </TabsContent>
        <TabsContent value="giveaways">
          <GiveawaysTab giveaways={panel.giveaways} onUnauthorized={onUnauthorized} />
        </TabsContent>
        <TabsContent value="governance">
          <ProposalsTab proposals={panel.proposals} onUnauthorized={onUnauthorized} />
        </TabsContent>
        <TabsContent value="notifications">
          <NotificationsTab onUnauthorized={onUnauthorized} />
        </TabsContent>
        {panel.discord && (
          <TabsContent value="discord">
            <DiscordTab onUnauthorized={onUnauthorized} />
          </TabsContent>
        )}
        <TabsContent value="audit">
          <AuditTab onUnauthorized={onUnauthorized} logActions={panel.auditActions} />
        </TabsContent>
        <TabsContent value="boosts">
          <BoostsTab />
        </TabsContent>
        <TabsContent value="team">
          <TeamTab onUnauthorized={onUnauthorized} />
        </TabsContent>
        <TabsContent value="approvals">
          <ApprovalsTab onUnauthorized={onUnauthorized} />
        </TabsContent>
      </Tabs>
    </div>
  );
}
