import { Type } from 'typebox';
import { EXAMPLE_PLATFORM_ID } from './schemas.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
/** Far beyond any brand's list (10^8 rows at the largest page size); keeps offsets in range of a bigint. */
export const MAX_PAGE_INDEX = 1_000_000;

/** Query parameters shared by the paged lists (SPEC 4.3, 4.4, 8); optional, the validator fills the defaults. */
export const pagingQuery = {
  pageIndex: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_INDEX, default: 1, description: '1-based page number' })),
  pageSize: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Items per page, at most ${MAX_PAGE_SIZE}`,
    }),
  ),
};

/** The optional attribution header of the brand lists; its rules (SPEC 5.2) are applied by the auth layer. */
export const platformHeader = Type.Object({
  'x-platform-id': Type.Optional(
    Type.String({
      description: 'Platform.Id (UUID) of an active platform, sent only when one was assigned',
      examples: [EXAMPLE_PLATFORM_ID],
    }),
  ),
});

/**
 * Which rows of an ordered list a page holds, read from whichever end of the list is nearer:
 * an index walk then skips at most half the list, so the last page costs what the first does.
 * `fromEnd` means: fetch in reverse order with this offset and limit, then reverse the rows.
 */
export type PageWindow = { empty: true } | { empty: false; fromEnd: boolean; offset: number; limit: number };

export function pageWindow(pageIndex: number, pageSize: number, totalRows: number): PageWindow {
  const start = (pageIndex - 1) * pageSize;
  if (start >= totalRows) return { empty: true };
  const limit = Math.min(pageSize, totalRows - start);
  const rowsAfter = totalRows - start - limit;
  return start <= rowsAfter
    ? { empty: false, fromEnd: false, offset: start, limit }
    : { empty: false, fromEnd: true, offset: rowsAfter, limit };
}
