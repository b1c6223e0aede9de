/** The longest wait between two attempts of a retried background step. */
export const MAX_RETRY_MS = 60_000;

/**
 * How long a background step waits after its `attempts`-th failure: `retryMs`, doubling per
 * attempt, up to a minute. Store setup retries on it, and the sandbox's slow stores count on it
 * to outlast the delayed threshold (src/commerce/sandbox/adapter.ts).
 */
export function retryDelayMs(retryMs: number, attempts: number): number {
  return Math.min(retryMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
}
