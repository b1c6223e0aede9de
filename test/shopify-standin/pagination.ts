import { shopifyError } from './errors.js';

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
  reverse?: boolean | null;
}

export interface Connection<T> {
  edges: Array<{ cursor: string; node: T }>;
  nodes: T[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** Shopify caps a page at 250 objects. */
export const MAX_PAGE_SIZE = 250;

/** Shopify's cursors are opaque base64 JSON of the last id and sort value; so are these. */
export function encodeCursor(id: number, value: string | number): string {
  return Buffer.from(JSON.stringify({ last_id: id, last_value: value })).toString('base64');
}

function decodeCursor(cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as { last_id?: unknown };
    if (typeof parsed.last_id === 'number') return parsed.last_id;
  } catch {
    // Falls through to the error below: any undecodable cursor is refused the same way.
  }
  throw shopifyError(`Invalid cursor for current pagination sort.`, 'BAD_REQUEST');
}

function pageSize(name: 'first' | 'last', value: number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (value < 0) throw shopifyError(`Argument '${name}' on Field must be a non-negative integer.`, 'BAD_REQUEST');
  if (value > MAX_PAGE_SIZE) throw shopifyError(`The '${name}' argument must be less than or equal to ${MAX_PAGE_SIZE}.`, 'BAD_REQUEST');
  return value;
}

/**
 * One page of `items` (already filtered and in the requested sort order) as a Relay connection,
 * the way Shopify pages: `first`/`after` forwards, `last`/`before` backwards, one of first or last
 * required. A bulk operation reads every object, so it passes `unbounded`.
 */
export function paginate<T, V>(
  items: readonly T[],
  args: ConnectionArgs,
  keyOf: (item: T) => { id: number; value: string | number },
  view: (item: T) => V,
  unbounded = false,
): Connection<V> {
  const first = pageSize('first', args.first);
  const last = pageSize('last', args.last);
  if (!unbounded && first === null && last === null) throw shopifyError('you must provide one of first or last', 'BAD_REQUEST');
  const ordered = args.reverse ? [...items].reverse() : items;
  let start = 0;
  let end = ordered.length;
  if (args.after) {
    const afterId = decodeCursor(args.after);
    const position = ordered.findIndex((item) => keyOf(item).id === afterId);
    start = position === -1 ? ordered.length : position + 1;
  }
  if (args.before) {
    const beforeId = decodeCursor(args.before);
    const position = ordered.findIndex((item) => keyOf(item).id === beforeId);
    end = position === -1 ? end : Math.max(start, position);
  }
  let from = start;
  let to = end;
  if (!unbounded && first !== null) to = Math.min(to, from + first);
  if (!unbounded && last !== null) from = Math.max(from, to - last);
  const slice = ordered.slice(from, to);
  const cursorOf = (item: T) => {
    const key = keyOf(item);
    return encodeCursor(key.id, key.value);
  };
  const edges = slice.map((item) => ({ cursor: cursorOf(item), node: view(item) }));
  return {
    edges,
    nodes: edges.map((edge) => edge.node),
    pageInfo: {
      hasNextPage: to < ordered.length,
      hasPreviousPage: from > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
