/** CSV as RFC 4180 writes it, for the exports (points history, vote receipts). */

/** One field: quoted when it holds a comma, a quote or a line break (quotes doubled). */
export function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, with its CRLF line break. */
export function csvRecord(values: readonly (string | number)[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}
