import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { touchKeys, upsertPlatformCompanyLinks } from './credentials-dal.js';

const FLUSH_INTERVAL_MS = 2_000;

/**
 * Keeps "last used" and "last seen" bookkeeping off the request path: the first sighting of a
 * brand on a platform is written before the response (the link must exist after the first valid
 * call), later sightings and key uses are written together every couple of seconds.
 */
export class UsageRecorder {
  private readonly knownLinks = new Set<string>();
  private pendingLinks = new Map<string, { platformId: string; companyId: string; seenAt: Date }>();
  private pendingKeys = { brand_api_keys: new Map<string, Date>(), platform_keys: new Map<string, Date>() };
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

  keyUsed(table: 'brand_api_keys' | 'platform_keys', keyId: string): void {
    this.pendingKeys[table].set(keyId, new Date());
  }

  async platformSeen(platformId: string, companyId: string): Promise<void> {
    const linkKey = `${platformId}|${companyId}`;
    const seenAt = new Date();
    if (this.knownLinks.has(linkKey)) {
      this.pendingLinks.set(linkKey, { platformId, companyId, seenAt });
      return;
    }
    await upsertPlatformCompanyLinks(this.db, [{ platformId, companyId, seenAt }]);
    this.knownLinks.add(linkKey);
  }

  async flush(): Promise<void> {
    const links = [...this.pendingLinks.values()];
    const brandKeys = [...this.pendingKeys.brand_api_keys].map(([keyId, usedAt]) => ({ keyId, usedAt }));
    const platformKeys = [...this.pendingKeys.platform_keys].map(([keyId, usedAt]) => ({ keyId, usedAt }));
    this.pendingLinks = new Map();
    this.pendingKeys = { brand_api_keys: new Map(), platform_keys: new Map() };
    await upsertPlatformCompanyLinks(this.db, links);
    await touchKeys(this.db, 'brand_api_keys', brandKeys);
    await touchKeys(this.db, 'platform_keys', platformKeys);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
