/** Giveaways: the create form and 'Manage Giveaways' (image, end/activate, draw, delete). */
import { getFormProps, getInputProps, getTextareaProps } from "@conform-to/react";
import { useCallback, useMemo, useRef, useState } from "react";
import type { GiveawayEntry } from "../../api/giveaways.ts";
import { countOf, shortenAddress } from "../../domain/format.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";
import { TableHead } from "../ui/table.tsx";
import { formatNumber } from "../../domain/format.ts";
import {
  DEFAULT_POINTS_COST,
  DEFAULT_WINNERS,
  drawProgressText,
  giveawayStatusLabel,
  isGiveawayEnded,
  MAX_WINNERS,
  type DrawProgress,
} from "../../domain/giveaways.ts";
import { GiveawayClaimsList } from "./giveaway-claims.tsx";
import { DateText } from "../governance/date-text.tsx";
import { TicketIcon, TrophyIcon } from "../icons.tsx";
import { ConfirmDialog } from "../ui/alert-dialog.tsx";
import { useAdminRole } from "./role-context.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button, Spinner } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "../ui/dialog.tsx";
import { Input } from "../ui/input.tsx";
import { FormField, textareaClasses } from "./form-field.tsx";
import { FALLBACK_IMAGE, ImageUpload, usePictureOrigins } from "./image-upload.tsx";
import { DateField, useLocalDate } from "./local-date-input.tsx";
import { adminFormSchema, deleteGiveawayFormSchema, selectWinnerFormSchema, toggleGiveawayFormSchema } from "./schemas.ts";
import { useAdminForm } from "./use-admin-form.ts";

export type AdminGiveaway = {
  id: number;
  title: string;
  description: string;
  imageUrl: string;
  pointsCost: number;
  endDate: Date | string;
  active: boolean;
  winnerAddress: string | null;
  entriesCount: number;
  holdersCount: number;
  ticketsCount: number;
  drawVersion: 1 | 2;
  winners: number;
  drawSeed: string | null;
  drawBlockHeight: number | null;
  winnerAddresses: string[];
  drawProgress: DrawProgress | null;
};

type Auth = { onUnauthorized: () => void };

function CreateGiveawayForm({ onUnauthorized }: Auth) {
  const [imageUrl, setImageUrl] = useState("");
  const endDate = useLocalDate();
  const reset = useCallback(() => {
    setImageUrl("");
    endDate.reset();
  }, [endDate]);
  const origins = usePictureOrigins();
  const schema = useMemo(() => adminFormSchema("create-giveaway", origins), [origins]);
  const { form, fields, busy } = useAdminForm({
    id: "create-giveaway",
    schema,
    defaultValue: { pointsCost: String(DEFAULT_POINTS_COST), winners: String(DEFAULT_WINNERS) },
    onSuccess: reset,
    onUnauthorized,
  });
  const { can } = useAdminRole();
  return (
    <Card hidden={!can("giveaways")}>
      <CardHeader>
        <CardTitle>Create Giveaway</CardTitle>
        <CardDescription>Holders spend Spook Points on tickets; the winner is drawn by tickets.</CardDescription>
      </CardHeader>
      <CardContent>
        <form method="post" {...getFormProps(form)} className="grid grid-cols-1 gap-4">
          <input type="hidden" name="intent" value="create-giveaway" />
          <FormField label="Title" field={fields.title}>
            <Input {...getInputProps(fields.title, { type: "text" })} placeholder="Legendary Spook Giveaway" />
          </FormField>
          <div className="grid grid-cols-1 gap-1">
            <ImageUpload label="Image" field={fields.imageUrl} value={imageUrl} onChange={setImageUrl} />
          </div>
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-1 2xl:grid-cols-2">
            <FormField label="Points Cost" field={fields.pointsCost}>
              <Input {...getInputProps(fields.pointsCost, { type: "number" })} min={1} step={1} />
            </FormField>
            <FormField label="Number of Winners" field={fields.winners}>
              <Input {...getInputProps(fields.winners, { type: "number" })} min={1} max={MAX_WINNERS} step={1} />
            </FormField>
            <DateField label="End Date" field={fields.endDate} date={endDate} />
          </div>
          <FormField label="Description" field={fields.description}>
            <textarea {...getTextareaProps(fields.description)} className={textareaClasses} placeholder="What can be won, and how." />
          </FormField>
          <div className="flex justify-end">
            <Button type="submit" disabled={busy}>
              {busy && <Spinner />} {busy ? "Creating..." : "Create Giveaway"}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

function GiveawayThumb({ src, alt }: { src: string; alt: string }) {
  const [failed, setFailed] = useState(false);
  return (
    <img
      src={failed ? FALLBACK_IMAGE : src}
      alt={alt}
      onError={() => setFailed(true)}
      className="h-20 w-28 shrink-0 rounded-lg border border-zinc-800 object-cover"
    />
  );
}

function GiveawayRow({
  giveaway,
  onEditImage,
  onEdit,
  onEntries,
  onUnauthorized,
}: { giveaway: AdminGiveaway; onEditImage: () => void; onEdit: () => void; onEntries: () => void } & Auth) {
  const [confirm, setConfirm] = useState<"delete" | "winner" | "end" | null>(null);
  const deleteRef = useRef<HTMLFormElement>(null);
  const winnerRef = useRef<HTMLFormElement>(null);
  const toggleRef = useRef<HTMLFormElement>(null);
  const toggle = useAdminForm({ id: `toggle-giveaway-${giveaway.id}`, schema: toggleGiveawayFormSchema, onUnauthorized });
  const winner = useAdminForm({ id: `select-winner-${giveaway.id}`, schema: selectWinnerFormSchema, onUnauthorized });
  const remove = useAdminForm({ id: `delete-giveaway-${giveaway.id}`, schema: deleteGiveawayFormSchema, onUnauthorized });
  const drawn = giveaway.drawSeed !== null;
  const drawingAt = giveaway.drawBlockHeight !== null && !drawn ? giveaway.drawBlockHeight : null;
  const canDraw = giveaway.active && !drawn && drawingAt === null;
  // A drawn giveaway, or one whose entries closed for its draw, has nothing left to end or activate (issue 33, item 1).
  const canToggle = !drawn && drawingAt === null && giveaway.winnerAddress === null;
  // Drawn, Drawing, Inactive, Ended or Active, as `spooks-admin giveaways list` says it (issue 27, item 8).
  const status = giveawayStatusLabel({ ...giveaway, endDate: new Date(giveaway.endDate), drawn }, new Date());
  // Each member sees only the buttons their role may use (issue 35): a closed giveaway's Delete is the admins'.
  const { can } = useAdminRole();
  const mayEdit = can("giveaways");
  const closed = isGiveawayEnded({ ...giveaway, endDate: new Date(giveaway.endDate) }, new Date());
  const mayDelete = mayEdit && (!closed || can("giveaways.delete-closed"));

  return (
    <li className="grid grid-cols-1 gap-3 p-4" data-testid="admin-giveaway">
      <div className="flex gap-4">
        <GiveawayThumb src={giveaway.imageUrl} alt={giveaway.title} />
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <h4 className="font-semibold wrap-anywhere text-zinc-50">{giveaway.title}</h4>
            <Badge variant={status === "Active" ? "success" : status === "Drawing" ? "warning" : "secondary"} data-testid="giveaway-status">
              {status}
            </Badge>
          </div>
          <dl className="mt-1.5 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-400">
            <div className="flex gap-1">
              <dt>Cost:</dt>
              <dd className="text-zinc-200">{formatNumber(giveaway.pointsCost)} SPOOK</dd>
            </div>
            <div className="flex gap-1">
              <dt>Ends:</dt>
              <dd className="text-zinc-200">
                <DateText value={giveaway.endDate} withTime />
              </dd>
            </div>
            <div className="flex gap-1">
              <dt>Entries:</dt>
              <dd className="text-zinc-200" data-testid="entries-count">
                {formatNumber(giveaway.entriesCount)}
              </dd>
            </div>
            <div className="flex gap-1">
              <dt>
                <TicketIcon className="inline h-3 w-3" /> Tickets:
              </dt>
              <dd className="text-zinc-200">{formatNumber(giveaway.ticketsCount)}</dd>
            </div>
            <div className="flex gap-1">
              <dt>Winners:</dt>
              <dd className="text-zinc-200">{formatNumber(giveaway.winners)}</dd>
            </div>
            {giveaway.winnerAddresses.map((address, index) => (
              <div key={address} className="flex w-full min-w-0 gap-1 text-amber-200">
                <dt>
                  <TrophyIcon className="inline h-3 w-3" /> {giveaway.winnerAddresses.length > 1 ? `Winner ${index + 1}:` : "Winner:"}
                </dt>
                <dd className="font-mono break-all" title={address} data-testid="winner-address">
                  {address}
                </dd>
              </div>
            ))}
            {drawingAt !== null && (
              <div className="flex w-full gap-1 text-violet-200" data-testid="drawing-at">
                <dt className="sr-only">Draw:</dt>
                <dd>
                  Drawing at block {drawingAt}
                  {giveaway.drawProgress && ` (${drawProgressText(giveaway.drawProgress)})`}
                </dd>
              </div>
            )}
          </dl>
        </div>
      </div>
      {drawn && giveaway.winnerAddresses.length > 0 && <GiveawayClaimsList giveawayId={giveaway.id} />}
      <div className="flex flex-wrap gap-2 sm:justify-end">
        {isEditable(giveaway) && (
          <Button size="sm" variant="secondary" onClick={onEdit} hidden={!mayEdit}>
            Edit
          </Button>
        )}
        <Button size="sm" variant="secondary" onClick={onEditImage} hidden={!mayEdit}>
          Edit Image
        </Button>
        <Button size="sm" variant="outline" onClick={onEntries}>
          Entries
        </Button>
        {canToggle && (
          <form ref={toggleRef} method="post" {...getFormProps(toggle.form)} hidden={!mayEdit}>
            <input type="hidden" name="intent" value="toggle-giveaway" />
            <input type="hidden" name="giveawayId" value={giveaway.id} />
            <input type="hidden" name="active" value={giveaway.active ? "false" : "true"} />
            {giveaway.active ? (
              // Ending closes entries at once: it asks first, naming who it affects.
              <Button size="sm" variant="outline" disabled={toggle.busy} onClick={() => setConfirm("end")}>
                {toggle.busy && <Spinner className="h-3 w-3" />} End
              </Button>
            ) : (
              <Button type="submit" size="sm" variant="success" disabled={toggle.busy}>
                {toggle.busy && <Spinner className="h-3 w-3" />} Activate
              </Button>
            )}
          </form>
        )}
        {canDraw && (
          <form ref={winnerRef} method="post" {...getFormProps(winner.form)} hidden={!mayEdit}>
            <input type="hidden" name="intent" value="select-winner" />
            <input type="hidden" name="giveawayId" value={giveaway.id} />
            <Button size="sm" onClick={() => setConfirm("winner")} disabled={winner.busy}>
              {winner.busy && <Spinner className="h-3 w-3" />} Select Winner
            </Button>
          </form>
        )}
        <form ref={deleteRef} method="post" {...getFormProps(remove.form)} hidden={!mayDelete}>
          <input type="hidden" name="intent" value="delete-giveaway" />
          <input type="hidden" name="giveawayId" value={giveaway.id} />
          <Button size="sm" variant="destructive" onClick={() => setConfirm("delete")} disabled={remove.busy}>
            {remove.busy && <Spinner className="h-3 w-3" />} Delete
          </Button>
        </form>
      </div>
      <ConfirmDialog
        open={confirm === "winner"}
        onOpenChange={(open) => !open && setConfirm(null)}
        title="Select a winner?"
        description={
          giveaway.drawVersion === 2
            ? `Entries to "${giveaway.title}" close now; ${giveaway.winners === 1 ? "its winner is" : `its ${giveaway.winners} winners are`} drawn, weighted by tickets, with the hash of the next block once 6 blocks sit on top of it. The draw is final.`
            : `One winner of "${giveaway.title}" is drawn now, weighted by tickets. The draw is final.`
        }
        confirmLabel="Select Winner"
        onConfirm={() => winnerRef.current?.requestSubmit()}
      />
      <ConfirmDialog
        open={confirm === "end"}
        onOpenChange={(open) => !open && setConfirm(null)}
        title={`End "${giveaway.title}"?`}
        description={`Entries close now, for ${countOf(giveaway.holdersCount, "holder")} with ${countOf(giveaway.ticketsCount, "ticket")}: nobody can enter or add tickets until you activate it again. Nothing is drawn and nothing is refunded.`}
        confirmLabel="End"
        destructive
        onConfirm={() => toggleRef.current?.requestSubmit()}
      />
      <ConfirmDialog
        open={confirm === "delete"}
        onOpenChange={(open) => !open && setConfirm(null)}
        title="Delete giveaway?"
        description={`Are you sure you want to delete "${giveaway.title}"? This removes all its entries${
          giveaway.winnerAddress ? "" : " and refunds their points"
        }. This action cannot be undone.`}
        confirmLabel="Delete"
        destructive
        onConfirm={() => deleteRef.current?.requestSubmit()}
      />
    </li>
  );
}

function EditImageDialog({ giveaway, onClose, onUnauthorized }: { giveaway: AdminGiveaway | null; onClose: () => void } & Auth) {
  const [imageUrl, setImageUrl] = useState("");
  const close = useCallback(() => {
    setImageUrl("");
    onClose();
  }, [onClose]);
  const origins = usePictureOrigins();
  const schema = useMemo(() => adminFormSchema("update-image", origins), [origins]);
  const { form, fields, busy } = useAdminForm({
    id: "update-image",
    schema,
    onSuccess: close,
    onUnauthorized,
  });
  return (
    <Dialog open={giveaway !== null} onOpenChange={(open) => !open && close()}>
      <DialogContent className="max-w-md">
        <form method="post" {...getFormProps(form)} className="grid grid-cols-1 gap-4">
          <DialogHeader>
            <DialogTitle>Edit Image</DialogTitle>
            <DialogDescription>{giveaway?.title}</DialogDescription>
          </DialogHeader>
          <input type="hidden" name="intent" value="update-image" />
          <input type="hidden" name="giveawayId" value={giveaway?.id ?? ""} />
          <ImageUpload label="New image" field={fields.imageUrl} value={imageUrl} onChange={setImageUrl} />
          <DialogFooter>
            <Button variant="secondary" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy}>
              {busy && <Spinner />} {busy ? "Updating..." : "Update Image"}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** Every field can change while nobody has entered and its entries have not closed for a draw (the server's rule). */
const isEditable = (giveaway: AdminGiveaway) =>
  giveaway.entriesCount === 0 && giveaway.drawSeed === null && giveaway.drawBlockHeight === null && giveaway.winnerAddress === null;

/** 'yyyy-MM-ddTHH:mm' in the admin's local time, for a datetime-local input. */
function toLocalInput(value: Date | string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** 'Edit Giveaway': every field of a giveaway nobody has entered, with the create form's rules. */
function EditGiveawayDialog({ giveaway, onClose, onUnauthorized }: { giveaway: AdminGiveaway; onClose: () => void } & Auth) {
  const [imageUrl, setImageUrl] = useState(giveaway.imageUrl);
  const endDate = useLocalDate(toLocalInput(giveaway.endDate));
  const origins = usePictureOrigins();
  const schema = useMemo(() => adminFormSchema("edit-giveaway", origins), [origins]);
  const { form, fields, busy } = useAdminForm({
    id: `edit-giveaway-${giveaway.id}`,
    schema,
    defaultValue: {
      title: giveaway.title,
      description: giveaway.description,
      pointsCost: String(giveaway.pointsCost),
    },
    onSuccess: onClose,
    onUnauthorized,
  });
  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-lg">
        <form method="post" {...getFormProps(form)} className="grid grid-cols-1 gap-4">
          <DialogHeader>
            <DialogTitle>Edit Giveaway</DialogTitle>
            <DialogDescription>Nobody has entered yet: every field can change. Once someone enters, only its image can.</DialogDescription>
          </DialogHeader>
          <input type="hidden" name="intent" value="edit-giveaway" />
          <input type="hidden" name="giveawayId" value={giveaway.id} />
          <FormField label="Title" field={fields.title}>
            <Input {...getInputProps(fields.title, { type: "text" })} />
          </FormField>
          <ImageUpload label="Image" field={fields.imageUrl} value={imageUrl} onChange={setImageUrl} />
          <FormField label="Points Cost" field={fields.pointsCost}>
            <Input {...getInputProps(fields.pointsCost, { type: "number" })} min={1} step={1} />
          </FormField>
          {/* Published with the draw commitment: it never changes. */}
          <input type="hidden" name="winners" value={giveaway.winners} />
          <p className="text-xs text-zinc-400">
            Winners: {formatNumber(giveaway.winners)} (published with the draw commitment; it cannot change)
          </p>
          <DateField label="End Date" field={fields.endDate} date={endDate} />
          <FormField label="Description" field={fields.description}>
            <textarea {...getTextareaProps(fields.description)} className={textareaClasses} />
          </FormField>
          <DialogFooter>
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy}>
              {busy && <Spinner />} {busy ? "Saving..." : "Save Changes"}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** A giveaway's entries (GET /api/giveaways/{id}/entries, in draw order): wallet, tickets, when, winner. */
function EntriesDialog({ giveaway, onClose }: { giveaway: AdminGiveaway; onClose: () => void }) {
  const entries = useApiQuery<GiveawayEntry[]>(`/api/giveaways/${giveaway.id}/entries`, { staleTime: 0 });
  let body: React.ReactNode;
  if (entries.isError && !entries.data) {
    body = <LoadFailed what="the entries" error={entries.error} onRetry={entries.refetch} retrying={entries.isFetching} />;
  } else if (!entries.data) {
    body = <Skeleton className="h-24 w-full" />;
  } else if (entries.data.length === 0) {
    body = <p className="text-sm text-zinc-400">Nobody has entered yet.</p>;
  } else {
    body = (
      <div className="max-h-80 overflow-auto rounded-lg border border-zinc-800">
        <table className="w-full text-left text-sm text-zinc-300" data-testid="giveaway-entries">
          <caption className="sr-only">Entries of {giveaway.title}, in draw order</caption>
          <TableHead
            className="sticky top-0 bg-zinc-900 text-xs text-zinc-400"
            cellClassName="px-3 py-2 font-medium"
            columns={["Wallet", { header: "Tickets", className: "text-right" }, "Entered", "Winner"]}
          />
          <tbody className="divide-y divide-zinc-800/70">
            {entries.data.map((entry) => (
              <tr key={entry.id}>
                <td className="px-3 py-2 font-mono text-xs" title={entry.address}>
                  {shortenAddress(entry.address, 6, 4)}
                </td>
                <td className="px-3 py-2 text-right tabular-nums">{formatNumber(entry.tickets)}</td>
                <td className="px-3 py-2 text-xs whitespace-nowrap">
                  <DateText value={entry.enteredAt} withTime />
                </td>
                <td className="px-3 py-2">{entry.isWinner ? "Winner" : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }
  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-xl">
        <DialogHeader>
          <DialogTitle>Entries</DialogTitle>
          <DialogDescription>
            {giveaway.title}: {countOf(giveaway.entriesCount, "entry", "entries")}, {countOf(giveaway.ticketsCount, "ticket")}
          </DialogDescription>
        </DialogHeader>
        {body}
      </DialogContent>
    </Dialog>
  );
}

export function GiveawaysTab({ giveaways, onUnauthorized }: { giveaways: AdminGiveaway[] } & Auth) {
  const [editing, setEditing] = useState<number | null>(null);
  const editingGiveaway = giveaways.find((giveaway) => giveaway.id === editing) ?? null;
  const closeEditor = useCallback(() => setEditing(null), []);
  const [open, setOpen] = useState<{ id: number; view: "edit" | "entries" } | null>(null);
  const opened = open ? (giveaways.find((giveaway) => giveaway.id === open.id) ?? null) : null;
  const closeOpened = useCallback(() => setOpen(null), []);
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
      {/* The tab's own heading: the page's outline goes h1 → h2 → the cards' h3 (issue 33, item 10). */}
      <h2 className="sr-only lg:col-span-2">Giveaways</h2>
      <CreateGiveawayForm onUnauthorized={onUnauthorized} />
      <Card className="self-start">
        <CardHeader>
          <CardTitle>Manage Giveaways</CardTitle>
          <CardDescription>{countOf(giveaways.length, "giveaway")}</CardDescription>
        </CardHeader>
        {giveaways.length === 0 ? (
          <CardContent>
            <p className="rounded-lg border border-dashed border-zinc-800 px-4 py-10 text-center text-zinc-400">No giveaways created yet</p>
          </CardContent>
        ) : (
          <ul className="divide-y divide-zinc-800/70 border-t border-zinc-800/70">
            {giveaways.map((giveaway) => (
              <GiveawayRow
                key={giveaway.id}
                giveaway={giveaway}
                onEditImage={() => setEditing(giveaway.id)}
                onEdit={() => setOpen({ id: giveaway.id, view: "edit" })}
                onEntries={() => setOpen({ id: giveaway.id, view: "entries" })}
                onUnauthorized={onUnauthorized}
              />
            ))}
          </ul>
        )}
      </Card>
      <EditImageDialog giveaway={editingGiveaway} onClose={closeEditor} onUnauthorized={onUnauthorized} />
      {opened && open?.view === "edit" && <EditGiveawayDialog giveaway={opened} onClose={closeOpened} onUnauthorized={onUnauthorized} />}
      {opened && open?.view === "entries" && <EntriesDialog giveaway={opened} onClose={closeOpened} />}
    </div>
  );
}
