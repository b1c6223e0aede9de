import { stringify } from 'csv-stringify/sync';

/**
 * What a spreadsheet reads as the start of a formula (OWASP's CSV injection list: = + - @, tab and
 * carriage return) and the full-width forms of the first four, which some spreadsheets fold.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/u;

/** The line breaks a spreadsheet may start a new line (or row) at, kept by the split. */
const LINE_BREAK = /(\r\n|[\n\r\u2028\u2029])/u;

/**
 * A text cell a spreadsheet shows as text: each of its lines that starts like a formula gets a
 * leading `'`, and so does a cell that starts with a line break. csv-stringify's `escape_formulas`
 * looks at a cell's first character only, so a name of two lines ("Evil Co\n=1+1") kept its
 * second line's formula, a row of its own to an importer that splits lines first.
 */
export function neutraliseFormulas(text: string): string {
  const parts = text.split(LINE_BREAK);
  const neutralised = parts.map((part, index) => (index % 2 === 0 && FORMULA_START.test(part) ? `'${part}` : part)).join('');
  return LINE_BREAK.test(neutralised[0] ?? '') ? `'${neutralised}` : neutralised;
}

/**
 * Rows as the CSV every export sends: a header line, CRLF line ends, every text cell through
 * neutraliseFormulas (numbers, a negative amount among them, are written as they are).
 */
export function spreadsheetCsv(rows: unknown[], columns: readonly string[]): string {
  return stringify(rows, { header: true, columns: [...columns], record_delimiter: 'windows', cast: { string: neutraliseFormulas } });
}
