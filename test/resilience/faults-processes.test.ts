import crypto from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/service-context.js';
import { seedPartnerOffer } from '../durability/seed.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { createBrand } from '../support/factories.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { requestsBegun, untilShuttingDown, type ServiceProcess } from '../support/service-process.js';
import { TableLock } from '../support/table-lock.js';
import { startWorker, TcpProxy, totalCounts, waitUntil, type WorkerProcess } from './support.js';
import { spreadBurst } from '../support/burst.js';
import { fetchTransport, merchantToken, StoreOwner } from '../support/sandbox-owner.js';
import { REDIS, HEARD_WITHIN_MS, faultsFixture } from './faults.js';

/** The service when Redis goes away or silent, when it is signalled, and when a worker is killed mid-job (test/resilience/faults.ts). */
describe('faults: Redis, signals and killed workers', () => {
  let database: TestDatabase;
  let support: ServiceContext;
  let platformId: string;
  const { running, proxies, baseEnv, patientEnv, start } = faultsFixture((ground) => ({ database, support, platformId } = ground));

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
    // The API instance runs no jobs: setup is the workers' alone. A 6 s import, a 1.5 s lease renewed
    // every half second while it runs: a worker starved of the CPU for a moment still keeps its job.
    // What is proved is the relation (a lease kept while its holder lives, taken over once it ran out),
    // not the production lengths, so they are short here (the 12 s import and 3 s lease took 24 s).
    const service = await start({ ...patientEnv(), DATABASE_URL: database.url!, RUN_BACKGROUND_JOBS: 'false' });
    const workerEnv = {
      ...patientEnv(),
      DATABASE_URL: database.url!,
      LOG_LEVEL: 'info',
      SANDBOX_IMPORT_MS: '6000',
      SETUP_LEASE_MS: '1500',
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
    await new Promise((resolve) => setTimeout(resolve, 3_000));
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
