import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_POSTGRES_URL, type TestDatabase } from '../../test/support/databases.js';
import { TcpProxy, waitUntil } from '../../test/resilience/support.js';
import { loadConfig } from '../config.js';
import { isDatabaseUnavailable } from '../http/error-handler.js';
import { jobBounds, openDatabase, requestBounds, type DatabaseBounds, type DatabaseHandle } from './database.js';

const BOUNDS: DatabaseBounds = {
  connectTimeoutMs: 700,
  statementTimeoutMs: 500,
  queryTimeoutMs: 900,
  idleInTransactionTimeoutMs: 1_000,
  keepAliveMs: 2_000,
};
/**
 * How late this process may notice a timer or an answer on a loaded two-core machine. The waits
 * checked against it would otherwise last until the proxy is restored, after the check: a bound
 * with this much room still tells a bounded wait from an endless one.
 */
const SCHEDULING_SLACK_MS = 2_000;

/** Runs `attempt`, which must fail; returns its error and how long it took. */
async function failure(attempt: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await attempt();
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  throw new Error('expected the attempt to fail');
}

describe('database bounds from the settings', () => {
  it('give requests the short bounds, and jobs longer statements with the same margin for the client', () => {
    const limits = loadConfig({}).database;
    expect(requestBounds(limits)).toEqual({
      connectTimeoutMs: 1500,
      statementTimeoutMs: 2000,
      queryTimeoutMs: 2500,
      idleInTransactionTimeoutMs: 10_000,
      keepAliveMs: 5000,
    });
    expect(jobBounds(limits)).toEqual({
      connectTimeoutMs: 1500,
      statementTimeoutMs: 60_000,
      queryTimeoutMs: 60_500,
      idleInTransactionTimeoutMs: 60_000,
      keepAliveMs: 5000,
    });
  });
});

describe('every wait on PostgreSQL is bounded [postgres]', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let proxied: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const server = new URL(TEST_POSTGRES_URL);
    proxy = await TcpProxy.start({ host: server.hostname, port: Number(server.port || 5432) });
    const url = new URL(database.url!);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    proxied = await openDatabase({ databaseUrl: url.toString(), poolSize: 2, bounds: BOUNDS });
  });
  afterAll(async () => {
    await proxied.close();
    await proxy.cut();
    await database.close();
  });

  const settingOf = async (name: string) =>
    (await sql<{ setting: string }>`select current_setting(${name}) as setting`.execute(proxied.db)).rows[0]!.setting;

  it('sets the server-side timeouts and keepalive on each connection', async () => {
    expect(await settingOf('statement_timeout')).toBe('500ms');
    expect(await settingOf('idle_in_transaction_session_timeout')).toBe('1s');
    expect(await settingOf('tcp_keepalives_idle')).toBe('2');
    expect(await settingOf('tcp_keepalives_count')).toBe('3');
  });

  it('a statement running too long is cancelled by PostgreSQL, answered as unavailable, and the connection stays usable', async () => {
    // A client that waits long for answers: the cancel must come from PostgreSQL, however late this process reads it.
    const patient = await openDatabase({ databaseUrl: database.url!, poolSize: 1, bounds: { ...BOUNDS, queryTimeoutMs: 60_000 } });
    try {
      await patient.db.connection().execute(async (connection) => {
        const { error, ms } = await failure(() => sql`select pg_sleep(5)`.execute(connection));
        expect(error).toMatchObject({ code: '57014' });
        expect(isDatabaseUnavailable(error)).toBe(true);
        expect(ms).toBeGreaterThanOrEqual(BOUNDS.statementTimeoutMs - 50);
        expect((await sql<{ one: number }>`select 1 as one`.execute(connection)).rows).toEqual([{ one: 1 }]);
      });
    } finally {
      await patient.close();
    }
  });

  it('a transaction left idle is ended by PostgreSQL and answered as unavailable', async () => {
    const { error } = await failure(() =>
      proxied.db.transaction().execute(async (trx) => {
        const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!;
        // Until PostgreSQL has ended the session, seen from another connection.
        await waitUntil(
          async () =>
            (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where pid = ${pid}`.execute(database.db)).rows[0]!
              .n === 0,
          60_000,
        );
        await sql`select 1`.execute(trx);
      }),
    );
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it(`a silent path: the statement fails at the query timeout, the connection is \
dropped, and a new one serves the next statement`, async () => {
    await sql`select 1`.execute(proxied.db);
    proxy.freeze({ newConnections: 'forwarded' });
    try {
      const { error, ms } = await failure(() => sql`select 1`.execute(proxied.db));
      expect(error).toMatchObject({ message: 'Query read timeout' });
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(BOUNDS.queryTimeoutMs - 50);
      expect(ms).toBeLessThan(BOUNDS.queryTimeoutMs + SCHEDULING_SLACK_MS);
      // Had the frozen connection gone back to the pool, one of these would wait behind its
      // unanswered statement and fail at the query timeout.
      await sql`select 1`.execute(proxied.db);
      await sql`select 1`.execute(proxied.db);
    } finally {
      await proxy.restore();
    }
  });

  it('a black-holed server: a transaction fails within the query timeout, with its rollback failing at once', async () => {
    await sql`select 1`.execute(proxied.db);
    proxy.blackHole();
    try {
      const { error, ms } = await failure(() => proxied.db.transaction().execute(async (trx) => sql`select 1`.execute(trx)));
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeLessThan(BOUNDS.connectTimeoutMs + BOUNDS.queryTimeoutMs + SCHEDULING_SLACK_MS);
    } finally {
      await proxy.restore();
    }
  });

  it('a black-holed server: waiting for a connection ends at the connect timeout, for new connections and for a full pool', async () => {
    // Both connections are held, so statements wait for one or try a new connection to nowhere.
    proxy.blackHole();
    try {
      const attempts = await Promise.all(Array.from({ length: 4 }, () => failure(() => sql`select 1`.execute(proxied.db))));
      for (const { error, ms } of attempts) {
        expect(isDatabaseUnavailable(error), String(error)).toBe(true);
        expect(ms).toBeLessThan(BOUNDS.connectTimeoutMs + BOUNDS.queryTimeoutMs + SCHEDULING_SLACK_MS);
      }
    } finally {
      await proxy.restore();
    }
    expect((await sql<{ one: number }>`select 1 as one`.execute(proxied.db)).rows).toEqual([{ one: 1 }]);
  });
});

describe("waiting for PGlite's one connection is bounded [pglite]", () => {
  it("ends at the connect timeout with the error pg's pool gives, and the connection serves the next caller once free", async () => {
    const handle = await openDatabase({ bounds: BOUNDS });
    try {
      let release = () => {};
      const held = handle.db.connection().execute(async (connection) => {
        await sql`select 1`.execute(connection);
        await new Promise<void>((resolve) => (release = resolve));
      });
      const { error, ms } = await failure(() => sql`select 1`.execute(handle.db));
      expect(error).toMatchObject({ message: 'timeout exceeded when trying to connect' });
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(BOUNDS.connectTimeoutMs - 50);
      const next = sql<{ one: number }>`select 1 as one`.execute(handle.db);
      release();
      await held;
      expect((await next).rows).toEqual([{ one: 1 }]);
    } finally {
      await handle.close();
    }
  });
});
