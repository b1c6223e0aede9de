/** What the offers benches share: the brand they load and the load itself. */
import autocannon from 'autocannon';
import { percentile } from './support.js';
import { createBrand, createPlatform } from '../test/support/factories.js';
import { seedPartnerOffer } from '../test/durability/seed.js';
import type { ServiceContext } from '../src/service-context.js';

export const OFFERS_PATH = '/v1/campaigns/offers?type=post-purchase';
export const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);

export interface Run {
  requestsPerSecond: number;
  seconds: number;
  p50: number;
  p99: number;
  ok: number;
  other: number;
}

/** An active platform and a brand with 6 live partner offers in active campaigns. */
export async function seedOffersBrand(support: ServiceContext) {
  const { platformId } = await createPlatform(support);
  const brand = await createBrand(support);
  for (let i = 0; i < 6; i += 1) await seedPartnerOffer(support, brand.companyId);
  return { platformId, brand };
}

/**
 * A fixed number of requests rather than a duration, so every response is counted, none cut off in
 * flight. The elapsed time is measured up to the last response: autocannon reports a run's end only
 * at its next one-second tick, so its own duration (and requests/s) is rounded up to whole seconds.
 * Latencies are taken from each response's own timing: autocannon's summary truncates them to whole
 * milliseconds, too coarse when the bare route's p99 is 1 or 2 ms.
 */
export async function loadOffers(url: string, headers: Record<string, string>, amount: number): Promise<Run> {
  const started = performance.now();
  let lastResponseAt = started;
  const latenciesMs: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url: `${url}${OFFERS_PATH}`, headers, connections: CONNECTIONS, amount }, (error, finished) =>
      error ? reject(error as Error) : resolve(finished),
    );
    instance.on('response', (_client, _statusCode, _bytes, responseTimeMs: number) => {
      lastResponseAt = performance.now();
      latenciesMs.push(responseTimeMs);
    });
  });
  const answered = result['2xx'] + result.non2xx;
  const seconds = (lastResponseAt - started) / 1000;
  return {
    requestsPerSecond: answered / seconds,
    seconds,
    p50: percentile(latenciesMs, 50),
    p99: percentile(latenciesMs, 99),
    ok: result['2xx'],
    other: result.non2xx + result.errors + result.timeouts,
  };
}
