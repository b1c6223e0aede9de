import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { touchKeys, upsertPlatformCompanyLinks } from './dal.js';

const FLUSH_INTERVAL_MS = 2_000;

/**
 * Keeps "last used" and "last seen" bookkeeping off the request path: the first sighting of a
 * brand on a platform is written before the response (the link must exist after the first valid
 * call), later sightings and key uses are written together every couple of seconds.
 */
export class UsageRecorder {
  private readonly knownLinks = new Set<string>();
  private pendingLinks = new Map<string, { platformId: string; companyId: string; seenAt: number }>();
  private pendingKeys = { brand_api_keys: new Map<string, number>(), platform_keys: new Map<string, number>() };
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.flush().catch((error) => this.log.warn({ err: error }, 'could not record key usage; will retry'));
    }, FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  // Both run on every authenticated request: they keep the time as a number and update a pending
  // entry in place, so a busy key or link costs no allocation per request.
  keyUsed(table: 'brand_api_keys' | 'platform_keys', keyId: string): void {
    this.pendingKeys[table].set(keyId, Date.now());
  }

  async platformSeen(platformId: string, companyId: string): Promise<void> {
    const linkKey = `${platformId}|${companyId}`;
    if (this.knownLinks.has(linkKey)) {
      const pending = this.pendingLinks.get(linkKey);
      if (pending) pending.seenAt = Date.now();
      else this.pendingLinks.set(linkKey, { platformId, companyId, seenAt: Date.now() });
      return;
    }
    await upsertPlatformCompanyLinks(this.db, [{ platformId, companyId, seenAt: new Date() }]);
    this.knownLinks.add(linkKey);
  }

  /**
   * Writes what is pending in one transaction. When that fails, the updates are put back (unless
   * a newer one for the same link or key arrived meanwhile), so the next flush retries them.
   */
  async flush(): Promise<void> {
    const links = this.pendingLinks;
    const keys = this.pendingKeys;
    if (links.size === 0 && keys.brand_api_keys.size === 0 && keys.platform_keys.size === 0) return;
    this.pendingLinks = new Map();
    this.pendingKeys = { brand_api_keys: new Map(), platform_keys: new Map() };
    const usesOf = (pending: Map<string, number>) => [...pending].map(([keyId, usedAt]) => ({ keyId, usedAt: new Date(usedAt) }));
    try {
      await this.db.transaction().execute(async (trx) => {
        await upsertPlatformCompanyLinks(
          trx,
          [...links.values()].map((link) => ({ ...link, seenAt: new Date(link.seenAt) })),
        );
        await touchKeys(trx, 'brand_api_keys', usesOf(keys.brand_api_keys));
        await touchKeys(trx, 'platform_keys', usesOf(keys.platform_keys));
      });
    } catch (error) {
      putBackOlder(this.pendingLinks, links);
      putBackOlder(this.pendingKeys.brand_api_keys, keys.brand_api_keys);
      putBackOlder(this.pendingKeys.platform_keys, keys.platform_keys);
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}

/** Returns unwritten entries to `pending`; an entry already there was recorded later and wins. */
function putBackOlder<T>(pending: Map<string, T>, unwritten: Map<string, T>): void {
  for (const [key, value] of unwritten) if (!pending.has(key)) pending.set(key, value);
}
