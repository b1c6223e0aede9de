import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONGEST_FILES } from '../support/sequencer.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The sequencer's list names files by path: a file renamed or removed would drop out of it without a word. */
describe("the sequencer's list of longest files", () => {
  it('names test files that exist, each once', () => {
    expect(LONGEST_FILES.filter((file) => !fs.existsSync(path.join(ROOT, file)) || !file.endsWith('.test.ts'))).toEqual([]);
    expect(new Set(LONGEST_FILES).size).toBe(LONGEST_FILES.length);
  });
});
