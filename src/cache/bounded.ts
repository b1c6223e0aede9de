import { LRUCache } from 'lru-cache';

/**
 * An in-process cache holding at most `entries` answers, least recently used out first, each for
 * at most `ttlMs` when given. The bound is lru-cache's `maxSize` with every entry of size 1 rather
 * than its `max`: `max` allocates all its slots up front (6.5 ms for 50,000, again at every
 * `clear()`), which each app the test suite builds paid for every cache it has; `maxSize` grows
 * with what is kept, under the same bound (docs/decisions.md, "The suite in six minutes").
 */
export function boundedCache<V extends {}>(entries: number, ttlMs?: number): LRUCache<string, V> {
  return new LRUCache<string, V>({ maxSize: entries, sizeCalculation: () => 1, ...(ttlMs === undefined ? {} : { ttl: ttlMs }) });
}
