/** A plain text table: bold headers, columns padded to their widest cell, an empty text when no rows. */
import { Box, Text } from "ink";
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";

export type Column<Row> = {
  header: string;
  value: (row: Row) => string;
  align?: "left" | "right";
  /** The narrowest this column is cut to when the table must fit a width (default: its header). */
  minWidth?: number;
};

export type TableProps<Row> = {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  /** Shown instead of the table when there are no rows. */
  empty: string;
  /** The most characters a line may take (the terminal's width): the widest columns are cut to fit, with "…". */
  width?: number;
};

const GAP = "  ";

function textWidth(text: string): number {
  return [...text].length;
}

function pad(text: string, width: number, align: Column<unknown>["align"]): string {
  const fill = " ".repeat(Math.max(0, width - textWidth(text)));
  return align === "right" ? fill + text : text + fill;
}

function truncate(text: string, width: number): string {
  const characters = [...text];
  return characters.length <= width ? text : `${characters.slice(0, width - 1).join("")}…`;
}

/** Narrows the column furthest above its minimum, a character at a time, until the line fits `width` or none can narrow. */
function fitWidths(widths: number[], columns: readonly Column<never>[], width: number | undefined): number[] {
  if (width === undefined) return widths;
  const fitted = [...widths];
  const minimums = columns.map((column, i) => Math.min(widths[i], Math.max(textWidth(column.header), column.minWidth ?? 3)));
  let overflow = fitted.reduce((sum, w) => sum + w, 0) + GAP.length * (fitted.length - 1) - width;
  while (overflow > 0) {
    const widest = fitted.reduce((best, w, i) => (w - minimums[i] > fitted[best] - minimums[best] ? i : best), 0);
    if (fitted[widest] <= minimums[widest]) break;
    fitted[widest] -= 1;
    overflow -= 1;
  }
  return fitted;
}

export function Table<Row>({ columns, rows, empty, width }: TableProps<Row>) {
  if (rows.length === 0) return <Text dimColor>{empty}</Text>;
  // A cell may hold what a remote server answered: never an escape sequence for the operator's terminal.
  const cells = rows.map((row) => columns.map((column) => withoutControlCharacters(column.value(row))));
  const headers = columns.map((column) => column.header);
  const widths = fitWidths(
    columns.map((column, i) => Math.max(textWidth(column.header), ...cells.map((line) => textWidth(line[i])))),
    columns,
    width,
  );
  const line = (values: string[]) =>
    values
      .map((value, i) => pad(truncate(value, widths[i]), widths[i], columns[i].align))
      .join(GAP)
      .trimEnd();
  return (
    <Box flexDirection="column">
      <Text bold>{line(headers)}</Text>
      <Text dimColor>{widths.map((width) => "─".repeat(width)).join(GAP)}</Text>
      {cells.map((values, index) => (
        <Text key={index}>{line(values)}</Text>
      ))}
    </Box>
  );
}
