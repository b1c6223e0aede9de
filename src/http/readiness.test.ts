import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.js';
import { testConfig } from '../../test/support/harness.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.js';
import { READINESS_INTERVAL_MS } from './readiness.js';

/** The readiness query: the one `select 1` the service sends (src/db/database.ts, pingDatabase). */
const isReadinessQuery = (sql: string) => sql.trim().toLowerCase() === 'select 1';

/**
 * `/readyz` is unlimited, for the orchestrator's probes, and anyone may call it: however many
 * requests arrive, an instance asks the database at most once per READINESS_INTERVAL_MS (issue 44).
 */
describe('/readyz under a stranger’s load', () => {
  let database: TestDatabase;
  let app: App;
  let readinessQueries = 0;

  beforeAll(async () => {
    database = await createTestDatabase('postgres', {
      onQuery: (sql) => {
        if (isReadinessQuery(sql)) readinessQueries += 1;
      },
    });
    app = await buildApp({ config: testConfig({ DATABASE_URL: database.url! }), database });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  /** The most queries `elapsedMs` of requests may cost: one per interval begun, and one running at the start. */
  const allowedFor = (elapsedMs: number) => Math.floor(elapsedMs / READINESS_INTERVAL_MS) + 2;

  it('answers 500 requests at once with one shared query, and back-to-back requests with one query per interval', async () => {
    const before = readinessQueries;
    const burstStarted = performance.now();
    const burst = await Promise.all(Array.from({ length: 500 }, () => app.inject({ method: 'GET', url: '/readyz' })));
    const burstMs = performance.now() - burstStarted;
    expect(burst.every((response) => response.statusCode === 200)).toBe(true);
    expect(burst[0]!.json()).toEqual({ status: 'ready', database: 'postgres' });
    expect(readinessQueries - before).toBeGreaterThanOrEqual(1);
    expect(readinessQueries - before).toBeLessThanOrEqual(allowedFor(burstMs));

    // One after another for two and a half intervals: a fresh answer each interval, never one a request.
    const streamBefore = readinessQueries;
    const streamStarted = performance.now();
    let requests = 0;
    while (performance.now() - streamStarted < 2.5 * READINESS_INTERVAL_MS) {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      requests += 1;
    }
    const asked = readinessQueries - streamBefore;
    expect(requests).toBeGreaterThan(asked * 10);
    expect(asked).toBeGreaterThanOrEqual(2);
    expect(asked).toBeLessThanOrEqual(allowedFor(performance.now() - streamStarted));
  });

  it('reports a database that went away within one interval of the last answer', async () => {
    const gone = await createTestDatabase('postgres');
    const broken = await buildApp({ config: testConfig({ DATABASE_URL: gone.url! }), database: gone });
    try {
      await broken.ready();
      expect((await broken.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await gone.close();
      const closedAt = performance.now();
      let response = await broken.inject({ method: 'GET', url: '/readyz' });
      while (response.statusCode === 200) {
        // Still the answer given before the database went: only within the interval.
        expect(performance.now() - closedAt).toBeLessThan(READINESS_INTERVAL_MS);
        await new Promise((resolve) => setTimeout(resolve, 50));
        response = await broken.inject({ method: 'GET', url: '/readyz' });
      }
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ error: 'service_unavailable', message: 'database is not reachable' });
    } finally {
      await broken.close();
    }
  });
});
