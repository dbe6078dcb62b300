/**
 * Discord (issue 25, item 6): the holder-role rules (edited, previewed, saved: roles the bot cannot assign
 * are refused with the reason), the linked members with their roles, the last reconciliation sweep, and
 * what Discord refused that a person must fix. Reads and writes /api/admin/discord/* with the admin's session.
 */
import { DateText } from "../governance/date-text.tsx";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { DiscordPreview, DiscordRuleInput, DiscordRulesAnswer, DiscordStatus } from "../../api/discord.ts";
import { describeRule, previewChangeText } from "../../domain/discord.ts";
import { countOf } from "../../domain/format.ts";
import { api, ApiError, isPendingApproval } from "../../lib/api.ts";
import { approvalRequestedText } from "./approval-requested.ts";
import { useAdminRole } from "./role-context.tsx";
import { DiscordCommandsPanel } from "./discord-commands.tsx";
import { queryKeyOf, useApiQuery } from "../../lib/queries.ts";
import { Button, Spinner } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { Input, Label } from "../ui/input.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";

const RULES = "/api/admin/discord/rules";
const STATUS = "/api/admin/discord/status";
const CONDITIONS = [
  ["minStaked", "Min. staked"],
  ["minPoints", "Min. points"],
  ["minLegendary", "Min. Legendary staked"],
  ["minStakedDays", "Min. days staking"],
] as const;

type Row = { roleId: string } & Record<(typeof CONDITIONS)[number][0], string>;

const SELECT_CLASS =
  "h-10 w-full rounded-lg border border-zinc-700 bg-zinc-900 px-3 text-sm text-zinc-100 focus-visible:border-violet-500 focus-visible:outline-2 focus-visible:outline-violet-500/40";

const rowOf = (rule: DiscordRuleInput): Row => ({
  roleId: rule.roleId,
  minStaked: rule.minStaked?.toString() ?? "",
  minPoints: rule.minPoints?.toString() ?? "",
  minLegendary: rule.minLegendary?.toString() ?? "",
  minStakedDays: rule.minStakedDays?.toString() ?? "",
});

function ruleOf(row: Row): DiscordRuleInput {
  const rule: DiscordRuleInput = { roleId: row.roleId };
  for (const [key] of CONDITIONS) if (row[key].trim() !== "") rule[key] = Number(row[key]);
  return rule;
}

export function DiscordTab({ onUnauthorized }: { onUnauthorized: () => void }) {
  const rules = useApiQuery<DiscordRulesAnswer>(RULES, { staleTime: 0, refetchOnWindowFocus: false });
  const status = useApiQuery<DiscordStatus>(STATUS, { staleTime: 0, refetchInterval: 15_000 });
  const queryClient = useQueryClient();
  // The rows being edited; until the first edit, the saved rules.
  const [edited, setRows] = useState<Row[] | null>(null);
  const rows = edited ?? (rules.data ? rules.data.rules.map(rowOf) : null);
  const [preview, setPreview] = useState<DiscordPreview | null>(null);
  const [message, setMessage] = useState<{ kind: "error" | "ok"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const mayChange = useAdminRole().can("discord");
  const unauthorized = [rules.error, status.error].some((error) => error instanceof ApiError && error.status === 401);
  useEffect(() => {
    if (unauthorized) onUnauthorized();
  }, [unauthorized, onUnauthorized]);

  const roles = rules.data?.roles ?? [];
  const roleName = (id: string) => roles.find((role) => role.id === id)?.name ?? id;
  const edit = (index: number, change: Partial<Row>) => {
    if (rows) setRows(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
    setPreview(null);
  };

  const run = async (kind: "preview" | "save") => {
    if (!rows) return;
    setBusy(true);
    setMessage(null);
    try {
      const body = rows.map(ruleOf);
      if (kind === "preview") setPreview(await api<DiscordPreview>("/api/admin/discord/preview", { method: "POST", body }));
      else {
        const saved = await api<unknown>(RULES, { method: "PUT", body });
        setMessage({
          kind: "ok",
          text: isPendingApproval(saved) ? approvalRequestedText(saved) : "Rules saved: members' roles follow within a minute.",
        });
        setPreview(null);
        setRows(null);
        await queryClient.invalidateQueries({ queryKey: queryKeyOf(RULES) });
        await queryClient.invalidateQueries({ queryKey: queryKeyOf(STATUS) });
      }
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) onUnauthorized();
      setMessage({ kind: "error", text: error instanceof Error ? error.message : "Failed" });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="grid grid-cols-1 gap-4" data-testid="discord-tab">
      <Card className="grid gap-3 p-5">
        <h2 className="text-lg font-semibold text-white">Role rules</h2>
        <p className="text-sm text-zinc-400">
          A linked member holds a role while every condition of its rule holds. Leave a condition empty to ignore it.
        </p>
        {rules.error && !unauthorized && (
          <LoadFailed what="the rules" error={rules.error} onRetry={rules.refetch} retrying={rules.isFetching} />
        )}
        {!rows ? (
          <Skeleton className="h-24 w-full rounded-xl" />
        ) : (
          <>
            <p className="text-xs font-medium tracking-wide text-zinc-400 uppercase" data-testid="discord-rules-state">
              {edited === null ? "Saved rules (edit to make a draft)" : "Draft: not saved yet"}
            </p>
            {rules.data?.roles === null && (
              <p className="text-sm text-amber-300">Discord could not be asked for the server's roles; ids are shown.</p>
            )}
            {rows.map((row, index) => (
              <fieldset
                key={index}
                className="grid gap-2 rounded-lg border border-zinc-800 p-3 sm:grid-cols-6"
                aria-label={`Rule ${index + 1}`}
              >
                <div className="grid gap-1 sm:col-span-2">
                  <Label htmlFor={`rule-role-${index}`}>Role</Label>
                  <select
                    id={`rule-role-${index}`}
                    className={SELECT_CLASS}
                    value={row.roleId}
                    onChange={(event) => edit(index, { roleId: event.target.value })}
                  >
                    <option value="">Choose a role</option>
                    {roles.map((role) => (
                      <option key={role.id} value={role.id}>
                        {role.name}
                        {role.assignable ? "" : " (the bot cannot assign it)"}
                      </option>
                    ))}
                    {row.roleId && !roles.some((role) => role.id === row.roleId) && <option value={row.roleId}>{row.roleId}</option>}
                  </select>
                </div>
                {CONDITIONS.map(([key, label]) => (
                  <div key={key} className="grid gap-1">
                    <Label htmlFor={`rule-${key}-${index}`}>{label}</Label>
                    <Input
                      id={`rule-${key}-${index}`}
                      inputMode="numeric"
                      value={row[key]}
                      onChange={(event) => edit(index, { [key]: event.target.value })}
                    />
                  </div>
                ))}
                <Button
                  variant="secondary"
                  className="sm:col-span-6 sm:justify-self-end"
                  onClick={() => setRows(rows.filter((_, at) => at !== index))}
                  hidden={!mayChange}
                >
                  Remove rule
                </Button>
              </fieldset>
            ))}
            <div className="flex flex-wrap gap-2" hidden={!mayChange}>
              <Button
                variant="secondary"
                onClick={() => setRows([...rows, { roleId: "", minStaked: "", minPoints: "", minLegendary: "", minStakedDays: "" }])}
              >
                Add rule
              </Button>
              <Button variant="secondary" onClick={() => void run("preview")} disabled={busy}>
                Preview
              </Button>
              <Button onClick={() => void run("save")} disabled={busy}>
                {busy && <Spinner />} Save rules
              </Button>
            </div>
          </>
        )}
        {message && (
          <p
            role={message.kind === "error" ? "alert" : "status"}
            className={message.kind === "error" ? "text-sm text-red-300" : "text-sm text-emerald-300"}
          >
            {message.text}
          </p>
        )}
        {preview && (
          <div className="grid gap-1 text-sm" data-testid="discord-preview">
            <p className="text-zinc-200">
              If this draft is saved, against the saved rules: {countOf(preview.gain.length, "member")} would gain a role,{" "}
              {countOf(preview.lose.length, "member")} would lose one.
            </p>
            <ul className="max-h-48 overflow-auto text-zinc-400">
              {preview.gain.map((change) => (
                <li key={`+${change.address}${change.roleId}`} title={change.address}>
                  {previewChangeText({ ...change, kind: "gain", roleName: roleName(change.roleId) })}
                </li>
              ))}
              {preview.lose.map((change) => (
                <li key={`-${change.address}${change.roleId}`} title={change.address}>
                  {previewChangeText({ ...change, kind: "lose", roleName: roleName(change.roleId) })}
                </li>
              ))}
            </ul>
          </div>
        )}
        {rules.data && rules.data.rules.length > 0 && (
          <ul className="text-xs text-zinc-500" aria-label="Saved rules">
            {rules.data.rules.map((rule) => (
              <li key={rule.roleId}>
                {roleName(rule.roleId)}: {describeRule(rule)}
              </li>
            ))}
          </ul>
        )}
      </Card>

      <Card className="grid gap-3 p-5">
        <h2 className="text-lg font-semibold text-white">Problems</h2>
        {status.data && status.data.problems.length === 0 && <p className="text-sm text-zinc-400">None: Discord accepts every change.</p>}
        <ul className="grid gap-1" data-testid="discord-problems">
          {status.data?.problems.map((problem) => (
            <li key={`${problem.kind}${problem.roleId}`} role="alert" className="text-sm text-red-300">
              {problem.message} (since <DateText value={problem.since} withTime />)
            </li>
          ))}
        </ul>
        <h2 className="text-lg font-semibold text-white">Last sweep</h2>
        {status.data?.lastSweep ? (
          <p className="text-sm text-zinc-300" data-testid="discord-last-sweep">
            <DateText value={status.data.lastSweep.finishedAt} withTime /> ({status.data.lastSweep.source}): {status.data.lastSweep.members}{" "}
            members, {status.data.lastSweep.difference} roles differed, {status.data.lastSweep.added} added, {status.data.lastSweep.removed}{" "}
            removed, {status.data.lastSweep.absent} not in the server, {status.data.lastSweep.requests} requests.
          </p>
        ) : (
          <p className="text-sm text-zinc-400">No sweep yet.</p>
        )}
      </Card>

      <Card className="grid gap-3 p-5">
        <h2 className="text-lg font-semibold text-white">Linked members ({status.data?.links.length ?? "…"})</h2>
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="discord-links">
            <thead className="text-zinc-500">
              <tr>
                <th className="py-1 pr-3">Wallet</th>
                <th className="py-1 pr-3">Discord</th>
                <th className="py-1 pr-3">Roles</th>
                <th className="py-1">Linked</th>
              </tr>
            </thead>
            <tbody className="text-zinc-300">
              {status.data?.links.slice(0, 200).map((link) => (
                <tr key={link.address} className="border-t border-zinc-800">
                  <td className="py-1 pr-3 font-mono text-xs">{link.address}</td>
                  <td className="py-1 pr-3">
                    {link.username}
                    {!link.inGuild && <span className="text-amber-300"> (not in the server)</span>}
                  </td>
                  <td className="py-1 pr-3">{link.roles.map(roleName).join(", ") || "—"}</td>
                  <td className="py-1">
                    <DateText value={link.linkedAt} withTime />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>

      <DiscordCommandsPanel onUnauthorized={onUnauthorized} />
    </div>
  );
}
