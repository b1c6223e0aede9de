import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase, type DatabaseBounds, type DatabaseHandle, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrator.js';

export type DatabaseKind = 'pglite' | 'postgres';

/** Both engines: for what differs between them, the data layer (dal, group commit, counters, concurrency, service context, migrations). */
export const DATABASE_KINDS: DatabaseKind[] = ['pglite', 'postgres'];

/**
 * The engines an HTTP-level suite runs on: PostgreSQL only, since what differs between the engines
 * is the data layer, which its own suites test on both (and test/smoke/newcomer-pglite.test.ts
 * walks the newcomer's path end to end on PGlite). The one place to change that choice.
 */
export const HTTP_ENGINES: DatabaseKind[] = ['postgres'];

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
  /** Whether an earlier file of this worker used this database (reset since to the template's state). */
  reused: boolean;
}

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * The migrated templates are keyed by the migrations' own text (and PGlite's version): a changed or
 * added migration, in this checkout or another one sharing the server, gets a template of its own.
 */
export function migrationsKey(): string {
  cachedKey ??= computeMigrationsKey();
  return cachedKey;
}

let cachedKey: string | undefined;

function computeMigrationsKey(): string {
  const dbDir = new URL('../../src/db/', import.meta.url);
  const migrationsDir = new URL('migrations/', dbDir);
  const hash = crypto.createHash('sha256');
  hash.update(fs.readFileSync(new URL('migrator.ts', dbDir)));
  for (const file of fs.readdirSync(migrationsDir).sort()) hash.update(file).update(fs.readFileSync(new URL(file, migrationsDir)));
  hash.update(PGLITE_VERSION);
  return hash.digest('hex').slice(0, 16);
}

const PGLITE_VERSION = (
  JSON.parse(fs.readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

const TEMPLATE_DIR = path.join(os.tmpdir(), 'svc-test-templates');
const pgliteDumpPath = (key: string) => path.join(TEMPLATE_DIR, `pglite-${key}.tar`);
const postgresTemplateName = (key: string) => `svc_tpl_${key}`;

async function withAdmin<T>(body: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    return await body(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Builds the migrated templates once per run (vitest's globalSetup), unless they exist: a
 * PostgreSQL database marked as a template, and a dump of a migrated PGlite data directory. Each is
 * built under a name of its own and then moved into place, so a concurrent run never sees half of one.
 */
export async function buildMigratedTemplates(): Promise<void> {
  const key = migrationsKey();
  await Promise.all([buildPostgresTemplate(key), buildPgliteDump(key)]);
}

async function buildPostgresTemplate(key: string): Promise<void> {
  const template = postgresTemplateName(key);
  const exists = await withAdmin(async (admin) => (await admin.query('select 1 from pg_database where datname = $1', [template])).rowCount);
  if (exists) return;
  const building = `${template}_${crypto.randomBytes(4).toString('hex')}`;
  await withAdmin((admin) => admin.query(`create database ${building}`));
  const handle = await openDatabase({
    databaseUrl: withDatabaseName(TEST_POSTGRES_URL, building),
    poolSize: 1,
    bounds: TEST_DATABASE_BOUNDS,
  });
  await migrateToLatest(handle.db);
  await handle.close();
  await withAdmin(async (admin) => {
    try {
      await admin.query(`alter database ${building} rename to ${template}`);
    } catch (error) {
      // Another run built it first: use theirs.
      if ((error as { code?: string }).code !== '42P04') throw error;
      await admin.query(`drop database ${building}`);
      return;
    }
    // No one connects to it, so cloning it never finds it in use.
    await admin.query(`alter database ${template} with is_template true allow_connections false`);
  });
}

async function buildPgliteDump(key: string): Promise<void> {
  const target = pgliteDumpPath(key);
  if (fs.existsSync(target)) return;
  fs.mkdirSync(TEMPLATE_DIR, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(TEMPLATE_DIR, 'build-'));
  try {
    const handle = await openDatabase({ dataDir, bounds: TEST_DATABASE_BOUNDS });
    await migrateToLatest(handle.db);
    await handle.close();
    const pglite = await PGlite.create(path.join(dataDir, 'pglite'), { extensions: { pg_trgm } });
    const dump = await pglite.dumpDataDir('none');
    await pglite.close();
    const partial = `${target}.${process.pid}`;
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, target);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

let pgliteDump: Blob | null | undefined;

/** The migrated PGlite dump, read once per process; null when no run built it (a bench, a single file run outside vitest). */
function migratedPgliteDump(): Blob | null {
  if (pgliteDump === undefined) {
    const file = pgliteDumpPath(migrationsKey());
    pgliteDump = fs.existsSync(file) ? new Blob([fs.readFileSync(file)]) : null;
  }
  return pgliteDump;
}

/**
 * A fresh database, already migrated to the latest: in a run, a database an earlier file of this
 * worker returned (reset to the template's state), else cloned from the run's template, else built
 * and migrated.
 */
export async function createTestDatabase(kind: DatabaseKind, options: { onQuery?: (sql: string) => void } = {}): Promise<TestDatabase> {
  // The checks and the reset that keep a database for the next file are the suite's, not the file's statements.
  let quiet = false;
  const onQuery = options.onQuery && ((text: string) => quiet || options.onQuery?.(text));
  const maintain = async (body: (db: Db) => Promise<boolean>, db: Db): Promise<boolean> => {
    quiet = true;
    try {
      return await body(db);
    } catch {
      return false;
    } finally {
      quiet = false;
    }
  };
  if (kind === 'pglite') {
    const dump = migratedPgliteDump();
    if (!dump) {
      const handle = await openDatabase({ onQuery, bounds: TEST_DATABASE_BOUNDS });
      await migrateToLatest(handle.db);
      return { ...handle, url: undefined, reused: false };
    }
    const spare = reusesDatabases() ? spares.pglite.pop() : undefined;
    const pglite = spare ?? (await PGlite.create({ extensions: { pg_trgm }, loadDataDir: dump }));
    const handle = await openDatabase({ pglite, onQuery, bounds: TEST_DATABASE_BOUNDS });
    if (!spare) await maintain((db) => learnTemplate('pglite', db), handle.db);
    return {
      ...handle,
      url: undefined,
      reused: spare !== undefined,
      close: async () => {
        const reusable = reusesDatabases() && (await maintain((db) => resetToTemplate('pglite', db), handle.db));
        await handle.close();
        if (reusable) spares.pglite.push(pglite);
        else await pglite.close();
      },
    };
  }
  const spare = reusesDatabases() ? spares.postgres.pop() : undefined;
  const name = spare ?? `${runDatabasePrefix()}${crypto.randomBytes(6).toString('hex')}`;
  const cloned = spare !== undefined || (await cloneTemplate(name));
  const url = withDatabaseName(TEST_POSTGRES_URL, name);
  const handle = await openDatabase({ databaseUrl: url, poolSize: 5, onQuery, bounds: TEST_DATABASE_BOUNDS });
  if (!cloned) await migrateToLatest(handle.db);
  else if (!spare) await maintain((db) => learnTemplate('postgres', db), handle.db);
  return {
    ...handle,
    url,
    reused: spare !== undefined,
    close: async () => {
      const reusable = reusesDatabases() && cloned && (await maintain((db) => resetToTemplate('postgres', db), handle.db));
      await handle.close();
      if (reusable) spares.postgres.push(name);
      else await dropDatabase(name);
    },
  };
}

/** Clones the run's template into `name`; false when there is none (the database is created empty). */
async function cloneTemplate(name: string): Promise<boolean> {
  return withAdmin(async (admin) => {
    try {
      await admin.query(`create database ${name} template ${postgresTemplateName(migrationsKey())}`);
      return true;
    } catch (error) {
      // No template (3D000): this process was not started by a run that built one.
      if ((error as { code?: string }).code !== '3D000') throw error;
      await admin.query(`create database ${name}`);
      return false;
    }
  });
}

/**
 * A worker's databases outlive its files: a file's database, when the file closes it, is reset to the
 * template's state and handed to the worker's next file, instead of dropped and built again (a PGlite
 * loaded from the dump took 1.7-2.5 CPU-s here, a PostgreSQL clone with its drop and admin connections
 * about 0.3; the reset 5-90 ms; docs/decisions.md, "issue 24, eighth round"). Only inside a run, whose
 * teardown drops what its workers kept; a bench's database is dropped when it closes.
 */
function reusesDatabases(): boolean {
  return process.env[TEST_RUN_ENV] !== undefined;
}

const spares: { pglite: PGlite[]; postgres: string[] } = { pglite: [], postgres: [] };

/** What a fresh database of each engine holds: its catalog's fingerprint and the statement that restores its rows. */
const templates: Partial<Record<DatabaseKind, { fingerprint: string; reset: string }>> = {};

/**
 * The catalog's fingerprint: any DDL a file ran and did not undo (a table, column, index, trigger or
 * function created, altered or dropped) changes a row count or a row version (xmin) in one of these,
 * or a relation's name, kind or column count; a database whose fingerprint differs from a fresh one's
 * is dropped rather than reused. A relation's storage is left out: a truncated table, which the
 * reset empties anyway, has a new file, and a table that ever had a trigger keeps the flag saying so.
 */
const VERSIONED_CATALOGS = [
  'pg_attribute',
  'pg_attrdef',
  'pg_constraint',
  'pg_index',
  'pg_trigger',
  'pg_proc',
  'pg_type',
  'pg_namespace',
  'pg_rewrite',
  'pg_sequence',
  'pg_extension',
  'pg_event_trigger',
  'pg_policy',
];
const versionedCatalogPart = (name: string) => `union all select '${name} ' || count(*) || ' ' || sum(xmin::text::bigint) from ${name}`;
const FINGERPRINT = sql<{ fingerprint: string }>`
  select md5(string_agg(part, ';' order by part)) as fingerprint from (
    select 'pg_class ' || md5(string_agg(concat_ws(' ', oid, relname, relkind, relnatts, reloptions), ',' order by oid)) as part
    from pg_class
    ${sql.raw(VERSIONED_CATALOGS.map(versionedCatalogPart).join(' '))}
    union all select 'pg_db_role_setting ' || count(*) from pg_db_role_setting
      where setdatabase = (select oid from pg_database where datname = current_database())
  ) parts`;

/**
 * Reads a fresh database once per worker and engine: its fingerprint, and one statement that resets
 * the session's settings, drops the tests' write log, empties every table, puts back the rows the
 * migrations wrote (the migration log, the sealed-performance row) and restarts every sequence.
 */
async function learnTemplate(kind: DatabaseKind, db: Db): Promise<boolean> {
  if (templates[kind]) return true;
  const fingerprint = (await FINGERPRINT.execute(db)).rows[0]?.fingerprint;
  const { rows: tables } = await sql<{ name: string }>`
    select relname as name from pg_class where relnamespace = 'public'::regnamespace and relkind in ('r', 'p') order by relname`.execute(
    db,
  );
  const contents = (
    await sql<Record<string, unknown[]>>`select ${sql.join(
      tables.map(({ name }) => sql`(select coalesce(json_agg(t), '[]'::json) from ${sql.table(name)} t) as ${sql.ref(name)}`),
    )}`.execute(db)
  ).rows[0];
  const { rows: sequences } = await sql<{ name: string; start: string }>`
    select quote_ident(sequencename) as name, start_value::text as start from pg_sequences where schemaname = 'public'`.execute(db);
  if (!fingerprint || !contents) return false;
  const table = (name: string) => `public.${pg.escapeIdentifier(name)}`;
  const statements = [
    // A setting a file changed for its session (PGlite has one session, kept with the instance).
    'reset all;',
    // The write log of "a refused request wrote nothing" (test/support/snapshot.ts), and its triggers.
    'drop schema if exists test_snapshot cascade;',
    // The append-only tables refuse deletes by trigger: a suite's reset is not the service's write.
    `perform set_config('session_replication_role', 'replica', true);`,
    ...tables.map(({ name }) => `delete from ${table(name)};`),
    ...tables
      .filter(({ name }) => (contents[name] ?? []).length > 0)
      .map(({ name }) => {
        const rows = pg.escapeLiteral(JSON.stringify(contents[name]));
        return `insert into ${table(name)} overriding system value select * from json_populate_recordset(null::${table(name)}, ${rows});`;
      }),
    ...sequences.map(({ name, start }) => `perform setval(${pg.escapeLiteral(`public.${name}`)}, ${start}, false);`),
  ];
  templates[kind] = { fingerprint, reset: `do $reset$ begin ${statements.join(' ')} end $reset$` };
  return true;
}

/**
 * Puts a returned database back in its template's state; false when it cannot be reused: a
 * connection of the file's would not end (PostgreSQL), the reset failed, or the file changed the schema.
 */
async function resetToTemplate(kind: DatabaseKind, db: Db): Promise<boolean> {
  const template = templates[kind];
  if (!template) return false;
  if (kind === 'postgres') {
    // Whatever of the file's still holds a connection (a service it started, a pool it left open) must
    // not write into the next file's database: ended here, as a drop with (force) would have.
    const { rows } = await sql<{ ended: boolean | null }>`
      select bool_and(pg_terminate_backend(pid, 10000)) as ended from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()`.execute(db);
    if (rows[0]?.ended === false) return false;
  }
  await sql.raw(template.reset).execute(db);
  return (await FINGERPRINT.execute(db)).rows[0]?.fingerprint === template.fingerprint;
}

/**
 * A DATA_DIR holding a migrated database, as a service's first start leaves it: the run's PGlite dump
 * unpacked into it (where a run built one), instead of an empty start's initdb and every migration in
 * the service or the test. A start on an empty DATA_DIR stays proven by the README walk
 * (test/server/readme-walk.test.ts) and the CLI's migrate test (src/cli.test.ts).
 */
export async function migratedDataDir(prefix: string): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const dump = migratedPgliteDump();
  if (dump) {
    const pglite = await PGlite.create(path.join(dataDir, 'pglite'), { extensions: { pg_trgm }, loadDataDir: dump });
    await pglite.close();
  } else {
    const handle = await openDatabase({ dataDir, bounds: TEST_DATABASE_BOUNDS });
    await migrateToLatest(handle.db);
    await handle.close();
  }
  return dataDir;
}

/** Set by the run's global setup: names the run's databases, so that its teardown finds the ones left. */
export const TEST_RUN_ENV = 'SVC_TEST_RUN';

function runDatabasePrefix(): string {
  return `svc_test_${process.env[TEST_RUN_ENV] ?? 'solo'}_`;
}

/**
 * In a vitest run, a test file's database is dropped while the next file runs: a drop waits about
 * a second here on the disk (the server's files are discarded), time the file's worker would
 * otherwise sit idle. Whatever a worker had not dropped when it ended, or could not drop, the run's
 * teardown drops. Outside a run (a bench) nothing would drop it later: the drop is waited for.
 */
async function dropDatabase(name: string): Promise<void> {
  const drop = withAdmin((admin) => admin.query(`drop database if exists ${name} with (force)`));
  if (process.env[TEST_RUN_ENV] === undefined) await drop;
  else drop.catch(() => undefined);
}

/** The run's teardown: drops every database of this run still on the server. */
export async function dropRunDatabases(runId: string): Promise<void> {
  await withAdmin(async (admin) => {
    const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where starts_with(datname, $1)', [
      `svc_test_${runId}_`,
    ]);
    for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
  });
}
