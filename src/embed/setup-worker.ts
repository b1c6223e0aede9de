import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import type { CommerceAdapter } from '../commerce/adapter.js';
import { DrainingWorker } from '../jobs/draining-worker.js';
import { scoreBrandNow } from '../recommendations/scorer.js';
import * as dal from './dal.js';
import { importStore, saveStoreDraftOffer } from './merchant-stores.js';
import type { BestSellerPreview } from './embed-contract.js';
import { retryDelayMs } from '../shared/retry.js';

export interface SetupWorkerOptions {
  db: Db;
  adapter: CommerceAdapter;
  bus: InvalidationBus;
  log: FastifyBaseLogger;
  pollMs: number;
  retryMs: number;
  /** How long a claim holds a job; renewed while a step runs, so only a dead worker's lease runs out. */
  leaseMs: number;
}

function formatPrice(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

/**
 * Runs store setup as a durable job (one row per store in setup_jobs): import the store, build
 * the offer from its three best sellers, find fitting brands with the matching engine. Each step
 * is committed before the next starts, so after a crash or restart the job resumes at the step it
 * reached; a failed step is retried with growing delays, which is what the delayed stage shows.
 * A claim holds the job with a lease renewed while the step runs, and the step's result is
 * written only while the lease is still held: a worker that lost it changes nothing.
 */
export class SetupWorker extends DrainingWorker {
  constructor(private readonly options: SetupWorkerOptions) {
    super({ pollMs: options.pollMs, log: options.log, claimFailure: 'setup worker could not claim a job' });
  }

  /** Claims one due job and runs its current step; false when nothing was due. */
  async runOnce(now = new Date()): Promise<boolean> {
    const { db, log, leaseMs } = this.options;
    const job = await dal.claimDueJob(db, now, leaseMs);
    if (!job) return false;
    const where = { domain: job.domain, step: job.step, attempt: job.attempts };
    log.info(where, 'store setup step started');
    const renewal = setInterval(
      () => {
        dal
          .renewLease(db, job.domain, job.leaseId, new Date(), leaseMs)
          .then((held) => {
            if (!held) log.warn(where, 'store setup lease lost while the step ran');
          })
          .catch((error) => log.warn({ ...where, err: error }, 'could not renew the store setup lease'));
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    let written: boolean;
    try {
      const next = await this.runStep(job.domain, job.step).finally(() => clearInterval(renewal));
      written = await dal.advanceJob(db, job.domain, job.leaseId, next, new Date());
      if (written) log.info({ ...where, next }, 'store setup step finished');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (await this.storeLeft(job.domain)) {
        // Retrying needs the store's token: the job waits for the store to come back (ensureSetupJob resumes it).
        // Expected (the owner uninstalled): one line with the reason, no stack trace.
        log.warn({ ...where, reason: message }, 'store setup parked: the store is no longer installed');
        written = await dal.parkJob(db, job.domain, job.leaseId, message, new Date());
        // The owner's approval may have landed between the check and the park, and resumed nothing (the job was
        // ours, not parked): a store back and approved by now resumes here, so no park outlives the approval.
        if (written && (await this.storeBackAndApproved(job.domain))) await dal.ensureSetupJob(db, job.domain, new Date());
      } else {
        const delay = retryDelayMs(this.options.retryMs, job.attempts);
        log.warn({ ...where, retryInMs: delay, reason: message }, 'store setup step failed; will retry');
        written = await dal.rescheduleJob(db, job.domain, job.leaseId, new Date(Date.now() + delay), message, new Date());
      }
    }
    if (!written) log.warn(where, 'store setup lease lost: another worker has the job, so this result is dropped');
    return true;
  }

  /** Whether the store is installed with its plan approved; an error reading that counts as no. */
  private async storeBackAndApproved(domain: string): Promise<boolean> {
    try {
      const status = await this.options.adapter.status(domain);
      return status.installation === 'installed' && status.planApproved;
    } catch {
      return false;
    }
  }

  /** Whether the store uninstalled the app (or revoked its token); an error reading that counts as not knowing. */
  private async storeLeft(domain: string): Promise<boolean> {
    try {
      return (await this.options.adapter.status(domain)).installation !== 'installed';
    } catch {
      return false;
    }
  }

  private async runStep(domain: string, step: dal.ClaimedJob['step']): Promise<'offer' | 'match' | 'done'> {
    const { db, adapter, bus } = this.options;
    switch (step) {
      case 'import': {
        const profile = await adapter.profile(domain);
        await importStore({ db, bus }, profile);
        return 'offer';
      }
      case 'offer': {
        const record = await dal.loadStoreRecord(db, domain);
        if (!record.companyId) throw new Error(`store ${domain} has no brand record; import it first`);
        const best = await adapter.bestSellers(domain, 3);
        const preview: BestSellerPreview[] = best.map((product) => ({
          title: product.title,
          imageUrl: product.imageUrl,
          price: formatPrice(product.priceCents),
        }));
        const name = record.business?.name ?? domain;
        const imageUrl = best.find((product) => product.imageUrl)?.imageUrl ?? record.business?.logoImageUrl;
        if (!imageUrl) throw new Error(`store ${domain} has no product image to build an offer with`);
        await saveStoreDraftOffer(
          { db, bus },
          domain,
          record.companyId,
          {
            title: `New-customer offer from ${name}`,
            subtitle:
              best.length > 0 ? `Best sellers: ${best.map((product) => product.title).join(', ')}` : (record.business?.description ?? name),
            imageUrl,
          },
          preview,
        );
        return 'match';
      }
      case 'match': {
        const record = await dal.loadStoreRecord(db, domain);
        if (!record.companyId) throw new Error(`store ${domain} has no brand record; import it first`);
        const candidates = await scoreBrandNow(db, record.companyId, new Date());
        this.options.log.info({ domain, candidates }, 'fitting brands found for the store');
        return 'done';
      }
    }
  }
}
