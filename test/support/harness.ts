import { afterAll, beforeAll, describe } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import type { Runtime } from '../../src/composition.js';
import type { ServiceContext } from '../../src/service-context.js';
import {
  createTestDatabase,
  DATABASE_KINDS,
  HTTP_ENGINES,
  PATIENT_DATABASE_ENV,
  type DatabaseKind,
  type TestDatabase,
} from './databases.js';

export interface TestContext {
  kind: DatabaseKind;
  app: App;
  db: Db;
  runtime: Runtime;
  config: Config;
  database: TestDatabase;
  support: ServiceContext;
}

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    SERVICE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN,
    BASE_URL: 'http://svc.test',
    ...PATIENT_DATABASE_ENV,
    ...overrides,
  });
}

export async function startTestApp(
  kind: DatabaseKind,
  env: Record<string, string> = {},
  databaseOptions: Parameters<typeof createTestDatabase>[1] = {},
): Promise<TestContext> {
  const database = await createTestDatabase(kind, databaseOptions);
  const config = testConfig({ ...(database.url ? { DATABASE_URL: database.url } : {}), ...env });
  const app = await buildApp({ config, database });
  await app.ready();
  const { runtime } = app;
  return {
    kind,
    app,
    db: database.db,
    runtime,
    config,
    database,
    support: { db: database.db, bus: runtime.bus, serviceEnv: config.serviceEnv },
  };
}

export async function stopTestApp(context: TestContext): Promise<void> {
  await context.app.close();
  await context.database.close();
}

/**
 * Runs a suite on each engine an HTTP-level suite runs on (HTTP_ENGINES: PostgreSQL), with its own
 * fresh database and app. `use()` returns the context inside tests. A suite of the data layer, where
 * the engines differ, passes DATABASE_KINDS as `engines`, or calls describeOnBothEngines.
 */
export function describeEachDatabase(
  name: string,
  body: (use: () => TestContext) => void,
  env: Record<string, string> = {},
  engines: readonly DatabaseKind[] = HTTP_ENGINES,
): void {
  for (const kind of engines) {
    describe(`${name} [${kind}]`, () => {
      let context: TestContext | undefined;
      beforeAll(async () => {
        context = await startTestApp(kind, env);
      });
      afterAll(async () => {
        if (context) await stopTestApp(context);
      });
      body(() => {
        if (!context) throw new Error('test context not ready');
        return context;
      });
    });
  }
}

/** describeEachDatabase on PGlite and on the PostgreSQL server: for the data layer, where the engines differ. */
export function describeOnBothEngines(name: string, body: (use: () => TestContext) => void, env: Record<string, string> = {}): void {
  describeEachDatabase(name, body, env, DATABASE_KINDS);
}
