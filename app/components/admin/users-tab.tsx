/** User Points: bulk maintenance with confirmations, the users table, Add Points and Clear Points. */
import { getFormProps, getInputProps } from "@conform-to/react";
import { useRef, useState } from "react";
import { formatNumber } from "../../domain/format.ts";
import { PointsFigure } from "../ui/points-figure.tsx";
import { DEFAULT_ADJUSTMENT_DESCRIPTION } from "../../domain/validation.ts";
import { CoinsIcon } from "../icons.tsx";
import { ConfirmDialog } from "../ui/alert-dialog.tsx";
import { Button, Spinner } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "../ui/dialog.tsx";
import { Input } from "../ui/input.tsx";
import { FormField } from "./form-field.tsx";
import { addPointsFormSchema, clearPointsFormSchema, recalculatePointsFormSchema, resetNegativeFormSchema } from "./schemas.ts";
import { useAdminForm } from "./use-admin-form.ts";

export type AdminUser = { address: string; totalPoints: number; stakedCount: number };

/** A button that asks first, then submits a one-field conform form. */
function ConfirmedAction({
  id,
  schema,
  intent,
  label,
  busyLabel,
  title,
  description,
  destructive,
  onUnauthorized,
}: {
  id: string;
  schema: typeof recalculatePointsFormSchema | typeof resetNegativeFormSchema;
  intent: string;
  label: string;
  busyLabel: string;
  title: string;
  description: string;
  destructive?: boolean;
  onUnauthorized: () => void;
}) {
  const [open, setOpen] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const { form, busy } = useAdminForm({ id, schema, onUnauthorized });
  return (
    <form ref={formRef} method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value={intent} />
      <Button variant={destructive ? "destructive" : "secondary"} onClick={() => setOpen(true)} disabled={busy}>
        {busy && <Spinner />} {busy ? busyLabel : label}
      </Button>
      <ConfirmDialog
        open={open}
        onOpenChange={setOpen}
        title={title}
        description={description}
        confirmLabel={label}
        destructive={destructive}
        onConfirm={() => formRef.current?.requestSubmit()}
      />
    </form>
  );
}

export function UsersTab({ users, search, onUnauthorized }: { users: AdminUser[]; search: string; onUnauthorized: () => void }) {
  const [addTarget, setAddTarget] = useState<string | null>(null);
  const [clearTarget, setClearTarget] = useState<string | null>(null);
  const clearFormRef = useRef<HTMLFormElement>(null);

  const add = useAdminForm({
    id: "add-points",
    schema: addPointsFormSchema,
    onSuccess: () => setAddTarget(null),
    onUnauthorized,
  });
  const clear = useAdminForm({ id: "clear-points", schema: clearPointsFormSchema, onUnauthorized });

  return (
    <div className="grid grid-cols-1 gap-4">
      <div className="flex flex-wrap gap-2">
        <ConfirmedAction
          id="reset-negative-balances"
          intent="reset-negative-balances"
          schema={resetNegativeFormSchema}
          label="Reset Negative Balances"
          busyLabel="Resetting..."
          title="Reset negative balances?"
          description="Every wallet with a negative balance gets a ledger adjustment bringing it to 0."
          onUnauthorized={onUnauthorized}
        />
        <ConfirmedAction
          id="recalculate-points"
          intent="recalculate-points"
          schema={recalculatePointsFormSchema}
          label="Recalculate All Points"
          busyLabel="Recalculating..."
          title="Recalculate all points?"
          description="Every cached balance is rebuilt from the points ledger. This can take a moment."
          onUnauthorized={onUnauthorized}
        />
      </div>

      <Card className="overflow-hidden">
        <div className="overflow-x-auto">
          <table className="w-full min-w-[40rem] text-left text-sm">
            <caption className="sr-only">Users and their points</caption>
            <thead className="border-b border-zinc-800 bg-zinc-900/80 text-xs tracking-wider text-zinc-400 uppercase">
              <tr>
                <th scope="col" className="px-4 py-3 font-medium">
                  Wallet Address
                </th>
                <th scope="col" className="px-4 py-3 text-right font-medium">
                  Total Points
                </th>
                <th scope="col" className="px-4 py-3 text-right font-medium">
                  Staked Doginals
                </th>
                <th scope="col" className="px-4 py-3 text-right font-medium">
                  Actions
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-800/70">
              {users.length === 0 ? (
                <tr>
                  <td colSpan={4} className="px-4 py-10 text-center text-zinc-400">
                    {search ? "No users found matching search criteria" : "No users with points found"}
                  </td>
                </tr>
              ) : (
                users.map((user) => (
                  <tr key={user.address} className="hover:bg-zinc-900/50" data-testid="user-row">
                    <td className="px-4 py-3 font-mono text-xs break-all text-zinc-200">{user.address}</td>
                    <td className={`px-4 py-3 text-right tabular-nums ${user.totalPoints < 0 ? "text-red-300" : "text-zinc-100"}`}>
                      <PointsFigure value={user.totalPoints} />
                    </td>
                    <td className="px-4 py-3 text-right text-zinc-300 tabular-nums">{formatNumber(user.stakedCount)}</td>
                    <td className="px-4 py-3">
                      <div className="flex justify-end gap-2">
                        <Button
                          size="sm"
                          variant="outline"
                          onClick={() => setAddTarget(user.address)}
                          aria-label={`Add points to ${user.address}`}
                        >
                          <CoinsIcon className="h-3.5 w-3.5" /> Add Points
                        </Button>
                        <Button
                          size="sm"
                          variant="ghost"
                          className="text-red-300 hover:text-red-200"
                          onClick={() => setClearTarget(user.address)}
                          aria-label={`Clear points of ${user.address}`}
                        >
                          Clear Points
                        </Button>
                      </div>
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      </Card>

      <Dialog open={addTarget !== null} onOpenChange={(open) => !open && setAddTarget(null)}>
        <DialogContent className="max-w-md">
          <form method="post" {...getFormProps(add.form)} className="grid grid-cols-1 gap-4">
            <DialogHeader>
              <DialogTitle>Add Points</DialogTitle>
              <DialogDescription className="font-mono text-xs break-all">{addTarget}</DialogDescription>
            </DialogHeader>
            <input type="hidden" name="intent" value="add-points" />
            <input type="hidden" name={add.fields.address.name} value={addTarget ?? ""} />
            <FormField label="Points Amount" field={add.fields.amount}>
              <Input {...getInputProps(add.fields.amount, { type: "number" })} min={1} step="any" placeholder="100" />
            </FormField>
            <FormField label="Description" field={add.fields.description}>
              <Input {...getInputProps(add.fields.description, { type: "text" })} placeholder={DEFAULT_ADJUSTMENT_DESCRIPTION} />
            </FormField>
            <DialogFooter>
              <Button variant="secondary" onClick={() => setAddTarget(null)}>
                Cancel
              </Button>
              <Button type="submit" disabled={add.busy}>
                {add.busy && <Spinner />} {add.busy ? "Adding..." : "Add Points"}
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>

      <form ref={clearFormRef} method="post" {...getFormProps(clear.form)} className="hidden">
        <input type="hidden" name="intent" value="clear-points" />
        <input type="hidden" name={clear.fields.address.name} value={clearTarget ?? ""} />
      </form>
      <ConfirmDialog
        open={clearTarget !== null}
        onOpenChange={(open) => !open && setClearTarget(null)}
        title="Clear points?"
        description={`This brings the balance of ${clearTarget ?? ""} to 0 with a ledger entry.`}
        confirmLabel="Clear Points"
        destructive
        onConfirm={() => clearFormRef.current?.requestSubmit()}
      />
    </div>
  );
}
