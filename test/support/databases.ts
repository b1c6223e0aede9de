import crypto from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseBounds, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrator.js';

export type DatabaseKind = 'pglite' | 'postgres';

export const DATABASE_KINDS: DatabaseKind[] = ['pglite', 'postgres'];

/** The PostgreSQL server the suite uses; each test file gets a database of its own on it. */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Bounds for the suite's own databases: generous, since tests share two cores with everything
 * else and are not about them. Tests of the bounds open their databases with bounds of their own.
 */
export const TEST_DATABASE_BOUNDS: DatabaseBounds = {
  connectTimeoutMs: 30_000,
  statementTimeoutMs: 120_000,
  queryTimeoutMs: 125_000,
  idleInTransactionTimeoutMs: 120_000,
  keepAliveMs: 5_000,
};

/**
 * The same bounds as settings, for the service a test starts (in process or as its own process):
 * with the defaults a request waits at most 4 s for the database and is then answered 503, which
 * a burst on a loaded machine reaches (300 requests queued for 10 connections, or for PGlite's
 * one), and a write a test holds on purpose does. Tests of the bounds set their own.
 */
export const PATIENT_DATABASE_ENV: Record<string, string> = {
  DATABASE_CONNECT_TIMEOUT_MS: String(TEST_DATABASE_BOUNDS.connectTimeoutMs),
  DATABASE_STATEMENT_TIMEOUT_MS: String(TEST_DATABASE_BOUNDS.statementTimeoutMs),
  DATABASE_QUERY_TIMEOUT_MS: String(TEST_DATABASE_BOUNDS.queryTimeoutMs),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(TEST_DATABASE_BOUNDS.idleInTransactionTimeoutMs),
};

export interface TestDatabase extends DatabaseHandle {
  /** Set for PostgreSQL: the URL of this test's own database. */
  url: string | undefined;
}

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export async function createTestDatabase(kind: DatabaseKind, options: { onQuery?: (sql: string) => void } = {}): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const handle = await openDatabase({ onQuery: options.onQuery, bounds: TEST_DATABASE_BOUNDS });
    await migrateToLatest(handle.db);
    return { ...handle, url: undefined };
  }
  const name = `svc_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = withDatabaseName(TEST_POSTGRES_URL, name);
  const handle = await openDatabase({ databaseUrl: url, poolSize: 5, onQuery: options.onQuery, bounds: TEST_DATABASE_BOUNDS });
  await migrateToLatest(handle.db);
  return {
    ...handle,
    url,
    close: async () => {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
