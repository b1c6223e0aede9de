import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { PeriodicJob } from '../jobs/periodic.js';
import { sealPerformance } from './dal.js';

/** A day leaves the live window at UTC midnight; checking every ten minutes seals it soon after. */
export const SEAL_INTERVAL_MS = 10 * 60_000;

/**
 * Moves the performance page's days older than the live window from the counters into the
 * rollups (migration 0009), so a year-long range reads a few hundred rollup rows and one week of
 * counters. Run by whichever process runs the background jobs; at start it catches up at once.
 */
export function performanceSealer(db: Db, log: FastifyBaseLogger, intervalMs = SEAL_INTERVAL_MS): PeriodicJob {
  let lastSealed: string | null | undefined;
  return new PeriodicJob(
    async () => {
      const sealed = await sealPerformance(db);
      if (sealed !== lastSealed) log.info({ sealedThrough: sealed }, 'performance rollups sealed');
      lastSealed = sealed;
    },
    intervalMs,
    (error) => log.warn({ err: error }, 'sealing performance rollups failed; will retry'),
  );
}
