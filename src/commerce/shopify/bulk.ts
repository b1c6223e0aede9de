import * as documents from './documents.js';

/**
 * A bulk operation (a query over every object of a large store, run by Shopify in the
 * background): started with bulkOperationRunQuery, polled until COMPLETED, its JSONL result
 * downloaded and parsed. Nested objects come as lines of their own with `__parentId`.
 */
export class BulkOperationError extends Error {
  override name = 'BulkOperationError';
}

interface BulkOptions {
  request: <T>(document: string, variables?: Record<string, unknown>) => Promise<T>;
  fetch: (url: string) => Promise<Response>;
  pollMs: number;
  sleep: (ms: number) => Promise<void>;
  query: string;
}

interface BulkOperation {
  id: string;
  status: string;
  errorCode: string | null;
  url: string | null;
}

/**
 * Since 2026-01 an app may run up to five bulk query operations per store at once (Shopify's
 * changelog "Faster bulk operations"); a sixth is refused until one ends.
 */
export const MAX_CONCURRENT_BULK_QUERIES = 5;
/** Shopify's answers to a bulk query started while the store's slots are taken (another process of the service, say). */
const BUSY = new Set(['LIMIT_REACHED', 'OPERATION_IN_PROGRESS']);
/** How many polls' time a bulk query waits for a slot Shopify says is taken before its step fails (and is retried later). */
const MAX_BUSY_ATTEMPTS = 60;

/**
 * The store's bulk queries in this process, at most `limit` at once: the others wait here for a
 * slot rather than be refused by Shopify.
 */
export class BulkSlots {
  private readonly stores = new Map<string, { running: number; waiting: Array<() => void> }>();

  constructor(private readonly limit: number) {}

  async run<T>(shop: string, work: () => Promise<T>): Promise<T> {
    let state = this.stores.get(shop);
    if (!state) {
      state = { running: 0, waiting: [] };
      this.stores.set(shop, state);
    }
    const slots = state;
    if (slots.running >= this.limit) await new Promise<void>((resolve) => slots.waiting.push(resolve));
    else slots.running += 1;
    try {
      return await work();
    } finally {
      const next = slots.waiting.shift();
      // The slot passes to the next in line as it is; the last one out forgets the store.
      if (next) next();
      else if (--slots.running === 0) this.stores.delete(shop);
    }
  }
}

/** A bulk query document with its `"ORDERS_SEARCH"` placeholder replaced by a search (bulk queries take no variables). */
export function withSearch(document: string, search: string): string {
  const placeholder = '"ORDERS_SEARCH"';
  if (document.indexOf(placeholder) < 0 || document.indexOf(placeholder) !== document.lastIndexOf(placeholder))
    throw new Error('a bulk query with a search has its "ORDERS_SEARCH" placeholder once');
  // A JSON string is a GraphQL string for the ASCII a search holds.
  return document.replace(placeholder, JSON.stringify(search));
}

/**
 * `slices` searches on created_at covering every order, with no gap or overlap: the first open
 * below, the last open above, boundaries spread evenly between the oldest order and now.
 */
export function createdAtSlices(oldest: Date, now: Date, slices: number): string[] {
  if (slices <= 1 || now.getTime() <= oldest.getTime()) return [''];
  const span = now.getTime() - oldest.getTime();
  const bounds = Array.from({ length: slices - 1 }, (_, index) =>
    new Date(oldest.getTime() + Math.round((span * (index + 1)) / slices)).toISOString(),
  );
  return Array.from({ length: slices }, (_, index) => {
    const terms = [];
    if (index > 0) terms.push(`created_at:>='${bounds[index - 1]}'`);
    if (index < slices - 1) terms.push(`created_at:<'${bounds[index]}'`);
    return terms.join(' AND ');
  });
}

export async function runBulkQuery<T>(options: BulkOptions): Promise<Array<T & { __parentId?: string }>> {
  let operation: { id: string } | null = null;
  for (let attempt = 1; !operation; attempt += 1) {
    const started = await options.request<{
      bulkOperationRunQuery: { bulkOperation: { id: string } | null; userErrors: Array<{ message: string; code: string | null }> };
    }>(documents.RUN_BULK_QUERY, { query: options.query });
    operation = started.bulkOperationRunQuery.bulkOperation;
    if (operation) break;
    const errors = started.bulkOperationRunQuery.userErrors;
    const busy = errors.length > 0 && errors.every((error) => error.code !== null && BUSY.has(error.code));
    if (!busy || attempt >= MAX_BUSY_ATTEMPTS) {
      throw new BulkOperationError(`bulk operation not started: ${errors.map((error) => error.code ?? error.message).join(', ')}`);
    }
    await options.sleep(options.pollMs);
  }
  for (;;) {
    const polled = await options.request<{ bulkOperation: BulkOperation | null }>(documents.BULK_OPERATION, { id: operation.id });
    const state = polled.bulkOperation;
    if (!state) throw new BulkOperationError(`bulk operation ${operation.id} vanished`);
    if (state.status === 'COMPLETED') {
      if (!state.url) return [];
      const response = await options.fetch(state.url);
      if (!response.ok) throw new BulkOperationError(`bulk results answered ${response.status}`);
      const text = await response.text();
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as T & { __parentId?: string });
    }
    if (state.status !== 'CREATED' && state.status !== 'RUNNING') {
      throw new BulkOperationError(`bulk operation ${operation.id} ended ${state.status}${state.errorCode ? ` (${state.errorCode})` : ''}`);
    }
    await options.sleep(options.pollMs);
  }
}
