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

export async function runBulkQuery<T>(options: BulkOptions): Promise<Array<T & { __parentId?: string }>> {
  const started = await options.request<{
    bulkOperationRunQuery: { bulkOperation: { id: string } | null; userErrors: Array<{ message: string; code: string | null }> };
  }>(documents.RUN_BULK_QUERY, { query: options.query });
  const operation = started.bulkOperationRunQuery.bulkOperation;
  if (!operation) {
    // One bulk query at a time per store: a setup step retried while its last one runs waits its turn.
    throw new BulkOperationError(
      `bulk operation not started: ${started.bulkOperationRunQuery.userErrors.map((error) => error.code ?? error.message).join(', ')}`,
    );
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
