import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { oneLine } from './one-line.js';
import { neutraliseFormulas, spreadsheetCsv } from './csv.js';

const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/u;
const linesOf = (cell: string) => cell.split(/\r\n|[\n\r\u2028\u2029]/u);

// Text built from the characters that matter here (formula starts, every line break, quotes and
// separators) mixed with any other text, so most cells are hostile somewhere.
const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '=',
        '+',
        '-',
        '@',
        '\t',
        '\r',
        '\n',
        '\r\n',
        '\u2028',
        '\u2029',
        '"',
        ',',
        "'",
        ' ',
        '\uFF1D',
        '\uFF0B',
        '\uFF0D',
        '\uFF20',
      ),
      fc.string({ unit: 'grapheme', maxLength: 4 }),
      fc.constantFrom('HYPERLINK("https://evil.example")', '1+1', 'cmd|/C calc'),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

describe('spreadsheetCsv', () => {
  it('writes no cell with a line that starts like a formula, and takes nothing else away', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(hostileText, hostileText), { minLength: 1, maxLength: 5 }), (rows) => {
        const parsed: string[][] = parse(spreadsheetCsv(rows, ['a', 'b']), { relax_quotes: false });
        expect(parsed[0]).toEqual(['a', 'b']);
        expect(parsed.slice(1)).toHaveLength(rows.length);
        for (const [index, row] of parsed.slice(1).entries()) {
          for (const [column, cell] of row.entries()) {
            for (const line of linesOf(cell)) expect(line).not.toMatch(FORMULA_START);
            // Only quote marks were added: without them, the cell is the text sent.
            expect(cell.replaceAll("'", '')).toBe(rows[index]![column]!.replaceAll("'", ''));
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('neutralises the finding: a name of two lines, its second a formula', () => {
    expect(neutraliseFormulas('Evil Co\n=1+1')).toBe("Evil Co\n'=1+1");
    expect(neutraliseFormulas('=SUM(A1)\r\n-2\u2028@x')).toBe("'=SUM(A1)\r\n'-2\u2028'@x");
    expect(neutraliseFormulas('\r=1')).toBe("'\r'=1");
    expect(neutraliseFormulas('Harbor & Vine - Coffee')).toBe('Harbor & Vine - Coffee');
  });

  it('writes numbers as they are, a negative amount among them', () => {
    expect(spreadsheetCsv([[-500, '-5.00']], ['minor', 'text'])).toBe("minor,text\r\n-500,'-5.00\r\n");
  });
});

describe('oneLine', () => {
  it('makes a stored name one line: control characters and line separators become one space', () => {
    expect(oneLine('Evil Co\n=1+1')).toBe('Evil Co =1+1');
    expect(oneLine(' Tab\there\r\n\u2028and\u0085C1\u007f ')).toBe('Tab here and C1');
    expect(oneLine('Harbor & Vine')).toBe('Harbor & Vine');
  });
});
