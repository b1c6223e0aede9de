import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, sql, type LogConfig } from 'kysely';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGlitePool } from './pglite-pool.js';
import { PreparingClient } from './prepared.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

// Counts and sums fit in a JS number; PGlite already parses int8 this way, so both engines agree.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface DatabaseOptions {
  databaseUrl?: string;
  /** Directory for PGlite's files; omitted means an in-memory database. */
  dataDir?: string;
  poolSize?: number;
  /** Called with the SQL of every statement sent, transaction control included (tests count them). */
  onQuery?: (sql: string) => void;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      Client: PreparingClient,
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its server must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    // The pool listens for errors only on idle clients; a checked-out client whose server goes
    // away between two queries (inside a transaction) would otherwise crash the process with an
    // unhandled 'error'. Its next query fails instead, which the error handler answers with 503.
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: queryLog(options) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }

  // Brand search runs on a trigram index (migration 0009); PGlite loads the extension on demand.
  const extensions = { pg_trgm };
  let pglite: PGlite;
  if (options.dataDir) {
    const dir = path.join(options.dataDir, 'pglite');
    fs.mkdirSync(dir, { recursive: true });
    pglite = await PGlite.create(dir, { extensions });
  } else {
    pglite = await PGlite.create({ extensions });
  }
  const pool = new PGlitePool(pglite);
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: pool as unknown as pg.Pool }),
    log: queryLog(options),
  });
  return { db, kind: 'pglite', close: () => db.destroy() };
}

function queryLog({ onQuery }: DatabaseOptions): LogConfig | undefined {
  return onQuery && ((event) => onQuery(event.query.sql));
}

export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
