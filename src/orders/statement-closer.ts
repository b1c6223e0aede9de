import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { PeriodicJob } from '../jobs/periodic.js';
import { closeEndedMonths } from './statements.js';

/** A month ends at UTC midnight on the first of the next; checking every ten minutes closes it soon after. */
export const CLOSE_INTERVAL_MS = 10 * 60_000;

/**
 * Closes the statements of every month that ended (docs/attribution.md, "Finance"). Whichever
 * processes run the background jobs run it; closeEndedMonths lets one of them close each month.
 */
export function statementCloser(db: Db, log: FastifyBaseLogger, intervalMs = CLOSE_INTERVAL_MS): PeriodicJob {
  return new PeriodicJob(
    async () => {
      const months = await closeEndedMonths(db);
      if (months.length > 0) log.info({ months }, 'statements closed');
    },
    intervalMs,
    (error) => log.warn({ err: error }, 'closing statements failed; will retry'),
  );
}
