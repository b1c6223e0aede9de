import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { claimQueuedBrands, countCompanies, dequeueBrand, loadProfiles, upsertScores } from './dal.js';
import { scoresToRefresh } from './scoring.js';
import { PeriodicJob } from '../jobs/periodic.js';

export const SCORING_INTERVAL_MS = 1_000;
/** Rows written by one upsert: keeps a batch's statement and transaction short however many brands exist. */
const MAX_SCORES_PER_BATCH = 50_000;
const MAX_BRANDS_PER_BATCH = 100;

/**
 * Scores one batch of queued brands in one transaction (claim, score, one bulk upsert) and
 * returns how many brands it took; 0 means the queue was empty.
 */
export async function scoreNextBatch(db: Db): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // Each queued brand rewrites its score against every brand, in both directions.
    const scoresPerBrand = 2 * Math.max(1, await countCompanies(trx));
    const limit = Math.min(MAX_BRANDS_PER_BATCH, Math.max(1, Math.floor(MAX_SCORES_PER_BATCH / scoresPerBrand)));
    const claimed = await claimQueuedBrands(trx, limit);
    if (claimed.length === 0) return 0;
    // Read after claiming: a queued brand's profile is committed together with its queue row.
    await rescore(trx, claimed, new Date());
    return claimed.length;
  });
}

/**
 * Scores one brand against every other brand now (a newly imported store), in one transaction
 * that also takes it off the queue, so the background scorer does not repeat the work. Returns
 * how many candidates were scored for it.
 */
export async function scoreBrandNow(db: Db, companyId: string, now: Date): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await dequeueBrand(trx, companyId);
    const pairs = await rescore(trx, [companyId], now);
    return pairs.filter((pair) => pair.companyId === companyId).length;
  });
}

/** Rewrites the scores of `companyIds` against every brand, in both directions; returns them. */
async function rescore(trx: Db, companyIds: string[], now: Date) {
  const pairs = scoresToRefresh(companyIds, await loadProfiles(trx));
  await upsertScores(trx, pairs, now);
  return pairs;
}

/** Scores batches until the queue is empty or `stopped` says so; returns the brands scored. */
export async function drainScoringQueue(db: Db, stopped: () => boolean = () => false): Promise<number> {
  let total = 0;
  while (!stopped()) {
    const scored = await scoreNextBatch(db);
    if (scored === 0) break;
    total += scored;
  }
  return total;
}

/**
 * The background scorer: drains the queue on a timer. The API process runs one; a worker process
 * can run more (src/worker.ts), since batches are claimed with skip locked.
 */
export function scoringLoop(db: Db, log: FastifyBaseLogger, intervalMs = SCORING_INTERVAL_MS): PeriodicJob {
  return new PeriodicJob(
    async (stopped) => {
      const scored = await drainScoringQueue(db, stopped);
      if (scored > 0) log.debug({ scored }, 'recommendation scores refreshed');
    },
    intervalMs,
    (error) => log.warn({ err: error }, 'recommendation scoring failed; will retry'),
  );
}
