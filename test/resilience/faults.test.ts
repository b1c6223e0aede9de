import crypto from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidationBus } from '../../src/cache/invalidation.js';
import type { ServiceContext } from '../../src/service-context.js';
import { seedPartnerOffer } from '../durability/seed.js';
import { createTestDatabase, PATIENT_DATABASE_ENV, TEST_POSTGRES_URL, type TestDatabase } from '../support/databases.js';
import { createBrand, createPlatform } from '../support/factories.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import {
  logEntries,
  requestsBegun,
  responseTimes,
  startService,
  untilShuttingDown,
  type ServiceProcess,
} from '../support/service-process.js';
import { TableLock } from '../support/table-lock.js';
import { startWorker, TcpProxy, totalCounts, waitUntil, type WorkerProcess } from './support.js';
import { spreadBurst } from '../support/burst.js';
import { fetchTransport, merchantToken, StoreOwner } from '../support/sandbox-owner.js';

const POSTGRES = { host: new URL(TEST_POSTGRES_URL).hostname, port: Number(new URL(TEST_POSTGRES_URL).port || 5432) };
const REDIS = { host: '127.0.0.1', port: 6379 };
/**
 * Longest any request may take while the database is away or silent: the 5 s docs/operations.md
 * promises (the default bounds make it 4 s: 1.5 s for a connection, 2.5 s for a statement's
 * answer). Checked against the time the service itself measured (`responseTime` in its log), which
 * the test's own process being slow to run on a loaded machine does not lengthen.
 */
const ANSWER_WITHIN_MS = 5_000;
/** When the test's client gives up on an answer: a request unanswered by then has hung, whatever the machine's load. */
const CLIENT_GIVES_UP_MS = 30_000;
/** How long each silent outage below lasts at least: longer than any request may wait. */
const SILENCE_MS = 7_000;
/** Outages last until this many requests were answered 503 within them, so each is seen under load whatever the machine's speed. */
const REFUSED_DURING_OUTAGE = 20;
/** Load goes on after recovery until this many requests were sent and answered afterwards. */
const ANSWERED_AFTER_RECOVERY = 16;
/**
 * A change made through another instance while the credential and offers caches hold the old
 * state (60 s) must be seen long before those expire: by this bound it was heard, not waited out.
 */
const HEARD_WITHIN_MS = 30_000;

interface Outcome {
  route: string;
  id: string;
  status: number;
  body: unknown;
  retryAfter: string | null;
  /** As the test's client measured it, for the figures printed; the bound is checked on the service's own. */
  ms: number;
  at: number;
}

/** The database URL with its host and port replaced by the proxy's. */
function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}

type Request = { route: string; send: (signal: AbortSignal, requestId: string) => Promise<Response> };

/** Sends one request with an id of its own; its status (0 when it got no answer), body, Retry-After and time taken. */
async function measure(request: Request): Promise<Outcome> {
  const id = crypto.randomUUID();
  const started = performance.now();
  try {
    const response = await request.send(AbortSignal.timeout(CLIENT_GIVES_UP_MS), id);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON; kept as text for the assertion message
    }
    const retryAfter = response.headers.get('retry-after');
    return { route: request.route, id, status: response.status, body, retryAfter, ms: performance.now() - started, at: started };
  } catch (error) {
    return { route: request.route, id, status: 0, body: String(error), retryAfter: null, ms: performance.now() - started, at: started };
  }
}

/** Sends requests from `concurrency` loops into `outcomes` until `until()` says stop; bounded by `maxMs` and `maxRequests`. */
async function load(
  requests: Request[],
  outcomes: Outcome[],
  options: { concurrency: number; until: () => boolean; maxMs: number; maxRequests: number },
): Promise<void> {
  const deadline = performance.now() + options.maxMs;
  let sent = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, lane) => {
      while (!options.until() && performance.now() < deadline && sent < options.maxRequests) {
        const request = requests[(sent + lane) % requests.length]!;
        sent += 1;
        outcomes.push(await measure(request));
      }
    }),
  );
}

/**
 * Each answered request with the time the service took for it. A response can reach the client
 * before the service's log line about it reaches the test, so this waits (bounded) for those lines.
 */
async function serviceTimes(
  service: ServiceProcess,
  outcomes: Outcome[],
): Promise<Array<{ route: string; status: number; ms: number | null }>> {
  const answered = outcomes.filter((o) => o.status !== 0);
  await waitUntil(async () => {
    const times = responseTimes(service);
    return answered.every((o) => times.has(o.id));
  }, 30_000).catch(() => undefined);
  const times = responseTimes(service);
  return answered.map((o) => ({ route: o.route, status: o.status, ms: times.get(o.id) ?? null }));
}

/** The answers the service took `ANSWER_WITHIN_MS` or longer for (or did not log), for the assertion message. */
async function tooSlow(service: ServiceProcess, outcomes: Outcome[]) {
  return (await serviceTimes(service, outcomes)).filter((answer) => answer.ms === null || answer.ms >= ANSWER_WITHIN_MS);
}

/** The slowest answer of each route, as the service measured it. */
async function slowestByRoute(service: ServiceProcess, outcomes: Outcome[]): Promise<Record<string, number>> {
  const slowest: Record<string, number> = {};
  for (const answer of await serviceTimes(service, outcomes))
    slowest[answer.route] = Math.max(slowest[answer.route] ?? 0, Math.round(answer.ms ?? Infinity));
  return slowest;
}

describe('faults', () => {
  let database: TestDatabase;
  let support: ServiceContext;
  let platformId: string;
  const running: Array<{ kill: () => Promise<void> }> = [];
  const proxies: TcpProxy[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    support = { db: database.db, bus: new InvalidationBus(), serviceEnv: 'test' };
    ({ platformId } = await createPlatform(support));
  });

  afterAll(async () => {
    await Promise.all(running.map((process) => process.kill()));
    for (const proxy of proxies) await proxy.cut();
    await database.close();
  });

  const baseEnv = () => ({ SERVICE_ENV: 'test', LOG_LEVEL: 'silent', ADMIN_TOKEN, DEMO_PORT: '0' });
  /** For the tests below that are not about the database bounds: a request must not be answered 503 for the machine's load. */
  const patientEnv = () => ({ ...baseEnv(), ...PATIENT_DATABASE_ENV });
  const start = async (env: Record<string, string>) => {
    const service = await startService(env);
    running.push(service);
    return service;
  };

  it('PostgreSQL unreachable under load: 503 in the error shape within bounded time, no crash, recovery by itself', async () => {
    const proxy = await TcpProxy.start(POSTGRES);
    proxies.push(proxy);
    const brand = await createBrand(support);
    for (let i = 0; i < 2; i += 1) await seedPartnerOffer(support, brand.companyId);
    // Limits out of the way: this test is about the database, and the load would otherwise reach them.
    // LOG_LEVEL info: the service logs the time it took for each request.
    const service = await start({
      ...baseEnv(),
      LOG_LEVEL: 'info',
      DATABASE_URL: throughProxy(database.url!, proxy),
      RATE_LIMIT_PER_MINUTE: '1000000',
      OFFERS_RATE_LIMIT_PER_MINUTE: '1000000',
    });
    const headers = { 'x-api-key': brand.key, 'x-platform-id': platformId };
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
    const proxy = await TcpProxy.start(POSTGRES);
    proxies.push(proxy);
    const brand = await createBrand(support);
    for (let i = 0; i < 2; i += 1) await seedPartnerOffer(support, brand.companyId);
    // LOG_LEVEL info: the time the service took for each request, and the batches it settled.
    const service = await start({
      ...baseEnv(),
      LOG_LEVEL: 'info',
      DATABASE_URL: throughProxy(database.url!, proxy),
      RATE_LIMIT_PER_MINUTE: '1000000',
      OFFERS_RATE_LIMIT_PER_MINUTE: '1000000',
    });
    const headers = { 'x-api-key': brand.key, 'x-platform-id': platformId };
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

  it(`Redis unreachable: rate limits fall back to each instance, changes still reach every \
instance, no 5xx; shared again once Redis is back`, async () => {
    const proxy = await TcpProxy.start(REDIS);
    proxies.push(proxy);
    const limit = 10;
    const env = {
      ...patientEnv(),
      DATABASE_URL: database.url!,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}/12`,
      OFFERS_RATE_LIMIT_PER_MINUTE: String(limit),
      RUN_BACKGROUND_JOBS: 'false',
    };
    const [a, b] = await Promise.all([start(env), start(env)]);
    const offers = (service: ServiceProcess, key: string) =>
      fetch(`${service.baseUrl}/v1/campaigns/offers?type=post-purchase`, { headers: { 'x-api-key': key, 'x-platform-id': platformId } });

    await proxy.cut();
    const cutBrand = await createBrand(support);
    await seedPartnerOffer(support, cutBrand.companyId);
    const perInstance = async (service: ServiceProcess) =>
      Promise.all(Array.from({ length: limit + 5 }, () => offers(service, cutBrand.key).then((r) => r.status)));
    const [fromA, fromB] = await Promise.all([perInstance(a), perInstance(b)]);
    // Counted in each process: each instance still enforces the limit on its own.
    for (const statuses of [fromA, fromB]) {
      expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
      expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    }

    // Invalidations also travel over PostgreSQL, so a revocation still reaches the other instance.
    const revoked = await createBrand(support);
    const partners = () => fetch(`${b.baseUrl}/v1/partners`, { headers: { 'x-api-key': revoked.key } });
    expect((await partners()).status).toBe(200);
    const revoke = await fetch(`${a.baseUrl}/admin/brand-keys/${revoked.keyId}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(revoke.status).toBe(200);
    // Within one second when measured here; the bound is what tells heard from a 60 s cache expiring.
    const refusedAfter = await waitUntil(async () => (await partners()).status === 401, HEARD_WITHIN_MS);
    console.info(`with Redis cut, a key revoked through one instance was refused by the other ${Math.round(refusedAfter)} ms later`);

    // Other routes answer as usual meanwhile.
    for (const service of [a, b]) {
      const list = await fetch(`${service.baseUrl}/v1/campaigns`, { headers: { 'x-api-key': cutBrand.key } });
      expect(list.status).toBe(200);
    }

    await proxy.restore();
    // ioredis reconnects by itself (with backoff); then a fresh brand is counted across both again.
    await waitUntil(
      async () => {
        const probe = await createBrand(support);
        await seedPartnerOffer(support, probe.companyId);
        const statuses = await Promise.all(
          Array.from({ length: limit + 4 }, (_, i) => offers(i % 2 ? a : b, probe.key).then((r) => r.status)),
        );
        return statuses.filter((s) => s === 200).length === limit;
      },
      60_000,
      500,
    );
  });

  it('Redis frozen (connection open, nothing answers): offers are answered within the 5 s bound, counted in process, no 5xx', async () => {
    const proxy = await TcpProxy.start(REDIS);
    proxies.push(proxy);
    const limit = 10;
    const service = await start({
      ...patientEnv(),
      DATABASE_URL: database.url!,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}/12`,
      REDIS_COMMAND_TIMEOUT_MS: '250',
      OFFERS_RATE_LIMIT_PER_MINUTE: String(limit),
      RUN_BACKGROUND_JOBS: 'false',
    });
    const brand = await createBrand(support);
    await seedPartnerOffer(support, brand.companyId);
    proxy.freeze();
    const timed = async () => {
      const began = performance.now();
      const response = await fetch(`${service.baseUrl}/v1/campaigns/offers?type=post-purchase`, {
        headers: { 'x-api-key': brand.key, 'x-platform-id': platformId },
      });
      return { status: response.status, ms: performance.now() - began };
    };
    const answers = await Promise.all(Array.from({ length: limit + 5 }, timed));
    // Without a command timeout every one of these waited for a Redis that never answers.
    expect(answers.filter((a) => a.status === 200)).toHaveLength(limit);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
    const slowest = Math.max(...answers.map((a) => a.ms));
    console.info(`with Redis frozen, the slowest of ${answers.length} offers answers took ${Math.round(slowest)} ms`);
    expect(slowest).toBeLessThan(5000);
    await proxy.restore();
    expect(await service.stop()).toBe(0);
  });

  it(`SIGTERM with clicks in flight: each is answered after the signal and written \
before exit; SIGKILL after a burst loses none`, async () => {
    const brand = await createBrand(support);
    for (let i = 0; i < 3; i += 1) await seedPartnerOffer(support, brand.companyId);
    const env = { ...patientEnv(), DATABASE_URL: database.url! };
    const first = await start(env);
    const shown = (await (
      await fetch(`${first.baseUrl}/v1/campaigns/offers?type=post-purchase`, {
        headers: { 'x-api-key': brand.key, 'x-platform-id': platformId },
      })
    ).json()) as { offers: Array<{ referralUrl: string }> };
    const paths = shown.offers.map((offer) => new URL(offer.referralUrl).pathname);
    expect(paths).toHaveLength(3);

    const click = async (service: ServiceProcess, i: number) => {
      try {
        const response = await fetch(`${service.baseUrl}${paths[i % paths.length]}`, { redirect: 'manual' });
        // Connection: close is what the service sends on responses it finishes once shutting down.
        return { status: response.status, closed: response.headers.get('connection') === 'close' };
      } catch {
        return { status: 0, closed: false };
      }
    };

    // SIGKILL right after the last redirect of a burst.
    let before = await totalCounts(database.db);
    const killed = await Promise.all(spreadBurst(300, (i) => click(first, i)));
    await first.kill();
    expect(killed.filter((o) => o.status !== 302)).toEqual([]);
    expect((await totalCounts(database.db)).clicks).toBe(before.clicks + killed.length);

    // SIGTERM while clicks are provably in flight: the test's own connection holds a lock their
    // counter write waits for, until the service is shutting down. LOG_LEVEL info: it logs each request it begins.
    const held = 30;
    const second = await start({ ...env, LOG_LEVEL: 'info' });
    before = await totalCounts(database.db);
    const lock = await TableLock.take(database.url!, 'attribution_counters');
    let pending: Array<Promise<{ status: number; closed: boolean }>> = [];
    try {
      pending = Array.from({ length: held }, (_, i) => click(second, i));
      const begun = () => paths.reduce((sum, path) => sum + requestsBegun(second, path), 0);
      await waitUntil(async () => begun() === held && (await lock.waiting()) > 0, 60_000);
      second.terminate();
      await untilShuttingDown(second);
    } finally {
      await lock.release();
    }
    const outcomes = await Promise.all(pending);
    expect(await second.stop()).toBe(0);
    expect(outcomes.filter((o) => o.status !== 302 || !o.closed)).toEqual([]);
    expect((await totalCounts(database.db)).clicks).toBe(before.clicks + held);
  });

  it('a worker killed during a scoring batch: the queue resumes on restart and every brand is scored, once', async () => {
    // A database of its own: scoring cost grows with the number of brands, so this one holds only them.
    const own = await createTestDatabase('postgres');
    try {
      const brands = 300;
      await sql`
        insert into companies (id, domain, business_name, categories, country, business_size, product_count)
        select 'load-' || i, 'load-' || i || '.example', 'Load ' || i,
               array[(array['home','beauty','pets','outdoor'])[1 + i % 4]], (array['US','DE','FR'])[1 + i % 3],
               (array['Small','Medium','Large'])[1 + i % 3], 10 + i
        from generate_series(1, ${brands}) as i`.execute(own.db);
      const queued = async () =>
        Number((await sql<{ n: number }>`select count(*)::int8 as n from scoring_queue`.execute(own.db)).rows[0]!.n);
      expect(await queued()).toBe(brands);

      const env = { ...baseEnv(), DATABASE_URL: own.url!, LOG_LEVEL: 'info' };
      // The batch holding the last two brands the queue hands out is held mid-way, whatever the
      // machine's speed: the test's own transaction has written a score of one for the other, not
      // committed, so that batch's upsert waits for it. The batches before it commit.
      const order = await sql<{ company_id: string }>`select company_id from scoring_queue order by queued_at, company_id`.execute(own.db);
      const [company, candidate] = order.rows.slice(-2).map((row) => row.company_id);
      const holder = new pg.Client({ connectionString: own.url });
      await holder.connect();
      let left: number;
      try {
        await holder.query('begin');
        await holder.query(
          'insert into recommendation_scores (company_id, candidate_id, match_rate, scored_at) values ($1, $2, 0, now())',
          [company, candidate],
        );
        const first: WorkerProcess = await startWorker(env);
        running.push(first);
        await waitUntil(
          async () =>
            Number(
              (
                await sql<{
                  n: number;
                }>`select count(*)::int8 as n from pg_stat_activity
                   where wait_event_type = 'Lock' and datname = current_database()`.execute(own.db)
              ).rows[0]!.n,
            ) > 0,
          60_000,
        );
        await first.kill();
        // Brands of the held batch are still queued (its transaction never commits); the others were scored.
        left = await queued();
      } finally {
        await holder.query('rollback');
        await holder.end();
      }
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(brands);

      const second = await startWorker(env);
      running.push(second);
      await waitUntil(async () => (await queued()) === 0, 60_000, 100);
      const counted = await sql<{ rows: number; scored: number; last: Date }>`
        select count(*)::int8 as rows, count(distinct company_id)::int8 as scored, max(scored_at) as last
        from recommendation_scores`.execute(own.db);
      expect(Number(counted.rows[0]!.scored)).toBe(brands);
      expect(Number(counted.rows[0]!.rows)).toBe(brands * (brands - 1));
      // Nothing is scored again once the queue is empty.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const again = await sql<{ last: Date }>`select max(scored_at) as last from recommendation_scores`.execute(own.db);
      expect(again.rows[0]!.last.getTime()).toBe(counted.rows[0]!.last.getTime());
      expect(await second.stop()).toBe(0);
    } finally {
      await own.close();
    }
  });

  it('a worker killed during store setup: the other worker resumes once the lease runs out, and each step takes effect once', async () => {
    const domain = `resume-${crypto.randomBytes(4).toString('hex')}.example`;
    const setupLog = (worker: WorkerProcess, message: string) =>
      worker
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; domain?: string; step?: string })
        .filter((entry) => entry.msg === message && entry.domain === domain)
        .map((entry) => entry.step);
    // The API instance runs no jobs: setup is the workers' alone. A 12 s import, a 3 s lease renewed
    // every second while it runs: a worker starved of the CPU for a moment still keeps its job.
    const service = await start({ ...patientEnv(), DATABASE_URL: database.url!, RUN_BACKGROUND_JOBS: 'false' });
    const workerEnv = {
      ...patientEnv(),
      DATABASE_URL: database.url!,
      LOG_LEVEL: 'info',
      SANDBOX_IMPORT_MS: '12000',
      SETUP_LEASE_MS: '3000',
      SETUP_POLL_MS: '100',
    };
    const workers = await Promise.all([startWorker(workerEnv), startWorker(workerEnv)]);
    running.push(...workers);

    // The store's owner installs the app and approves the plan at the sandbox.
    const owner = await StoreOwner.signIn(fetchTransport(service.baseUrl), domain);
    expect((await owner.post('install')).status).toBe(200);
    expect((await owner.post('plan')).status).toBe(200);
    const job = () => database.db.selectFrom('setup_jobs').selectAll().where('domain', '=', domain).executeTakeFirstOrThrow();

    // One worker claims the job and starts the import.
    await waitUntil(async () => workers.some((worker) => setupLog(worker, 'store setup step started').length > 0), 60_000);
    const holder = workers.find((worker) => setupLog(worker, 'store setup step started').length > 0)!;
    const other = workers.find((worker) => worker !== holder)!;
    expect(setupLog(holder, 'store setup step started')).toEqual(['import']);
    // Two lease lengths later the holder is still importing, and has kept the other worker off the job.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(setupLog(other, 'store setup step started')).toEqual([]);
    expect(await job()).toMatchObject({ step: 'import', status: 'pending' });
    await holder.kill();

    await waitUntil(async () => (await job()).status === 'done', 90_000, 100);
    // The worker logs a step's end after its commit, and the test reads that line through a pipe:
    // on a loaded machine the last line can arrive after the job reads done.
    await waitUntil(async () => setupLog(other, 'store setup step finished').includes('match'), 30_000, 50);
    expect(setupLog(holder, 'store setup step finished')).toEqual([]);
    expect(setupLog(other, 'store setup step started')).toEqual(['import', 'offer', 'match']);
    expect(setupLog(other, 'store setup step finished')).toEqual(['import', 'offer', 'match']);
    expect(
      workers.flatMap((worker) => setupLog(worker, 'store setup lease lost: another worker has the job, so this result is dropped')),
    ).toEqual([]);

    // The merchant turns cross-promotion on, twice over (a double click), with the store token the
    // owner's confirmation at the sandbox gave the embed app: one code in the store.
    const token = await merchantToken(fetchTransport(service.baseUrl), owner, platformId);
    const consent = () =>
      fetch(`${service.baseUrl}/plugin/v2/consent`, {
        method: 'POST',
        headers: { origin: service.baseUrl, 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ platformId, domain, discountPercent: 15, acceptTerms: true }),
      });
    const [once, twice] = await Promise.all([consent(), consent()]);
    expect([once.status, twice.status]).toEqual([200, 200]);
    expect(await once.json()).toMatchObject({ stage: 'live', offer: { discountPercent: 15 } });

    const companies = await database.db.selectFrom('companies').select('id').where('domain', '=', domain).execute();
    expect(companies).toHaveLength(1);
    const companyId = companies[0]!.id;
    expect(await database.db.selectFrom('merchant_stores').select('domain').where('domain', '=', domain).execute()).toHaveLength(1);
    expect(await database.db.selectFrom('offers').select('live').where('company_id', '=', companyId).execute()).toEqual([{ live: true }]);
    expect(
      await database.db
        .selectFrom('sandbox_discount_codes')
        .select(['percent', 'once_per_customer'])
        .where('store_domain', '=', domain)
        .execute(),
    ).toEqual([{ percent: 15, once_per_customer: true }]);
    const scored = await database.db
      .selectFrom('recommendation_scores')
      .select('candidate_id')
      .where('company_id', '=', companyId)
      .execute();
    expect(scored.length).toBeGreaterThan(0);
    expect(await other.stop()).toBe(0);
  });
});
