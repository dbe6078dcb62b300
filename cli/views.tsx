/**
 * The views commands draw their results with. Each loads Ink only when called, from `output`'s view,
 * so --json runs never load it.
 */
import type { ReactNode } from "react";
import type { Column, DetailsProps, Status, TableProps } from "./components/index.ts";

/** One line saying how the action went. */
export async function statusView(text: ReactNode, status: Status = "success") {
  const { StatusLine } = await import("./components/index.ts");
  return <StatusLine status={status}>{text}</StatusLine>;
}

/** A status line over the record or figures it is about. */
export async function detailsView(headline: ReactNode, rows: DetailsProps["rows"], status: Status = "success") {
  const { Box } = await import("ink");
  const { Details, StatusLine } = await import("./components/index.ts");
  return (
    <Box flexDirection="column">
      <StatusLine status={status}>{headline}</StatusLine>
      <Details rows={rows} />
    </Box>
  );
}

/** Rows as a table, or the `empty` text when there are none. */
export async function tableView<Row>(table: TableProps<Row>) {
  const { Table } = await import("./components/index.ts");
  return <Table {...table} />;
}

/** A status line over a table (or its `empty` text). */
export async function titledTableView<Row>(headline: ReactNode, table: TableProps<Row>, status: Status = "info") {
  const { Box } = await import("ink");
  const { StatusLine, Table } = await import("./components/index.ts");
  return (
    <Box flexDirection="column">
      <StatusLine status={status}>{headline}</StatusLine>
      <Table {...table} />
    </Box>
  );
}

/** A record with a number and a title (a giveaway, a proposal): every view of one names it by both. */
type TitledRecord = { id: number; title: string };

/** A status line naming the record (`Giveaway Created: #3 Golden Spook`) over its details. */
export function recordView(headline: string, record: TitledRecord, rows: DetailsProps["rows"]) {
  return detailsView(`${headline}: #${record.id} ${record.title}`, rows);
}

/** Titled records as a table: each one's id and title, then the `columns` given (or the `empty` text). */
export function recordTableView<Row extends TitledRecord>(rows: readonly Row[], empty: string, columns: readonly Column<Row>[]) {
  return tableView<Row>({
    rows,
    empty,
    columns: [{ header: "ID", value: (row) => String(row.id), align: "right" }, { header: "Title", value: (row) => row.title }, ...columns],
  });
}
