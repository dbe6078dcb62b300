/** The admin tabs' tables: one look for the head, the frame and the rows that stand for a message. */
import type { ReactNode } from "react";
import { Card } from "../ui/card.tsx";
import { ScrollTable, TableHead, type TableColumn } from "../ui/table.tsx";

/** The head of an admin table: one column header each, and an empty name for the actions column (named for screen readers). */
export function AdminTableHead({ columns }: { columns: readonly TableColumn[] }) {
  return (
    <TableHead
      columns={columns}
      className="border-b border-zinc-800 bg-zinc-900/80 text-xs tracking-wider text-zinc-400 uppercase"
      cellClassName="px-4 py-3 font-medium"
    />
  );
}

/** The caption for screen readers only, or one shown as the table's title. */
const CAPTION_CLASS = { hidden: "sr-only", title: "p-4 text-left font-semibold text-zinc-100" } as const;

/**
 * An admin table in its card: caption, head and the rows given. `className` sets the table's least width
 * (`min-w-[48rem]`); `after` is what the card holds besides the table (a dialog).
 */
export function AdminTable({
  caption,
  captionShown = false,
  columns,
  className,
  testId,
  after,
  children,
}: {
  caption: ReactNode;
  captionShown?: boolean;
  columns: readonly TableColumn[];
  className: string;
  testId?: string;
  after?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card className="overflow-hidden">
      <ScrollTable
        caption={{ text: caption, className: CAPTION_CLASS[captionShown ? "title" : "hidden"] }}
        head={<AdminTableHead columns={columns} />}
        className={className}
        bodyClassName="divide-y divide-zinc-800/70"
        testId={testId}
      >
        {children}
      </ScrollTable>
      {after}
    </Card>
  );
}

/**
 * A row across the whole table in place of the entries: a message (nothing found), or with `status` what
 * stands for them while they load or failed to (a skeleton, a load failure).
 */
export function AdminTableNote({ colSpan, status = false, children }: { colSpan: number; status?: boolean; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={colSpan} className={status ? "px-4 py-6" : "px-4 py-10 text-center text-zinc-400"}>
        {children}
      </td>
    </tr>
  );
}
