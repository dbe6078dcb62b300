/** CSV as RFC 4180 writes it, for the exports (points history, vote receipts). */

/**
 * What a spreadsheet reads as the start of a formula (`=`, `+`, `-`, `@`) or as a control character it may
 * drop before one (tab, carriage return): OWASP's "CSV injection" list.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Text a spreadsheet shows as text: a cell starting like a formula gets a leading `'`, which spreadsheets
 * read as "this is text" and do not display. Numbers are never passed here (`-30` stays a number).
 */
export function defuseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One field: quoted when it holds a comma, a quote or a line break (quotes doubled). */
export function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * One record, with its CRLF line break. Every text cell is defused against formulas (numbers are written
 * as they are); a cell that must stay byte-exact, such as a signed message, is `verbatim(text)`.
 */
export function csvRecord(values: readonly (string | number | Verbatim)[]): string {
  const cells = values.map((value) => {
    if (typeof value === "number") return csvField(value);
    return csvField(typeof value === "string" ? defuseFormula(value) : value.text);
  });
  return `${cells.join(",")}\r\n`;
}

/** A text cell written exactly as it is (a signature, a signed message: the bytes a verifier checks). */
export type Verbatim = { readonly text: string };

export const verbatim = (text: string): Verbatim => ({ text });
