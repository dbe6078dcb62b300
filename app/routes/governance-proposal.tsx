/**
 * /governance/{id}: a proposal's own address. Its details dialog opens over the proposals list (the parent
 * route), on direct load and reload too; closing it goes back to /governance. An id no proposal has is a
 * 404 (the dialog says so).
 */
import { useMemo } from "react";
import { data, isRouteErrorResponse, Link, useNavigate, useRouteError } from "react-router";
import { listProposals } from "../../db/queries/proposals.server.ts";
import { ProposalDialog } from "../components/governance/proposal-dialog.tsx";
import { useNow } from "../components/rewards/use-now.ts";
import { Button } from "../components/ui/button.tsx";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "../components/ui/dialog.tsx";
import { proposalStatus } from "../domain/governance.ts";
import { pageData } from "../utils/pages.server.ts";
import type { Route } from "./+types/governance-proposal";

export function loader({ params, context }: Route.LoaderArgs) {
  return pageData(async () => {
    const id = /^[1-9]\d{0,9}$/.test(params.id) ? Number(params.id) : null;
    const [proposal] = id !== null && id <= 2_147_483_647 ? await listProposals(context.sql, undefined, [id]) : [];
    if (!proposal) throw data("Proposal not found", { status: 404 });
    return { proposal };
  });
}

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData ? `${loaderData.proposal.title} | Spook Governance | Spooks` : "Proposal not found | Spooks" },
  { name: "description", content: "A Spooks governance proposal: its voting window, results and votes." },
];

const LIST = "/governance";

export default function ProposalRoute({ loaderData }: Route.ComponentProps) {
  const navigate = useNavigate();
  // Issue 27, rule 3: the status follows the clock (upcoming → active → completed) on a dialog left open.
  const loaded = loaderData.proposal;
  const boundaries = useMemo(() => [new Date(loaded.startDate).getTime(), new Date(loaded.endDate).getTime()], [loaded]);
  const now = useNow(30_000, boundaries);
  const proposal = { ...loaded, status: proposalStatus(new Date(loaded.startDate), new Date(loaded.endDate), now) };
  return <ProposalDialog proposal={proposal} onClose={() => void navigate(LIST, { preventScrollReset: true })} />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const navigate = useNavigate();
  if (!isRouteErrorResponse(error) || error.status !== 404) throw error;
  return (
    <Dialog open onOpenChange={(open) => !open && void navigate(LIST, { preventScrollReset: true })}>
      <DialogContent className="max-w-md">
        <DialogHeader>
          <DialogTitle>Proposal not found</DialogTitle>
          <DialogDescription>No proposal has this address. It may have been deleted.</DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button asChild>
            <Link to={LIST}>All proposals</Link>
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
