import closeWithGrace from 'close-with-grace';
import type { FastifyBaseLogger } from 'fastify';

/** How long closing may take before the process exits anyway: a request or a job that hangs must not keep it. */
export const SHUTDOWN_GRACE_MS = 20_000;

/**
 * Closes the process gracefully on SIGTERM or SIGINT, and on an uncaught error after logging it:
 * `close` runs once, then the process exits 0 (1 after an uncaught error, a failed close, or a
 * close that took longer than SHUTDOWN_GRACE_MS); a second signal while closing exits at once.
 * The API process (src/server.ts) and the worker (src/worker.ts) both close through it.
 */
export function closeGracefully(log: FastifyBaseLogger, announce: string, close: () => Promise<void>): void {
  const logger = {
    error: (problem: unknown) =>
      problem instanceof Error ? log.error({ err: problem }, 'error during shutdown') : log.error(String(problem)),
  };
  closeWithGrace({ delay: SHUTDOWN_GRACE_MS, logger }, async ({ signal, err }) => {
    if (err) log.error({ err }, `uncaught error; ${announce}`);
    else log.info({ signal }, announce);
    await close();
  });
}
