import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/service-context.js';
import { seedPartnerOffer } from '../durability/seed.js';
import type { TestDatabase } from '../support/databases.js';
import { createBrand } from '../support/factories.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { logEntries } from '../support/service-process.js';
import { TcpProxy, totalCounts, waitUntil } from './support.js';
import {
  POSTGRES,
  CLIENT_GIVES_UP_MS,
  SILENCE_MS,
  REFUSED_DURING_OUTAGE,
  ANSWERED_AFTER_RECOVERY,
  HEARD_WITHIN_MS,
  type Outcome,
  throughProxy,
  type Request,
  measure,
  load,
  tooSlow,
  slowestByRoute,
  faultsFixture,
} from './faults.js';

/** The service under load while PostgreSQL goes away or silent (test/resilience/faults.ts holds what both fault files share). */
describe('faults: PostgreSQL unreachable, frozen and black-holed', () => {
  let database: TestDatabase;
  let support: ServiceContext;
  let platformId: string;
  const { proxies, baseEnv, start } = faultsFixture((ground) => ({ database, support, platformId } = ground));

  /**
   * A brand with two partner offers, and a service that reaches PostgreSQL through a proxy the test
   * cuts or silences. Limits out of the way: these tests are about the database, and the load would
   * otherwise reach them. LOG_LEVEL info: the time the service took for each request, and the
   * batches it settled.
   */
  const behindProxy = async () => {
    const proxy = await TcpProxy.start(POSTGRES);
    proxies.push(proxy);
    const brand = await createBrand(support);
    for (let i = 0; i < 2; i += 1) await seedPartnerOffer(support, brand.companyId);
    const service = await start({
      ...baseEnv(),
      LOG_LEVEL: 'info',
      DATABASE_URL: throughProxy(database.url!, proxy),
      RATE_LIMIT_PER_MINUTE: '1000000',
      OFFERS_RATE_LIMIT_PER_MINUTE: '1000000',
    });
    return { proxy, service, headers: { 'x-api-key': brand.key, 'x-platform-id': platformId } };
  };

  it('PostgreSQL unreachable under load: 503 in the error shape within bounded time, no crash, recovery by itself', async () => {
    const { proxy, service, headers } = await behindProxy();
    const get = (url: string) => (signal: AbortSignal, requestId: string) =>
      fetch(url, { headers: { ...headers, 'x-request-id': requestId }, signal });
    const routes = [
      { route: 'offers', send: get(`${service.baseUrl}/v1/campaigns/offers?type=post-purchase`) },
      { route: 'partners', send: get(`${service.baseUrl}/v1/partners`) },
      { route: 'campaigns', send: get(`${service.baseUrl}/v1/campaigns`) },
      { route: 'recommendations', send: get(`${service.baseUrl}/v1/discover/partner/recommendations`) },
    ];

    let recoveredAt = 0;
    const outcomes: Outcome[] = [];
    const driver = load(routes, outcomes, {
      concurrency: 16,
      until: () => recoveredAt > 0 && outcomes.filter((o) => o.at > recoveredAt).length >= ANSWERED_AFTER_RECOVERY,
      maxMs: 120_000,
      maxRequests: 20_000,
    });

    // Cut once the load is under way, and kept cut for 4 s at least, until enough requests were refused within it.
    await waitUntil(async () => outcomes.filter((o) => o.status === 200).length >= 16, 60_000);
    const cutAt = performance.now();
    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    await waitUntil(async () => outcomes.filter((o) => o.at > cutAt + 500 && o.status === 503).length >= REFUSED_DURING_OUTAGE, 60_000);
    const ready = await fetch(`${service.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ error: 'service_unavailable' });

    const restoredAt = performance.now();
    await proxy.restore();
    // Recovered once every route answers 200 again; the pool reconnects by itself.
    await waitUntil(
      async () => {
        const statuses = await Promise.all(
          routes.map((r) => r.send(AbortSignal.timeout(CLIENT_GIVES_UP_MS), crypto.randomUUID()).then((x) => x.status)),
        );
        return statuses.every((s) => s === 200);
      },
      30_000,
      100,
    );
    recoveredAt = performance.now();
    await driver;

    expect(service.process.exitCode).toBeNull();
    const during = outcomes.filter((o) => o.at > cutAt + 500 && o.at + o.ms < restoredAt);
    expect(during.filter((o) => o.status === 503).length).toBeGreaterThanOrEqual(REFUSED_DURING_OUTAGE);
    for (const outcome of outcomes) {
      expect([200, 503], JSON.stringify(outcome)).toContain(outcome.status);
      if (outcome.status === 503) {
        expect(outcome.body).toEqual({ error: 'service_unavailable', message: expect.any(String), requestId: expect.any(String) });
      }
    }
    expect(await tooSlow(service, outcomes)).toEqual([]);
    const settled = outcomes.filter((o) => o.at > recoveredAt);
    expect(settled.length).toBeGreaterThanOrEqual(ANSWERED_AFTER_RECOVERY);
    expect(settled.every((o) => o.status === 200)).toBe(true);
    console.info(
      `cut: ${outcomes.length} requests, ${during.filter((o) => o.status === 503).length} answered 503 within the outage; ` +
        `slowest per route as the service took it (ms) ${JSON.stringify(await slowestByRoute(service, outcomes))}, ` +
        `as the test's client saw it ${Math.round(Math.max(...outcomes.map((o) => o.ms)))}`,
    );
    expect(await service.stop()).toBe(0);
  });

  /**
   * Offers, referral clicks and the other routes under load while PostgreSQL goes silent through
   * the proxy, then comes back: every request answered within the promised bound, every 503 in
   * the error shape with Retry-After, and once the service has recovered by itself, views and
   * clicks counted for exactly the requests answered 200 and 302.
   */
  const silentOutageUnderLoad = async (silence: (proxy: TcpProxy) => void) => {
    const { proxy, service, headers } = await behindProxy();
    const offersUrl = `${service.baseUrl}/v1/campaigns/offers?type=post-purchase`;
    const shown = (await (await fetch(offersUrl, { headers })).json()) as { offers: Array<{ referralUrl: string }> };
    const clickUrls = shown.offers.map((offer) => `${service.baseUrl}${new URL(offer.referralUrl).pathname}`);
    expect(clickUrls).toHaveLength(2);
    const before = await totalCounts(database.db);

    const get = (url: string) => (signal: AbortSignal, requestId: string) =>
      fetch(url, { headers: { ...headers, 'x-request-id': requestId }, signal });
    const click = (url: string) => (signal: AbortSignal, requestId: string) =>
      fetch(url, { redirect: 'manual', headers: { 'x-request-id': requestId }, signal });
    const routes = [
      { route: 'offers', send: get(offersUrl) },
      { route: 'click', send: click(clickUrls[0]!) },
      { route: 'offers', send: get(offersUrl) },
      { route: 'click', send: click(clickUrls[1]!) },
      { route: 'partners', send: get(`${service.baseUrl}/v1/partners`) },
      { route: 'campaigns', send: get(`${service.baseUrl}/v1/campaigns`) },
    ];
    const names = ['offers', 'click', 'partners', 'campaigns'];
    const answered = (route: string, status: number) => (route === 'click' ? status === 302 : status === 200);

    let recoveredAt = 0;
    const outcomes: Outcome[] = [];
    const driver = load(routes, outcomes, {
      concurrency: 16,
      until: () => recoveredAt > 0 && outcomes.filter((o) => o.at > recoveredAt).length >= ANSWERED_AFTER_RECOVERY,
      maxMs: 180_000,
      maxRequests: 50_000,
    });

    // Silent once the load is under way, for SILENCE_MS at least and until every route had a request sent and answered 503 within it.
    await waitUntil(async () => outcomes.filter((o) => answered(o.route, o.status)).length >= 16, 60_000);
    const silentAt = performance.now();
    silence(proxy);
    await new Promise((resolve) => setTimeout(resolve, SILENCE_MS));
    await waitUntil(
      async () => names.every((route) => outcomes.some((o) => o.route === route && o.at > silentAt + 500 && o.status === 503)),
      60_000,
    );
    const restoredAt = performance.now();
    await proxy.restore();
    // Recovered once every route answers again; nothing is restarted. The probes count too.
    const probes: Outcome[] = [];
    await waitUntil(
      async () => {
        const round = await Promise.all(routes.map(measure));
        probes.push(...round);
        return round.every((o) => answered(o.route, o.status));
      },
      30_000,
      100,
    );
    recoveredAt = performance.now();
    await driver;
    outcomes.push(...probes);

    expect(service.process.exitCode).toBeNull();
    expect(await tooSlow(service, outcomes)).toEqual([]);
    for (const outcome of outcomes) {
      expect(answered(outcome.route, outcome.status) || outcome.status === 503, JSON.stringify(outcome)).toBe(true);
      if (outcome.status === 503) {
        expect(outcome.body).toEqual({ error: 'service_unavailable', message: expect.any(String), requestId: expect.any(String) });
        expect(outcome.retryAfter).toBe('5');
      }
    }
    const during = outcomes.filter((o) => o.at > silentAt + 500 && o.at + o.ms < restoredAt);
    for (const route of names) {
      expect(during.filter((o) => o.route === route && o.status === 503).length, route).toBeGreaterThan(0);
    }
    const settled = outcomes.filter((o) => o.at > recoveredAt);
    expect(settled.length).toBeGreaterThanOrEqual(ANSWERED_AFTER_RECOVERY);
    expect(
      settled.every((o) => answered(o.route, o.status)),
      JSON.stringify(settled.find((o) => !answered(o.route, o.status))),
    ).toBe(true);

    // Exact once the service has settled what the silence left unanswered, and it stays so.
    const owed = {
      views: outcomes
        .filter((o) => o.route === 'offers' && o.status === 200)
        .reduce((sum, o) => sum + (o.body as { offers: unknown[] }).offers.length, 0),
      clicks: outcomes.filter((o) => o.route === 'click' && o.status === 302).length,
    };
    const recorded = async () => {
      const now = await totalCounts(database.db);
      return { views: now.views - before.views, clicks: now.clicks - before.clicks };
    };
    await waitUntil(async () => JSON.stringify(await recorded()) === JSON.stringify(owed), 30_000, 200).catch(() => undefined);
    expect(await recorded()).toEqual(owed);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await recorded()).toEqual(owed);
    // The silence did leave batches unanswered (offers and clicks were answered 503 within it),
    // each settled once the database answered again.
    const settledBatches = logEntries(service)
      .filter((entry) => entry.msg === 'counter batch whose requests were answered 503 settled')
      .map((entry) => String(entry.outcome));
    expect(settledBatches.length).toBeGreaterThan(0);
    const slowest = await slowestByRoute(service, outcomes);
    expect(await service.stop()).toBe(0);
    return { outcomes, during, slowest, clientSlowest: Math.round(Math.max(...outcomes.map((o) => o.ms))), owed, settledBatches };
  };

  it(`PostgreSQL frozen under load (connections open, nothing forwarded either way): answers within 5 s, 503s in \
the shape, counts exact after the path is back`, async () => {
    const { outcomes, during, slowest, clientSlowest, owed, settledBatches } = await silentOutageUnderLoad((proxy) => proxy.freeze());
    console.info(
      `frozen ${SILENCE_MS} ms or more: ${outcomes.length} requests, ${during.length} during, ` +
        `${during.filter((o) => o.status === 503).length} answered 503, ` +
        `slowest per route as the service took it (ms) ${JSON.stringify(slowest)}, as the test's client saw it ${clientSlowest}; ` +
        `${owed.views} views and ${owed.clicks} clicks counted; batches settled: ${settledBatches.join(', ')}`,
    );
  });

  it(`PostgreSQL black-holed under load (nothing answers, new connections accepted by nothing): answers within 5 s, \
503s in the shape, counts exact after it is back`, async () => {
    const { outcomes, during, slowest, clientSlowest, owed, settledBatches } = await silentOutageUnderLoad((proxy) => proxy.blackHole());
    console.info(
      `black-holed ${SILENCE_MS} ms or more: ${outcomes.length} requests, ${during.length} during, ` +
        `${during.filter((o) => o.status === 503).length} answered 503, ` +
        `slowest per route as the service took it (ms) ${JSON.stringify(slowest)}, as the test's client saw it ${clientSlowest}; ` +
        `${owed.views} views and ${owed.clicks} clicks counted; batches settled: ${settledBatches.join(', ')}`,
    );
  });

  it(`connections frozen, new ones getting through: the pool and the LISTEN connection replace theirs by \
themselves, and a change made meanwhile takes effect`, async () => {
    const proxy = await TcpProxy.start(POSTGRES);
    proxies.push(proxy);
    const brand = await createBrand(support);
    await seedPartnerOffer(support, brand.companyId);
    const env = { ...baseEnv(), RUN_BACKGROUND_JOBS: 'false' };
    // This instance reaches PostgreSQL through the proxy, and logs the time it took for each request; the other one directly.
    // Its LISTEN connection is asked a question every second (5 s by default): what is proved is that a silent one is
    // found by its heartbeat and replaced, whatever the interval, and the test waits the interval out.
    const [frozen, other] = await Promise.all([
      start({ ...env, LOG_LEVEL: 'info', DATABASE_URL: throughProxy(database.url!, proxy), DATABASE_KEEPALIVE_MS: '1000' }),
      start({ ...env, DATABASE_URL: database.url! }),
    ]);
    const partners: Request = {
      route: 'partners',
      send: (signal, requestId) =>
        fetch(`${frozen.baseUrl}/v1/partners`, { headers: { 'x-api-key': brand.key, 'x-request-id': requestId }, signal }),
    };
    expect((await measure(partners)).status).toBe(200);

    proxy.freeze({ newConnections: 'forwarded' });
    const probes: Outcome[] = [];
    try {
      const frozenAt = performance.now();
      const revoke = await fetch(`${other.baseUrl}/admin/brand-keys/${brand.keyId}/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(revoke.status).toBe(200);

      // Requests meanwhile: each answered within the bound. The revoked key is refused once the
      // LISTEN connection was found silent (a heartbeat, a query timeout, a second, a new
      // connection: 1 + 2.5 + 1 s here) and the caches dropped for what it missed; the
      // refusal reads the key again, so the pool has replaced its frozen connections by then.
      // Unheard, the key would work until its cache entry expires (60 s).
      const refusedAfter = await waitUntil(
        async () => {
          const probe = await measure(partners);
          probes.push(probe);
          return probe.status === 401;
        },
        HEARD_WITHIN_MS,
        250,
      );
      const statuses = probes.map((probe) => probe.status);
      expect(
        statuses.every((status) => [200, 401, 503].includes(status)),
        statuses.join(),
      ).toBe(true);
      expect(await tooSlow(frozen, probes)).toEqual([]);
      console.info(
        `a key revoked while the LISTEN connection was frozen was refused ${Math.round(performance.now() - frozenAt)} ms later ` +
          `(${Math.round(refusedAfter)} ms of probing); statuses ${statuses.join(' ')}`,
      );
    } finally {
      await proxy.restore();
    }
    expect(frozen.process.exitCode).toBeNull();
    expect(await frozen.stop()).toBe(0);
    expect(await other.stop()).toBe(0);
  });
});
