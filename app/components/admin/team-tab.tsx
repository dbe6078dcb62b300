/**
 * Team (issue 35; docs/admin.md): the owner and the members with their roles, and the live admin sessions. The
 * owner adds a member (address and role), removes one (their sessions end at once) and ends any session; the
 * others see the team and their own sessions. Reads GET /api/admin/team and /api/admin/sessions.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { ASSIGNABLE_ROLES, type AssignableRole } from "../../domain/team.ts";
import { ApiError, teamApi, teamPaths, type AdminSessionEntry, type TeamMember } from "../../lib/api.ts";
import { queryKeyOf, useApiQuery } from "../../lib/queries.ts";
import { ConfirmDialog } from "../ui/alert-dialog.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { Input, Label } from "../ui/input.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { toast } from "../ui/toast.tsx";
import { toastChanged } from "./approval-requested.ts";
import { Can, useAdminRole } from "./role-context.tsx";
import { AdminTable } from "./admin-table.tsx";

const SELECT_CLASS =
  "h-10 w-full rounded-lg border border-zinc-700 bg-zinc-900 px-3 text-sm text-zinc-100 focus-visible:border-violet-500 focus-visible:outline-2 focus-visible:outline-violet-500/40";

/** A moment as the audit tab shows it: UTC, to the minute. */
export const dateTimeText = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

const failed = (title: string, error: unknown) =>
  toast({ title, description: error instanceof Error ? error.message : String(error), variant: "destructive" });

export function TeamTab({ onUnauthorized }: { onUnauthorized: () => void }) {
  const team = useApiQuery<TeamMember[]>(teamPaths.team(), { staleTime: 0 });
  const sessions = useApiQuery<AdminSessionEntry[]>(teamPaths.sessions(), { staleTime: 0 });
  const queryClient = useQueryClient();
  const unauthorized = [team.error, sessions.error].some((error) => error instanceof ApiError && error.status === 401);
  useEffect(() => {
    if (unauthorized) onUnauthorized();
  }, [unauthorized, onUnauthorized]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeyOf("/api/admin") });

  return (
    <div className="grid grid-cols-1 gap-4" data-testid="team-tab">
      <Can permission="team">
        <AddMemberForm onChanged={refresh} />
      </Can>
      {team.error && !team.data ? (
        <LoadFailed what="the team" error={team.error} onRetry={team.refetch} retrying={team.isFetching} />
      ) : (
        <MembersTable members={team.data ?? []} onChanged={refresh} />
      )}
      {sessions.error && !sessions.data ? (
        <LoadFailed what="the sessions" error={sessions.error} onRetry={sessions.refetch} retrying={sessions.isFetching} />
      ) : (
        <SessionsTable sessions={sessions.data ?? []} onChanged={refresh} />
      )}
    </div>
  );
}

function AddMemberForm({ onChanged }: { onChanged: () => Promise<void> }) {
  const [address, setAddress] = useState("");
  const [role, setRole] = useState<AssignableRole>("moderator");
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const answer = await teamApi.addMember({ address: address.trim(), role });
      toastChanged(answer, "Member added", `${address.trim()} is now a ${role}.`);
      setAddress("");
      await onChanged();
    } catch (error) {
      failed("Member not added", error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card className="p-4">
      <form className="grid gap-3 sm:grid-cols-[1fr_12rem_auto] sm:items-end" onSubmit={(event) => void submit(event)}>
        <div className="grid gap-1">
          <Label htmlFor="team-address">Member's wallet address</Label>
          <Input id="team-address" value={address} onChange={(event) => setAddress(event.target.value)} autoComplete="off" required />
        </div>
        <div className="grid gap-1">
          <Label htmlFor="team-role">Role</Label>
          <select id="team-role" className={SELECT_CLASS} value={role} onChange={(event) => setRole(event.target.value as AssignableRole)}>
            {ASSIGNABLE_ROLES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit" disabled={busy}>
          Add Member
        </Button>
      </form>
      <p className="mt-3 text-xs text-zinc-400">
        admin: everything but the team and the approval policy · moderator: giveaways and proposals · viewer: reads every tab, changes
        nothing.
      </p>
    </Card>
  );
}

function MembersTable({ members, onChanged }: { members: TeamMember[]; onChanged: () => Promise<void> }) {
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  const remove = async (member: TeamMember) => {
    try {
      const answer = await teamApi.removeMember(member.address);
      toastChanged(answer, "Member removed", `${member.address} is off the team; their sessions ended.`);
      await onChanged();
    } catch (error) {
      failed("Member not removed", error);
    }
  };
  return (
    <AdminTable
      caption="Admin team"
      captionShown
      columns={["Address", "Role", "Added by", "Added", ""]}
      className="min-w-[40rem]"
      after={
        <ConfirmDialog
          open={removing !== null}
          onOpenChange={(open) => !open && setRemoving(null)}
          title="Remove member?"
          description={removing ? `${removing.address} loses the admin panel now: their sessions end at once.` : undefined}
          confirmLabel="Remove Member"
          destructive
          onConfirm={() => {
            if (removing) void remove(removing);
            setRemoving(null);
          }}
        />
      }
    >
      {members.map((member) => (
        <tr key={member.address} data-testid="team-member">
          <td className="px-4 py-3 font-mono text-xs break-all text-zinc-200">{member.address}</td>
          <td className="px-4 py-3">
            <Badge variant={member.role === "owner" ? "default" : "secondary"}>{member.role}</Badge>
          </td>
          <td className="px-4 py-3 font-mono text-xs break-all text-zinc-400">{member.addedBy ?? "ADMIN_ADDRESS"}</td>
          <td className="px-4 py-3 text-zinc-400">{member.addedAt ? dateTimeText(member.addedAt) : "—"}</td>
          <td className="px-4 py-3 text-right">
            {member.role !== "owner" && (
              <Can permission="team">
                <Button size="sm" variant="destructive" onClick={() => setRemoving(member)} aria-label={`Remove ${member.address}`}>
                  Remove
                </Button>
              </Can>
            )}
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}

function SessionsTable({ sessions, onChanged }: { sessions: AdminSessionEntry[]; onChanged: () => Promise<void> }) {
  const { address, role } = useAdminRole();
  const end = async (session: AdminSessionEntry) => {
    try {
      await teamApi.endSession(session.id);
      toast({ title: "Session ended", description: `${session.address}'s session ${session.id} is over.`, variant: "success" });
      await onChanged();
    } catch (error) {
      failed("Session not ended", error);
    }
  };
  return (
    <AdminTable
      caption={role === "owner" ? "Sessions of every member" : "Your sessions"}
      captionShown
      columns={["Member", "Signed in", "Last seen", "Browser", ""]}
      className="min-w-[48rem]"
    >
      {sessions.map((session) => (
        <tr key={session.id} data-testid="admin-session">
          <td className="px-4 py-3">
            <span className="font-mono text-xs break-all text-zinc-200">{session.address}</span>{" "}
            <span className="text-xs text-zinc-400">{session.role ?? "no longer a member"}</span>
            {session.current && <Badge className="ml-2">this session</Badge>}
          </td>
          <td className="px-4 py-3 text-zinc-400">{dateTimeText(session.createdAt)}</td>
          <td className="px-4 py-3 text-zinc-400">{dateTimeText(session.lastSeenAt)}</td>
          <td className="max-w-[16rem] truncate px-4 py-3 text-xs text-zinc-400" title={session.userAgent ?? undefined}>
            {session.userAgent ?? "—"}
          </td>
          <td className="px-4 py-3 text-right">
            {!session.current && (role === "owner" || session.address === address) && (
              <Button size="sm" variant="outline" onClick={() => void end(session)} aria-label={`End session ${session.id}`}>
                End
              </Button>
            )}
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}
