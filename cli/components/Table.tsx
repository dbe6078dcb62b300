/** A plain text table: bold headers, columns padded to their widest cell, an empty text when no rows. */
import { Box, Text } from "ink";

export type Column<Row> = {
  header: string;
  value: (row: Row) => string;
  align?: "left" | "right";
};

export type TableProps<Row> = {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  /** Shown instead of the table when there are no rows. */
  empty: string;
};

const GAP = "  ";

function textWidth(text: string): number {
  return [...text].length;
}

function pad(text: string, width: number, align: Column<unknown>["align"]): string {
  const fill = " ".repeat(Math.max(0, width - textWidth(text)));
  return align === "right" ? fill + text : text + fill;
}

export function Table<Row>({ columns, rows, empty }: TableProps<Row>) {
  if (rows.length === 0) return <Text dimColor>{empty}</Text>;
  const cells = rows.map((row) => columns.map((column) => column.value(row)));
  const widths = columns.map((column, i) => Math.max(textWidth(column.header), ...cells.map((line) => textWidth(line[i]))));
  const line = (values: string[]) =>
    values
      .map((value, i) => pad(value, widths[i], columns[i].align))
      .join(GAP)
      .trimEnd();
  return (
    <Box flexDirection="column">
      <Text bold>{line(columns.map((column) => column.header))}</Text>
      <Text dimColor>{widths.map((width) => "─".repeat(width)).join(GAP)}</Text>
      {cells.map((values, index) => (
        <Text key={index}>{line(values)}</Text>
      ))}
    </Box>
  );
}
