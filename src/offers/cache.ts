import { boundedCache } from '../cache/bounded.js';
import type { InvalidationBus, InvalidationTopic } from '../cache/invalidation.js';
import type { OfferSet } from './offer-set.js';

/** Every change that can alter which offers a brand shows, or their platform's settings. */
const TOPICS: InvalidationTopic[] = ['offers', 'campaigns', 'partnerships', 'platforms'];
/** Bounds memory; past it the least recently used sets go and are loaded again on demand. */
const MAX_ENTRIES = 50_000;

type Loader = (brandId: string, platformId: string, now: Date) => Promise<OfferSet>;

/**
 * A brand's offers per platform, in process memory: the hot path of the offers endpoint reads no
 * table. Any change on the bus (from any instance) drops everything; a set also expires at its
 * brand's next campaign start or end (its own TTL in the LRU). Concurrent misses for one key share a single load, and a
 * load that started before an invalidation is not kept.
 */
export class OffersCache {
  private readonly entries = boundedCache<OfferSet>(MAX_ENTRIES);
  private readonly loading = new Map<string, Promise<OfferSet>>();
  private generation = 0;

  constructor(
    private readonly load: Loader,
    bus: InvalidationBus,
  ) {
    for (const topic of TOPICS) bus.on(topic, () => this.clear());
  }

  get(brandId: string, platformId: string): Promise<OfferSet> | OfferSet {
    const key = `${brandId}\u0000${platformId}`;
    const hit = this.entries.get(key);
    if (hit) return hit;
    const inFlight = this.loading.get(key);
    if (inFlight) return inFlight;

    const generation = this.generation;
    const loaded = this.load(brandId, platformId, new Date())
      .then((set) => {
        if (generation === this.generation) this.store(key, set);
        return set;
      })
      .finally(() => {
        if (this.loading.get(key) === loaded) this.loading.delete(key);
      });
    this.loading.set(key, loaded);
    return loaded;
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.loading.clear();
  }

  private store(key: string, set: OfferSet): void {
    const ttl = set.expiresAt - Date.now();
    // A TTL of 0 would mean "never expires" to the LRU: a set already past its end is not kept.
    if (ttl > 0) this.entries.set(key, set, { ttl });
  }
}
