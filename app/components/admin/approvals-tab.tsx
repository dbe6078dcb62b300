/**
 * Approvals (issue 35, item 4; docs/admin.md "Approvals"): what the owner's policy holds back for a second
 * signature, and the policy itself. Each pending action shows what it would do (before → after), who asked and
 * when it expires; a different member with the right to do it approves it by signing
 * `Approve Spooks action #{id}: {summary}. Timestamp: {ISO}` with their wallet, which applies it; its proposer
 * may withdraw it, and whoever could approve it may reject it. Reads GET /api/admin/approvals.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { useRevalidator } from "react-router";
import {
  APPROVAL_ACTIONS,
  APPROVAL_KIND_LABELS,
  APPROVAL_PERMISSION,
  approvalMessage,
  type ApprovalAction,
  type ApprovalStatus,
} from "../../domain/approvals.ts";
import { ApiError, teamApi, teamPaths, type ApprovalEntry, type ApprovalsAnswer } from "../../lib/api.ts";
import { queryKeyOf, useApiQuery } from "../../lib/queries.ts";
import { isWalletHandledError, useWallet } from "../../wallet/wallet-context.tsx";
import { Badge, type BadgeVariant } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { Input, Label } from "../ui/input.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { toast } from "../ui/toast.tsx";
import { useAdminRole } from "./role-context.tsx";
import { toastChanged } from "./approval-requested.ts";
import { dateTimeText } from "./team-tab.tsx";

const STATUS_BADGES: Record<ApprovalStatus, BadgeVariant> = {
  pending: "warning",
  approved: "success",
  rejected: "destructive",
  expired: "secondary",
};

const failed = (title: string, error: unknown) =>
  toast({ title, description: error instanceof Error ? error.message : String(error), variant: "destructive" });

export function ApprovalsTab({ onUnauthorized }: { onUnauthorized: () => void }) {
  const approvals = useApiQuery<ApprovalsAnswer>(teamPaths.approvals(), { staleTime: 0, refetchInterval: 15_000 });
  const queryClient = useQueryClient();
  const revalidator = useRevalidator();
  const unauthorized = approvals.error instanceof ApiError && approvals.error.status === 401;
  useEffect(() => {
    if (unauthorized) onUnauthorized();
  }, [unauthorized, onUnauthorized]);
  // An approved action changes what the other tabs show (balances, giveaways): their data and the page's.
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: queryKeyOf("/api/admin") });
    await revalidator.revalidate();
  };

  if (approvals.error && !approvals.data) {
    return <LoadFailed what="the approvals" error={approvals.error} onRetry={approvals.refetch} retrying={approvals.isFetching} />;
  }
  const entries = approvals.data?.entries ?? [];
  const pending = entries.filter((entry) => entry.status === "pending");
  const decided = entries.filter((entry) => entry.status !== "pending");
  return (
    <div className="grid grid-cols-1 gap-4" data-testid="approvals-tab">
      {approvals.data && <PolicyCard policy={approvals.data.policy} onChanged={refresh} />}
      <section className="grid gap-3" aria-labelledby="approvals-pending">
        <h2 id="approvals-pending" className="text-lg font-semibold text-zinc-100">
          Waiting for a second signature
        </h2>
        {pending.length === 0 ? (
          <p className="text-sm text-zinc-400">Nothing waits for approval.</p>
        ) : (
          pending.map((entry) => <ApprovalCard key={entry.id} entry={entry} onChanged={refresh} />)
        )}
      </section>
      {decided.length > 0 && (
        <section className="grid gap-3" aria-labelledby="approvals-decided">
          <h2 id="approvals-decided" className="text-lg font-semibold text-zinc-100">
            Decided and expired
          </h2>
          {decided.map((entry) => (
            <ApprovalCard key={entry.id} entry={entry} onChanged={refresh} />
          ))}
        </section>
      )}
    </div>
  );
}

function PolicyCard({ policy, onChanged }: { policy: ApprovalsAnswer["policy"]; onChanged: () => Promise<void> }) {
  const { can } = useAdminRole();
  const [pointsAbove, setPointsAbove] = useState(policy.pointsAbove === null ? "" : String(policy.pointsAbove));
  const [actions, setActions] = useState<ApprovalAction[]>(policy.actions);
  const [busy, setBusy] = useState(false);
  const off = policy.pointsAbove === null && policy.actions.length === 0;
  const describe = off
    ? "Off: every change applies at once."
    : [policy.pointsAbove === null ? null : `points above ${policy.pointsAbove}`, ...policy.actions].filter(Boolean).join(", ");
  const toggle = (action: ApprovalAction) =>
    setActions((current) => (current.includes(action) ? current.filter((name) => name !== action) : [...current, action]));
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const body = {
        pointsAbove: pointsAbove.trim() === "" ? null : Number(pointsAbove),
        actions: APPROVAL_ACTIONS.filter((name) => actions.includes(name)),
      };
      toastChanged(await teamApi.setPolicy(body), "Policy saved", "Covered changes now wait for a second member's signature.");
      await onChanged();
    } catch (error) {
      failed("Policy not saved", error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card className="grid gap-3 p-4" data-testid="approval-policy">
      <h2 className="text-lg font-semibold text-zinc-100">Second signature</h2>
      <p className="text-sm text-zinc-300">
        <span className="text-zinc-400">Required for: </span>
        <span data-testid="policy-summary">{describe}</span>
      </p>
      {can("team") && (
        <form className="grid gap-3" onSubmit={(event) => void save(event)}>
          <div className="grid max-w-xs gap-1">
            <Label htmlFor="policy-points-above">Points above (blank: no threshold)</Label>
            <Input
              id="policy-points-above"
              inputMode="decimal"
              value={pointsAbove}
              onChange={(event) => setPointsAbove(event.target.value)}
            />
          </div>
          <fieldset className="grid gap-1 sm:grid-cols-2 lg:grid-cols-3">
            <legend className="mb-1 text-sm text-zinc-300">Actions</legend>
            {APPROVAL_ACTIONS.map((action) => (
              <label key={action} className="flex items-center gap-2 text-sm text-zinc-200">
                <input type="checkbox" checked={actions.includes(action)} onChange={() => toggle(action)} />
                {action}
              </label>
            ))}
          </fieldset>
          <Button type="submit" className="justify-self-start" disabled={busy}>
            Save Policy
          </Button>
        </form>
      )}
    </Card>
  );
}

function ApprovalCard({ entry, onChanged }: { entry: ApprovalEntry; onChanged: () => Promise<void> }) {
  const wallet = useWallet();
  const { address, can } = useAdminRole();
  const [busy, setBusy] = useState(false);
  const mine = entry.proposedBy === address;
  const open = entry.status === "pending";
  const mayApprove = open && !mine && can("approve") && can(APPROVAL_PERMISSION[entry.action]);

  const approve = async () => {
    setBusy(true);
    try {
      const message = approvalMessage(entry.id, entry.summary, new Date());
      const signature = await wallet.signMessage(message);
      await teamApi.approve(entry.id, { message, signature });
      toast({ title: "Approved", description: `Action #${entry.id} was applied: ${entry.summary}.`, variant: "success" });
      await onChanged();
    } catch (error) {
      if (!isWalletHandledError(error)) failed("Not approved", error);
    } finally {
      setBusy(false);
    }
  };
  const reject = async () => {
    setBusy(true);
    try {
      await teamApi.reject(entry.id);
      toast({ title: mine ? "Withdrawn" : "Rejected", description: `Action #${entry.id} will not be applied.`, variant: "success" });
      await onChanged();
    } catch (error) {
      failed(mine ? "Not withdrawn" : "Not rejected", error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card className="grid gap-2 p-4" data-testid="approval" data-approval-id={entry.id}>
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="font-semibold text-zinc-100">
          #{entry.id} · {APPROVAL_KIND_LABELS[entry.action]}
        </h3>
        <Badge variant={STATUS_BADGES[entry.status]}>{entry.status}</Badge>
      </div>
      <p className="text-sm text-zinc-200">{entry.summary}</p>
      <p className="text-xs text-zinc-400">
        Proposed by <span className="font-mono">{entry.proposedBy}</span>
        {mine && " (you)"} at {dateTimeText(entry.createdAt)} ·{" "}
        {entry.decidedBy
          ? `${entry.status} by ${entry.decidedBy} at ${dateTimeText(entry.decidedAt ?? entry.createdAt)}`
          : `expires ${dateTimeText(entry.expiresAt)}`}
      </p>
      <div className="grid gap-2 sm:grid-cols-2">
        <Change label="Before" value={entry.preview.before} />
        <Change label="After" value={entry.preview.after} />
      </div>
      {open && (
        <div className="flex flex-wrap items-center gap-2">
          {mayApprove && (
            <Button size="sm" onClick={() => void approve()} disabled={busy}>
              Approve and Sign
            </Button>
          )}
          {(mine || mayApprove) && (
            <Button size="sm" variant="outline" onClick={() => void reject()} disabled={busy}>
              {mine ? "Withdraw" : "Reject"}
            </Button>
          )}
          {mine && <span className="text-xs text-zinc-400">A different member must approve it.</span>}
        </div>
      )}
    </Card>
  );
}

function Change({ label, value }: { label: string; value: unknown }) {
  return (
    <div className="grid gap-1">
      <span className="text-xs tracking-wider text-zinc-400 uppercase">{label}</span>
      <pre className="max-h-48 overflow-auto rounded-lg bg-zinc-950/60 p-2 text-xs break-all whitespace-pre-wrap text-zinc-300">
        {value === null || value === undefined ? "—" : JSON.stringify(value, null, 2)}
      </pre>
    </div>
  );
}
