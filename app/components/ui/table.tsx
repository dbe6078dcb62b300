/**
 * The markup every data table shares: a horizontally scrolling box, the table, its caption, a head of column
 * headers and the body. The admin tabs dress it one way (AdminTable), the points history another.
 */
import type { ReactNode } from "react";
import { cn } from "./cn.ts";

/** A column header: its text (empty: the actions column, named for screen readers), or the text and classes of its own. */
export type TableColumn = string | { header: string; className: string };

export function TableHead({
  columns,
  className,
  cellClassName,
}: {
  columns: readonly TableColumn[];
  className: string;
  /** Every header cell's classes; a column's own classes come after and win. */
  cellClassName: string;
}) {
  return (
    <thead className={className}>
      <tr>
        {columns.map((column) => {
          const { header, className: own } = typeof column === "string" ? { header: column, className: "" } : column;
          return (
            <th key={header} scope="col" className={cn(cellClassName, own)}>
              {header || <span className="sr-only">Actions</span>}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/** A table that scrolls sideways when it is wider than its box. */
export function ScrollTable({
  caption,
  head,
  className,
  bodyClassName,
  testId,
  children,
}: {
  /** Left out: no caption (the table is named by what is around it). */
  caption?: { text: ReactNode; className: string };
  head: ReactNode;
  className?: string;
  bodyClassName?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <div className="overflow-x-auto">
      <table className={cn("w-full text-left text-sm", className)} data-testid={testId}>
        {caption && <caption className={caption.className}>{caption.text}</caption>}
        {head}
        <tbody className={bodyClassName}>{children}</tbody>
      </table>
    </div>
  );
}
