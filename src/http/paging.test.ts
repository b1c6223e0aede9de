import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../test/support/factories.js';
import { describeEachDatabase } from '../../test/support/harness.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_INDEX, MAX_PAGE_SIZE, pageWindow } from './paging.js';

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
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 0, max: 300 }),
        (pageIndex, pageSize, total) => {
          const expected = Array.from({ length: total }, (_, i) => i).slice((pageIndex - 1) * pageSize, pageIndex * pageSize);
          expect(positions(pageIndex, pageSize, total)).toEqual(expected);
          const window = pageWindow(pageIndex, pageSize, total);
          if (!window.empty) expect(window.offset).toBeLessThanOrEqual(total / 2);
        },
      ),
    );
  });

  it('reads the last page from the end with no offset', () => {
    expect(pageWindow(100, 100, 10_000)).toEqual({ empty: false, fromEnd: true, offset: 0, limit: 100 });
    expect(pageWindow(1, 100, 10_000)).toEqual({ empty: false, fromEnd: false, offset: 0, limit: 100 });
    expect(pageWindow(101, 100, 10_000)).toEqual({ empty: true });
  });
});

describeEachDatabase('paging parameters are decimal integers', (use) => {
  let key: string;

  beforeAll(async () => {
    ({ key } = await createBrand(use().support));
  });

  const list = (path: string, query: string) => use().app.inject({ method: 'GET', url: `${path}?${query}`, headers: { 'x-api-key': key } });

  for (const path of ['/v1/partners', '/v1/campaigns']) {
    for (const parameter of ['pageIndex', 'pageSize']) {
      it(`${path} refuses ${parameter} written other than in decimal digits`, async () => {
        for (const written of ['0x10', '2.', ' 2', '2 ', '1e2', '+2', '2.0', '', 'two', '0b10', '١']) {
          const response = await list(path, `${parameter}=${encodeURIComponent(written)}`);
          expect(response.statusCode, `${parameter}=${JSON.stringify(written)}`).toBe(400);
          expect(response.json()).toMatchObject({
            error: 'invalid_request',
            message: expect.stringContaining(`query parameter ${parameter}`),
          });
        }
      });

      it(`${path} takes ${parameter} in decimal digits and keeps its range`, async () => {
        expect((await list(path, `${parameter}=2`)).statusCode).toBe(200);
        expect((await list(path, `${parameter}=002`)).statusCode).toBe(200);
        expect((await list(path, `${parameter}=0`)).json()).toMatchObject({
          error: 'invalid_request',
          message: expect.stringContaining(`${parameter} must be >= 1`),
        });
        expect((await list(path, `${parameter}=-1`)).statusCode).toBe(400);
      });
    }

    it(`${path} documents its paging parameters as bounded integers`, async () => {
      const document = use().app.swagger() as {
        paths: Record<string, { get: { parameters: Array<{ name: string; in: string; schema: Record<string, unknown> }> } }>;
      };
      const parameters = document.paths[path]!.get.parameters.filter((p) => p.in === 'query');
      expect(parameters.find((p) => p.name === 'pageIndex')?.schema).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_INDEX,
        default: 1,
      });
      expect(parameters.find((p) => p.name === 'pageSize')?.schema).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_PAGE_SIZE,
      });
    });
  }
});
