import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, sql, type LogConfig } from 'kysely';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGlitePool } from './pglite-pool.js';
import { PreparingClient } from './prepared.js';
import type { Database } from './schema.js';
import type { DatabaseLimits } from '../config.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

// Counts and sums fit in a JS number; PGlite already parses int8 this way, so both engines agree.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * How long each kind of wait on the database may last. A silent database (a frozen network path,
 * a black-holed host) answers nothing and closes nothing, so only these end the waits on it.
 */
export interface DatabaseBounds {
  /** Waiting for a pooled connection, opening a new one included (PGlite: waiting for its one connection). */
  connectTimeoutMs: number;
  /** PostgreSQL cancels a statement running longer (statement_timeout): a certain outcome, connection kept. */
  statementTimeoutMs: number;
  /**
   * The client stops waiting for a statement's answer and drops the connection. Longer than the
   * statement timeout, so it only fires when the server or the path to it has gone silent.
   */
  queryTimeoutMs: number;
  /** PostgreSQL ends a session left inside a transaction (idle_in_transaction_session_timeout), freeing its locks. */
  idleInTransactionTimeoutMs: number;
  /** Idle time before TCP keepalive probes a connection, on both ends. */
  keepAliveMs: number;
}

/** The bounds of request handling: one statement waits at most connectTimeoutMs + queryTimeoutMs. */
export function requestBounds(limits: DatabaseLimits): DatabaseBounds {
  const { connectTimeoutMs, statementTimeoutMs, queryTimeoutMs, idleInTransactionTimeoutMs, keepAliveMs } = limits;
  return { connectTimeoutMs, statementTimeoutMs, queryTimeoutMs, idleInTransactionTimeoutMs, keepAliveMs };
}

/** Background jobs and migrations: longer statements, with the same margin for the client's limit. */
export function jobBounds(limits: DatabaseLimits): DatabaseBounds {
  const margin = limits.queryTimeoutMs - limits.statementTimeoutMs;
  return {
    ...requestBounds(limits),
    statementTimeoutMs: limits.jobStatementTimeoutMs,
    queryTimeoutMs: limits.jobStatementTimeoutMs + margin,
    idleInTransactionTimeoutMs: Math.max(limits.idleInTransactionTimeoutMs, limits.jobStatementTimeoutMs),
  };
}

/** The longest one statement of a request may keep it waiting: a connection, then the statement's answer. */
export function longestWaitMs(bounds: DatabaseBounds): number {
  return bounds.connectTimeoutMs + bounds.queryTimeoutMs;
}

/** What a pg client needs to apply `bounds` (the pool and the LISTEN connection share it). */
export function clientSettings(bounds: DatabaseBounds): pg.ClientConfig {
  const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000));
  return {
    connectionTimeoutMillis: bounds.connectTimeoutMs,
    query_timeout: bounds.queryTimeoutMs,
    statement_timeout: bounds.statementTimeoutMs,
    idle_in_transaction_session_timeout: bounds.idleInTransactionTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: bounds.keepAliveMs,
    // The server probes its end too, so a backend whose client vanished ends and frees its locks.
    options: [
      `-c tcp_keepalives_idle=${seconds(bounds.keepAliveMs)}`,
      `-c tcp_keepalives_interval=${seconds(bounds.keepAliveMs)}`,
      '-c tcp_keepalives_count=3',
    ].join(' '),
  };
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** Directory for PGlite's files; omitted means an in-memory database. */
  dataDir?: string;
  poolSize?: number;
  bounds: DatabaseBounds;
  /** Called with the SQL of every statement sent, transaction control included (tests count them). */
  onQuery?: (sql: string) => void;
  /** PGlite in memory: start from this dump of a data directory (the tests' migrated template) instead of an empty one. */
  pgliteDump?: Blob;
  /** PGlite: this instance, which the caller opened and closes (the handle's close leaves it open). */
  pglite?: PGlite;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      ...clientSettings(options.bounds),
      Client: PreparingClient,
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
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
  if (options.pglite) {
    pglite = options.pglite;
  } else if (options.dataDir) {
    const dir = path.join(options.dataDir, 'pglite');
    fs.mkdirSync(dir, { recursive: true });
    pglite = await PGlite.create(dir, { extensions });
  } else {
    pglite = await PGlite.create({ extensions, ...(options.pgliteDump ? { loadDataDir: options.pgliteDump } : {}) });
  }
  // In process, a statement cannot hang on a network, and PGlite cannot cancel one (it has no
  // statement_timeout): the one wait to bound is for its single connection.
  const pool = new PGlitePool(pglite, options.bounds.connectTimeoutMs, { closesInstance: !options.pglite });
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
