import crypto from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidationBus } from '../../src/cache/invalidation.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { ServiceContext } from '../../src/service-context.js';
import { seedPartnerOffer } from '../durability/seed.js';
import { createTestDatabase, PATIENT_DATABASE_ENV, type TestDatabase } from '../support/databases.js';
import { createBrandUser } from '../../src/accounts/users.js';
import { createBrand, createPlatform, uniqueId } from '../support/factories.js';
import { PASSWORD } from '../support/oauth-flow.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { startWorker, totalCounts, waitUntil, type WorkerProcess } from './support.js';
import { fetchTransport, StoreOwner } from '../support/sandbox-owner.js';

/** Small enough that a test reaches it in a moment; the limit itself is the production code path. */
const OFFERS_LIMIT = 24;
/** A Redis database of its own, so rate-limit counters of other test files never meet these. */
const REDIS_URL = 'redis://127.0.0.1:6379/11';
/**
 * A change made through one instance is seen by the other within about 20 to 40 ms here (printed
 * by each test); the docs promise one second. The test's client timing it is slowed by the
 * machine's load, so the bound checked is the one that tells a change heard from one waited out:
 * the credential and offers caches keep the old state for 60 s.
 */
const HEARD_WITHIN_MS = 30_000;
/** Polls of the offers within that bound stay inside the brand's small offers limit (20 at most, besides the test's own 2). */
const POLL_OFFERS_MS = 1_500;

const queued = async (database: TestDatabase) =>
  Number((await sql<{ n: number }>`select count(*)::int8 as n from scoring_queue`.execute(database.db)).rows[0]!.n);

describe('configuration of the API-only process', () => {
  it('turns background jobs off only where a worker can share the database', () => {
    expect(loadConfig({}).runBackgroundJobs).toBe(true);
    expect(loadConfig({ RUN_BACKGROUND_JOBS: 'false', DATABASE_URL: 'postgres://u@db/x' }).runBackgroundJobs).toBe(false);
    expect(() => loadConfig({ RUN_BACKGROUND_JOBS: 'false' })).toThrow(/RUN_BACKGROUND_JOBS=false needs DATABASE_URL/);
    expect(() => loadConfig({ RUN_BACKGROUND_JOBS: 'no' })).toThrow(ConfigError);
  });
});

/**
 * Two API processes (RUN_BACKGROUND_JOBS=false) and one worker process against one fresh
 * PostgreSQL database and one Redis: what one instance does, the other sees.
 */
describe('two API instances and a worker on one PostgreSQL and one Redis', () => {
  let database: TestDatabase;
  let support: ServiceContext;
  let platformId: string;
  let env: Record<string, string>;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let worker: WorkerProcess | undefined;

  const offers = (service: ServiceProcess, key: string, platform = platformId) =>
    fetch(`${service.baseUrl}/v1/campaigns/offers?type=post-purchase`, { headers: { 'x-api-key': key, 'x-platform-id': platform } });
  const admin = (service: ServiceProcess, path: string) =>
    fetch(`${service.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    support = { db: database.db, bus: new InvalidationBus(), serviceEnv: 'test' };
    ({ platformId } = await createPlatform(support));
    // Patient database bounds: these tests count answers, which must not be 503 for the machine's load.
    env = {
      ...PATIENT_DATABASE_ENV,
      DATABASE_URL: database.url!,
      REDIS_URL,
      // Patient Redis too: past this wait an instance counts on its own for a while (the fault tests
      // check that), and then the two together would let more through than the shared limit.
      REDIS_COMMAND_TIMEOUT_MS: '10000',
      SERVICE_ENV: 'test',
      LOG_LEVEL: 'silent',
      ADMIN_TOKEN,
      RUN_BACKGROUND_JOBS: 'false',
      OFFERS_RATE_LIMIT_PER_MINUTE: String(OFFERS_LIMIT),
      DEMO_PORT: '0',
    };
    [a, b] = await Promise.all([startService(env), startService(env)]);
  });

  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill(), worker?.kill()]);
    await database.close();
  });

  it('API instances leave the scoring queue to the worker, which drains it', async () => {
    const brand = await createBrand(support, { categories: ['home'], country: 'US' });
    await createBrand(support, { categories: ['home'], country: 'US' });
    expect(await queued(database)).toBeGreaterThan(0);
    // The in-process scorer ticks every second; two API processes for 2.5 s would have drained it.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await queued(database)).toBeGreaterThan(0);

    worker = await startWorker({ ...env, LOG_LEVEL: 'info', BASE_URL: a.baseUrl });
    await waitUntil(async () => (await queued(database)) === 0, 60_000, 100);
    const scored = await database.db
      .selectFrom('recommendation_scores')
      .select('candidate_id')
      .where('company_id', '=', brand.companyId)
      .execute();
    expect(scored.length).toBeGreaterThan(0);
  });

  it('enforces the offers rate limit across both instances in total', async () => {
    const brand = await createBrand(support);
    await seedPartnerOffer(support, brand.companyId);
    const statuses = await Promise.all(
      Array.from({ length: OFFERS_LIMIT + 16 }, (_, i) => offers(i % 2 === 0 ? a : b, brand.key).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(OFFERS_LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(16);
    // Both instances refuse once the shared count is spent.
    for (const service of [a, b]) {
      const refused = await offers(service, brand.key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('ratelimit-limit')).toBe(String(OFFERS_LIMIT));
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    }
  });

  it('a brand key revoked through one instance is refused by the other at once, not when its cache expires', async () => {
    const brand = await createBrand(support);
    const partners = () => fetch(`${b.baseUrl}/v1/partners`, { headers: { 'x-api-key': brand.key } });
    // B has the key in its credential cache before the revocation.
    expect((await partners()).status).toBe(200);
    expect((await admin(a, `/admin/brand-keys/${brand.keyId}/revoke`)).status).toBe(200);
    const took = await waitUntil(async () => (await partners()).status === 401, HEARD_WITHIN_MS);
    console.info(`a revoked key was refused by the other instance ${Math.round(took)} ms later`);
  });

  it('a platform deactivated through one instance is refused by the other at once, not when its cache expires', async () => {
    const other = await createPlatform(support);
    const brand = await createBrand(support);
    await seedPartnerOffer(support, brand.companyId);
    const partners = () => fetch(`${b.baseUrl}/v1/partners`, { headers: { 'x-api-key': brand.key, 'x-platform-id': other.platformId } });
    expect((await partners()).status).toBe(200);
    expect((await offers(b, brand.key, other.platformId)).status).toBe(200);
    expect((await admin(a, `/admin/platforms/${other.platformId}/deactivate`)).status).toBe(200);
    const took = await waitUntil(async () => (await partners()).status === 400, HEARD_WITHIN_MS);
    console.info(`a deactivated platform was refused by the other instance ${Math.round(took)} ms later`);
    const refused = await offers(b, brand.key, other.platformId);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_platform' });
  });

  it('a campaign the merchant closes through one instance stops showing on the other at once, not when its cache expires', async () => {
    const brand = await createBrand(support);
    const shown = await seedPartnerOffer(support, brand.companyId);
    const closing = await seedPartnerOffer(support, brand.companyId);
    await database.db
      .insertInto('merchant_stores')
      .values({
        domain: closing.domain,
        company_id: closing.partnerId,
        consented_at: new Date(),
        discount_percent: 15,
        discount_code: closing.discountCode,
      })
      .execute();
    const titles = async () =>
      ((await (await offers(b, brand.key)).json()) as { offers: Array<{ title: string }> }).offers.map((o) => o.title);
    expect((await titles()).sort()).toEqual([shown.title, closing.title].sort());

    // The partner's brand is in the network, so support sets up its store owner's sign-in at the sandbox.
    const setOwner = await fetch(`${a.baseUrl}/admin/sandbox/stores/${closing.domain}/owner`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `owner@${closing.domain}` }),
    });
    expect(setOwner.status).toBe(201);
    const owner = await StoreOwner.signIn(fetchTransport(a.baseUrl), closing.domain, {
      email: `owner@${closing.domain}`,
      password: ((await setOwner.json()) as { password: string }).password,
    });
    const closed = await owner.post('close-campaign');
    expect(closed.status).toBe(303);
    const took = await waitUntil(async () => !(await titles()).includes(closing.title), HEARD_WITHIN_MS, POLL_OFFERS_MS);
    console.info(`a campaign closed at the sandbox left the other instance's offers ${Math.round(took)} ms later`);
    expect(await titles()).toEqual([shown.title]);
  });

  it(`a campaign its owner closes on the dashboard of one instance stops showing on \
the other at once, not when its cache expires`, async () => {
    const brand = await createBrand(support);
    const email = `${uniqueId('owner')}@scale-out.example`;
    await createBrandUser({ db: database.db }, brand.companyId, { email, password: PASSWORD });
    const shown = await seedPartnerOffer(support, brand.companyId);
    const closing = await seedPartnerOffer(support, brand.companyId);
    // Campaigns made on the dashboard have UUIDs, and its routes take only those.
    const campaignId = crypto.randomUUID();
    await database.db.updateTable('campaigns').set({ id: campaignId }).where('id', '=', closing.campaignId).execute();
    const titles = async () =>
      ((await (await offers(b, brand.key)).json()) as { offers: Array<{ title: string }> }).offers.map((o) => o.title);
    expect((await titles()).sort()).toEqual([shown.title, closing.title].sort());

    // The dashboard's own calls, as the browser makes them: session (CSRF token), sign-in, close.
    const dashboard = await dashboardSession(a.baseUrl);
    expect((await dashboard.post('/dashboard/api/sign-in', { email, password: PASSWORD })).status).toBe(200);
    const closed = await dashboard.post(`/dashboard/api/campaigns/${campaignId}/close`, {});
    expect(closed.status).toBe(200);
    const took = await waitUntil(async () => !(await titles()).includes(closing.title), HEARD_WITHIN_MS, POLL_OFFERS_MS);
    console.info(`a campaign closed on the dashboard left the other instance's offers ${Math.round(took)} ms later`);
    expect(await titles()).toEqual([shown.title]);
  });

  it('counts every view and every click exactly once, whichever instance answered', async () => {
    const brand = await createBrand(support);
    for (let i = 0; i < 3; i += 1) await seedPartnerOffer(support, brand.companyId);
    const before = await totalCounts(database.db);

    const responses = await Promise.all(Array.from({ length: OFFERS_LIMIT }, (_, i) => offers(i % 2 === 0 ? a : b, brand.key)));
    expect(responses.map((r) => r.status)).toEqual(Array(OFFERS_LIMIT).fill(200));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as Array<{ offers: Array<{ referralUrl: string }> }>;
    const shownViews = bodies.reduce((sum, body) => sum + body.offers.length, 0);
    expect(shownViews).toBe(OFFERS_LIMIT * 3);

    // Each link is followed once, on the instance that did not issue it.
    const links = bodies.flatMap((body) => body.offers.map((offer) => new URL(offer.referralUrl)));
    const clicks = await Promise.all(
      links.map((link) => {
        const other = link.origin === a.baseUrl ? b : a;
        return fetch(`${other.baseUrl}${link.pathname}`, { redirect: 'manual' }).then((r) => r.status);
      }),
    );
    expect(clicks).toEqual(Array(links.length).fill(302));

    expect(await totalCounts(database.db)).toEqual({ views: before.views + shownViews, clicks: before.clicks + links.length });
  });

  it('stops gracefully: the worker exits 0 on SIGTERM', async () => {
    expect(worker).toBeDefined();
    expect(await worker!.stop()).toBe(0);
    worker = undefined;
  });
});

/**
 * The dashboard API of a running instance over HTTP, keeping cookies and sending the CSRF header
 * as its page does (the token is the CSRF cookie's, which signing in renews).
 */
async function dashboardSession(baseUrl: string) {
  const cookies = new Map<string, string>();
  const keep = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    return response;
  };
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  keep(await fetch(`${baseUrl}/dashboard/api/session`));
  return {
    post: async (path: string, body: unknown) =>
      keep(
        await fetch(`${baseUrl}${path}`, {
          method: 'POST',
          // Node's fetch would send Origin: null; the page's own origin is what a browser sends.
          headers: {
            origin: baseUrl,
            cookie: cookieHeader(),
            'x-csrf-token': cookies.get('svc_csrf') ?? '',
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        }),
      ),
  };
}
