import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pageWindow } from './paging.js';

/** The rows a window selects, as positions in the newest-first list. */
function positions(pageIndex: number, pageSize: number, total: number): number[] {
  const window = pageWindow(pageIndex, pageSize, total);
  if (window.empty) return [];
  const fromStart = Array.from({ length: window.limit }, (_, i) => window.offset + i);
  return window.fromEnd ? fromStart.map((i) => total - 1 - i).reverse() : fromStart;
}

describe('pageWindow', () => {
  it('selects exactly the rows of the page, from whichever end is nearer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 300 }), (pageIndex, pageSize, total) => {
        const expected = Array.from({ length: total }, (_, i) => i).slice((pageIndex - 1) * pageSize, pageIndex * pageSize);
        expect(positions(pageIndex, pageSize, total)).toEqual(expected);
        const window = pageWindow(pageIndex, pageSize, total);
        if (!window.empty) expect(window.offset).toBeLessThanOrEqual(total / 2);
      }),
    );
  });

  it('reads the last page from the end with no offset', () => {
    expect(pageWindow(100, 100, 10_000)).toEqual({ empty: false, fromEnd: true, offset: 0, limit: 100 });
    expect(pageWindow(1, 100, 10_000)).toEqual({ empty: false, fromEnd: false, offset: 0, limit: 100 });
    expect(pageWindow(101, 100, 10_000)).toEqual({ empty: true });
  });
});
