import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidationBus } from '../../src/cache/invalidation.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { createTestDatabase, TEST_DATABASE_BOUNDS, type DatabaseKind } from '../support/databases.js';
import { createBrand, createPlatform } from '../support/factories.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { seedPartnerOffer, totalViews } from './seed.js';
import { spreadBurst } from '../support/burst.js';

const BURST = 300;

interface Outcome {
  status: number;
  offers: number;
  at: number;
}

/** Where the service keeps its data, and how the test reaches it while the service is not running. */
interface Storage {
  env: Record<string, string>;
  /** Runs `use` on the database; on PGlite only while no service holds the data directory. */
  withDb<T>(use: (db: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function postgresStorage(): Promise<Storage> {
  const database = await createTestDatabase('postgres');
  return { env: { DATABASE_URL: database.url! }, withDb: (use) => use(database.db), close: () => database.close() };
}

/** PGlite in a data directory, no DATABASE_URL: the database `npm start` uses by default. */
async function pgliteStorage(): Promise<Storage> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-durability-'));
  const withDb = async <T>(use: (db: Db) => Promise<T>): Promise<T> => {
    const handle = await openDatabase({ dataDir, bounds: TEST_DATABASE_BOUNDS });
    try {
      await migrateToLatest(handle.db);
      return await use(handle.db);
    } finally {
      await handle.close();
    }
  };
  return { env: { DATA_DIR: dataDir, DATABASE_URL: '' }, withDb, close: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}

const STORAGES: Array<[DatabaseKind, () => Promise<Storage>]> = [
  ['postgres', postgresStorage],
  ['pglite', pgliteStorage],
];

/**
 * The real server as its own process, on PostgreSQL and on PGlite: every offer in a 200 response
 * must be a recorded view even when the process dies the instant the last response is out.
 */
// Starting real processes on a loaded machine can take many seconds; the assertions do not depend on speed.
describe.each(STORAGES)('offer views are durable once the response is sent [%s]', (_kind, openStorage) => {
  let storage: Storage;
  let platformId: string;
  let key: string;
  let env: Record<string, string>;
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    storage = await openStorage();
    await storage.withDb(async (db) => {
      const support = { db, bus: new InvalidationBus(), serviceEnv: 'test' as const };
      ({ platformId } = await createPlatform(support));
      const brand = await createBrand(support);
      key = brand.key;
      for (let i = 0; i < 3; i += 1) await seedPartnerOffer(support, brand.companyId);
    });
    env = { ...storage.env, SERVICE_ENV: 'test', LOG_LEVEL: 'silent', ADMIN_TOKEN, DEMO_PORT: '0' };
  }, 60_000);

  afterAll(async () => {
    for (const service of running) await service.kill();
    await storage?.close();
  });

  const start = async () => {
    const service = await startService(env);
    running.push(service);
    return service;
  };

  const burst = (service: ServiceProcess): Array<Promise<Outcome>> =>
    spreadBurst(BURST, async () => {
      try {
        const response = await fetch(`${service.baseUrl}/v1/campaigns/offers?type=post-purchase`, {
          headers: { 'x-api-key': key, 'x-platform-id': platformId },
        });
        const body = (await response.json()) as { offers?: unknown[] };
        return { status: response.status, offers: response.status === 200 ? body.offers!.length : 0, at: performance.now() };
      } catch {
        // Refused or cut off by the shutdown: no response, no view owed.
        return { status: 0, offers: 0, at: performance.now() };
      }
    });

  const offersIn200s = (outcomes: Outcome[]) => outcomes.filter((o) => o.status === 200).reduce((sum, o) => sum + o.offers, 0);

  it('SIGKILL right after the last response of a burst loses no view', async () => {
    const before = await storage.withDb(totalViews);
    const service = await start();
    const outcomes = await Promise.all(burst(service));
    await service.kill();

    // Listing the odd ones out makes a failure say what went wrong.
    expect(outcomes.filter((o) => o.status !== 200 || o.offers !== 3)).toEqual([]);
    const restarted = await start();
    const stats = await fetch(`${restarted.baseUrl}/admin/platforms/${platformId}/stats`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect((await stats.json()) as unknown).toMatchObject({ views: before + offersIn200s(outcomes) });
    expect(await restarted.stop()).toBe(0);
  }, 180_000);

  it('SIGTERM finishes the requests in flight and writes their views before exiting', async () => {
    const before = await storage.withDb(totalViews);
    const service = await start();
    const pending = burst(service);
    await Promise.race(pending);
    const signalledAt = performance.now();
    service.process.kill('SIGTERM');
    const outcomes = await Promise.all(pending);
    expect(await service.stop()).toBe(0);

    const answeredAfterSignal = outcomes.filter((o) => o.status === 200 && o.at > signalledAt);
    expect(answeredAfterSignal.length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o.status !== 200 && o.status !== 503 && o.status !== 0)).toEqual([]);
    expect(await storage.withDb(totalViews)).toBe(before + offersIn200s(outcomes));
  }, 180_000);
});
