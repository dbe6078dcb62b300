/** User Points: bulk maintenance with confirmations, the users table, Add Points and Clear Points. */
import { getFormProps, getInputProps } from "@conform-to/react";
import { useRef, useState } from "react";
import { formatNumber, formatPointsExact } from "../../domain/format.ts";
import { PointsFigure } from "../ui/points-figure.tsx";
import { DEFAULT_ADJUSTMENT_DESCRIPTION } from "../../domain/validation.ts";
import { CoinsIcon } from "../icons.tsx";
import { ConfirmDialog } from "../ui/alert-dialog.tsx";
import { useAdminRole } from "./role-context.tsx";
import { Button, Spinner } from "../ui/button.tsx";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "../ui/dialog.tsx";
import { Input } from "../ui/input.tsx";
import { AdminTable, AdminTableNote } from "./admin-table.tsx";
import { FormField } from "./form-field.tsx";
import { addPointsFormSchema, clearPointsFormSchema, recalculatePointsFormSchema, resetNegativeFormSchema } from "./schemas.ts";
import { useAdminForm } from "./use-admin-form.ts";

export type AdminUser = { address: string; totalPoints: number; stakedCount: number; dailyRate: number };

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
  const [clearTarget, setClearTarget] = useState<AdminUser | null>(null);

  const add = useAdminForm({
    id: "add-points",
    schema: addPointsFormSchema,
    onSuccess: () => setAddTarget(null),
    onUnauthorized,
  });
  const clear = useAdminForm({
    id: "clear-points",
    schema: clearPointsFormSchema,
    onSuccess: () => setClearTarget(null),
    onUnauthorized,
  });
  // Each member sees only the buttons their role may use (issue 35).
  const mayChange = useAdminRole().can("points");

  return (
    <div className="grid grid-cols-1 gap-4">
      <div className="flex flex-wrap gap-2" hidden={!mayChange}>
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

      <AdminTable
        caption="Users and their points"
        columns={[
          "Wallet Address",
          { header: "Total Points", className: "text-right" },
          { header: "Staked Doginals", className: "text-right" },
          { header: "Per Day", className: "text-right" },
          { header: "Actions", className: "text-right" },
        ]}
        className="min-w-[40rem]"
      >
        {users.length === 0 ? (
          <AdminTableNote colSpan={5}>{search ? "No users found matching search criteria" : "No users with points found"}</AdminTableNote>
        ) : (
          users.map((user) => (
            <tr key={user.address} className="hover:bg-zinc-900/50" data-testid="user-row">
              <td className="px-4 py-3 font-mono text-xs break-all text-zinc-200">{user.address}</td>
              <td className={`px-4 py-3 text-right tabular-nums ${user.totalPoints < 0 ? "text-red-300" : "text-zinc-100"}`}>
                <PointsFigure value={user.totalPoints} />
              </td>
              <td className="px-4 py-3 text-right text-zinc-300 tabular-nums">{formatNumber(user.stakedCount)}</td>
              <td className="px-4 py-3 text-right text-zinc-300 tabular-nums" data-testid="user-daily-rate">
                {formatNumber(user.dailyRate)}
              </td>
              <td className="px-4 py-3">
                <div className="flex justify-end gap-2" hidden={!mayChange}>
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
                    onClick={() => setClearTarget(user)}
                    aria-label={`Clear points of ${user.address}`}
                  >
                    Clear Points
                  </Button>
                </div>
              </td>
            </tr>
          ))
        )}
      </AdminTable>

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

      {/* Clear Points asks first, naming what it removes, with an optional reason (issue 33, item 1). */}
      <Dialog open={clearTarget !== null} onOpenChange={(open) => !open && setClearTarget(null)}>
        <DialogContent className="max-w-md">
          <form method="post" {...getFormProps(clear.form)} className="grid grid-cols-1 gap-4">
            <DialogHeader>
              <DialogTitle>Clear points?</DialogTitle>
              <DialogDescription data-testid="clear-points-amount">
                {clearTarget &&
                  `This removes all ${formatPointsExact(clearTarget.totalPoints)} points of ${clearTarget.address}: its balance becomes 0, with a ledger entry. It cannot be undone.`}
              </DialogDescription>
            </DialogHeader>
            <input type="hidden" name="intent" value="clear-points" />
            <input type="hidden" name={clear.fields.address.name} value={clearTarget?.address ?? ""} />
            <FormField
              label="Reason (optional)"
              field={clear.fields.reason}
              hint="Shown to the holder with the change, and kept in the audit log."
            >
              <Input {...getInputProps(clear.fields.reason, { type: "text" })} placeholder="Cleared by admin" />
            </FormField>
            <DialogFooter>
              <Button variant="secondary" onClick={() => setClearTarget(null)}>
                Cancel
              </Button>
              <Button type="submit" variant="destructive" disabled={clear.busy}>
                {clear.busy && <Spinner />} {clear.busy ? "Clearing..." : "Clear Points"}
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
    </div>
  );
}
