import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LONGEST_FILES } from '../support/sequencer.js';

/** The sequencer's list names files by path: a file renamed or removed would drop out of it without a word. */
describe("the sequencer's list of longest files", () => {
  it('names test files that exist, each once', () => {
    expect(LONGEST_FILES.filter((file) => !fs.existsSync(file) || !file.endsWith('.test.ts'))).toEqual([]);
    expect(new Set(LONGEST_FILES).size).toBe(LONGEST_FILES.length);
  });
});
