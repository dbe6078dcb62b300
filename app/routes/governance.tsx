/** /governance: proposals by status, their details and results, and signed voting (spec section 2). */
import { useMemo, useState } from "react";
import { Outlet, useParams } from "react-router";
import { listProposals } from "../../db/queries/proposals.server.ts";
import { ProposalList } from "../components/governance/proposal-list.tsx";
import { governancePaths } from "../components/governance/paths.ts";
import type { ProposalView, UserVoteView } from "../components/governance/types.ts";
import { useVotingPower } from "../components/governance/use-vote.ts";
import { VotingPowerBox } from "../components/governance/voting-power-box.tsx";
import { useNow } from "../components/rewards/use-now.ts";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../components/ui/tabs.tsx";
import { proposalStatus, type ProposalStatus } from "../domain/governance.ts";
import { useLiveLoader } from "../lib/use-live-loader.ts";
import { useApiQuery } from "../lib/queries.ts";
import { pageData } from "../utils/pages.server.ts";
import { useWallet } from "../wallet/wallet-context.tsx";
import type { Route } from "./+types/governance";

export const meta: Route.MetaFunction = () => [
  { title: "Spook Governance | Spooks" },
  { name: "description", content: "Vote on Spooks proposals with the voting power of your staked Spooks." },
];

export function loader({ context }: Route.LoaderArgs) {
  return pageData(async () => ({ proposals: await listProposals(context.sql) }));
}

const TABS: { status: ProposalStatus; label: string }[] = [
  { status: "active", label: "Active" },
  { status: "upcoming", label: "Upcoming" },
  { status: "completed", label: "Completed" },
];

export default function GovernancePage({ loaderData }: Route.ComponentProps) {
  // Issue 27, rule 3: the list is read again while the page is shown, and each proposal's status follows the
  // clock: it flips at its start and its end (upcoming → active → completed) on a page left open.
  useLiveLoader();
  const loaded: ProposalView[] = loaderData.proposals;
  const now = useNow(
    30_000,
    useMemo(() => loaded.flatMap((proposal) => [new Date(proposal.startDate).getTime(), new Date(proposal.endDate).getTime()]), [loaded]),
  );
  const proposals = loaded.map((proposal) => ({
    ...proposal,
    status: proposalStatus(new Date(proposal.startDate), new Date(proposal.endDate), now),
  }));
  const wallet = useWallet();
  const address = wallet.connected ? wallet.address : null;
  const power = useVotingPower(address);
  // The holder's votes: each card says "You voted {option}" once voted.
  const votes = useApiQuery<UserVoteView[]>(address ? governancePaths.userVotes(address) : null);
  // A proposal's own address (/governance/{id}, the child route's dialog) opens on its status's tab.
  const params = useParams();
  const [tab, setTab] = useState<string>(() => proposals.find((proposal) => String(proposal.id) === params.id)?.status ?? "active");

  return (
    <div className="grid grid-cols-1 gap-6">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-3xl font-bold tracking-tight text-white sm:text-4xl">Spook Governance</h1>
          <p className="mt-2 max-w-xl text-zinc-400">
            Shape the future of Spooks. Your staked Spooks give you voting power on every proposal.
          </p>
        </div>
        <VotingPowerBox connected={address !== null} power={power} />
      </div>

      <Tabs value={tab} onValueChange={setTab}>
        <TabsList aria-label="Proposals by status">
          {TABS.map(({ status, label }) => (
            <TabsTrigger key={status} value={status}>
              {label} ({proposals.filter((proposal) => proposal.status === status).length})
            </TabsTrigger>
          ))}
        </TabsList>
        {TABS.map(({ status }) => (
          <TabsContent key={status} value={status}>
            <ProposalList
              status={status}
              proposals={proposals.filter((proposal) => proposal.status === status)}
              userVotes={votes.data ?? null}
            />
          </TabsContent>
        ))}
      </Tabs>

      {/* /governance/{id}: the proposal's details dialog (routes/governance-proposal.tsx). */}
      <Outlet />
    </div>
  );
}
