import crypto from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, TEST_POSTGRES_URL, type TestDatabase } from '../../test/support/databases.js';
import { TcpProxy, waitUntil } from '../../test/resilience/support.js';
import { openDatabase, type DatabaseBounds, type DatabaseHandle, type Db } from '../db/database.js';
import { CounterWriter } from './counter-writer.js';
import { registerCounterWriter, takeBackCounterBatch, writeCounterBatch, type CounterRow } from './dal.js';

/** Counter rows of one fresh link per call, so that each test reads only its own counts. */
function freshRows(views: number, clicks = 0): CounterRow[] {
  return [
    {
      platformId: crypto.randomUUID(),
      campaignId: `campaign-${crypto.randomUUID()}`,
      brandId: 'brand',
      partnerId: 'partner',
      day: '2026-11-22',
      shard: 3,
      views,
      clicks,
    },
  ];
}

async function countsOf(db: Db, rows: CounterRow[]): Promise<{ views: number; clicks: number }> {
  const result = await sql<{ views: number; clicks: number }>`
    select coalesce(sum(views), 0)::int8 as views, coalesce(sum(clicks), 0)::int8 as clicks
    from attribution_counters where platform_id = ${rows[0]!.platformId}::uuid and campaign_id = ${rows[0]!.campaignId}`.execute(db);
  return result.rows[0]!;
}

async function lastBatchOf(db: Db, writerId: string): Promise<number> {
  return (await db.selectFrom('attribution_writers').select('last_batch').where('writer_id', '=', writerId).executeTakeFirstOrThrow())
    .last_batch;
}

/** A logger keeping the outcome of each batch the writer settles. */
function settledOutcomes() {
  const outcomes: string[] = [];
  return { outcomes, log: { warn: (fields: { outcome: string }) => void outcomes.push(fields.outcome) } };
}

/** A signal that never aborts, for writes whose requests wait as long as it takes. */
const patient = () => new AbortController().signal;

for (const kind of DATABASE_KINDS) {
  describe(`counter batches and their settling [${kind}]`, () => {
    let database: TestDatabase;
    /** Runs after each statement the database answered; lets a test act between a commit and its answer. */
    let afterStatement: (sqlText: string) => void = () => {};

    beforeAll(async () => {
      database = await createTestDatabase(kind, { onQuery: (sqlText) => afterStatement(sqlText) });
    });
    afterAll(async () => {
      await database.close();
    });

    it('adds a batch only as the next one of its writer, and moves the writer on', async () => {
      const writerId = crypto.randomUUID();
      await registerCounterWriter(database.db, writerId);
      const rows = freshRows(2, 1);
      expect(await writeCounterBatch(database.db, writerId, 0, rows)).toBe(true);
      expect(await writeCounterBatch(database.db, writerId, 1, rows)).toBe(true);
      // A batch sent again, or out of turn, adds nothing.
      expect(await writeCounterBatch(database.db, writerId, 1, rows)).toBe(false);
      expect(await writeCounterBatch(database.db, writerId, 5, rows)).toBe(false);
      expect(await countsOf(database.db, rows)).toEqual({ views: 4, clicks: 2 });
      expect(await lastBatchOf(database.db, writerId)).toBe(2);
    });

    it('takes back a batch that was added, once however often it is asked', async () => {
      const writerId = crypto.randomUUID();
      await registerCounterWriter(database.db, writerId);
      const [kept, lost] = [freshRows(3), freshRows(5)];
      await writeCounterBatch(database.db, writerId, 0, kept);
      await writeCounterBatch(database.db, writerId, 1, lost);
      expect(await takeBackCounterBatch(database.db, writerId, 2, lost)).toBe('taken back');
      expect(await takeBackCounterBatch(database.db, writerId, 2, lost)).toBe('already settled');
      expect(await countsOf(database.db, kept)).toEqual({ views: 3, clicks: 0 });
      expect(await countsOf(database.db, lost)).toEqual({ views: 0, clicks: 0 });
      expect(await lastBatchOf(database.db, writerId)).toBe(3);
      expect(await writeCounterBatch(database.db, writerId, 3, kept)).toBe(true);
    });

    it('fences off a batch that was not added, so that it adds nothing when it arrives late', async () => {
      const writerId = crypto.randomUUID();
      await registerCounterWriter(database.db, writerId);
      const late = freshRows(7);
      expect(await takeBackCounterBatch(database.db, writerId, 1, late)).toBe('fenced off');
      expect(await writeCounterBatch(database.db, writerId, 0, late)).toBe(false);
      expect(await countsOf(database.db, late)).toEqual({ views: 0, clicks: 0 });
      expect(await lastBatchOf(database.db, writerId)).toBe(2);
    });

    it('takes back a batch that committed after its requests stopped waiting, before the next batch', async () => {
      const settled = settledOutcomes();
      const writer = new CounterWriter(database.db, settled.log);
      const [answered, abandoned, next] = [freshRows(1), freshRows(1), freshRows(1)];
      await writer.write(answered, patient());

      // The requests give up between the commit and its answer: the worst moment.
      const gaveUp = new AbortController();
      afterStatement = (sqlText) => {
        if (sqlText.includes('insert into attribution_counters')) gaveUp.abort(new Error('the requests stopped waiting'));
      };
      await expect(writer.write(abandoned, gaveUp.signal)).rejects.toThrow('the requests stopped waiting');
      afterStatement = () => {};
      expect(await countsOf(database.db, abandoned)).toEqual({ views: 1, clicks: 0 });

      await writer.write(next, patient());
      expect(await countsOf(database.db, answered)).toEqual({ views: 1, clicks: 0 });
      expect(await countsOf(database.db, abandoned)).toEqual({ views: 0, clicks: 0 });
      expect(await countsOf(database.db, next)).toEqual({ views: 1, clicks: 0 });
      expect(settled.outcomes).toEqual(['taken back']);
      await writer.close();
    });

    it(`a database that lost the writer's row (restored from a backup): that batch fails and \
adds nothing, the next goes through a new writer`, async () => {
      const writer = new CounterWriter(database.db, settledOutcomes().log);
      await writer.write(freshRows(1), patient());
      await sql`delete from attribution_writers
                where writer_id = (select writer_id from attribution_writers order by written_at desc limit 1)`.execute(database.db);
      const [refused, next] = [freshRows(1), freshRows(1)];
      await expect(writer.write(refused, patient())).rejects.toThrow(
        'the counter writer was out of step with the database; nothing was written',
      );
      await writer.write(next, patient());
      expect(await countsOf(database.db, refused)).toEqual({ views: 0, clicks: 0 });
      expect(await countsOf(database.db, next)).toEqual({ views: 1, clicks: 0 });
      await writer.close();
    });

    it('does not send a batch whose requests stopped waiting before it could be sent', async () => {
      const settled = settledOutcomes();
      const writer = new CounterWriter(database.db, settled.log);
      const gaveUp = new AbortController();
      gaveUp.abort(new Error('the requests stopped waiting'));
      const rows = freshRows(1);
      await expect(writer.write(rows, gaveUp.signal)).rejects.toThrow('the requests stopped waiting');
      await writer.write(freshRows(1), patient());
      expect(await countsOf(database.db, rows)).toEqual({ views: 0, clicks: 0 });
      expect(settled.outcomes).toEqual([]);
      await writer.close();
    });
  });
}

describe('counter batches when PostgreSQL goes silent [postgres]', () => {
  const BOUNDS: DatabaseBounds = {
    connectTimeoutMs: 1_000,
    statementTimeoutMs: 800,
    queryTimeoutMs: 1_000,
    idleInTransactionTimeoutMs: 5_000,
    keepAliveMs: 5_000,
  };
  const APPLICATION = `counter-writer-${crypto.randomBytes(4).toString('hex')}`;
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
    url.searchParams.set('application_name', APPLICATION);
    // One connection: each statement goes out on the connection the proxy froze.
    proxied = await openDatabase({ databaseUrl: url.toString(), poolSize: 1, bounds: BOUNDS });
  });
  afterAll(async () => {
    await proxied.close();
    await proxy.cut();
    await database.close();
  });

  /** Backends of the writer under test, as PostgreSQL sees them (a frozen one stays until its client's goodbye arrives). */
  const writerBackends = async () =>
    Number(
      (
        await sql<{ n: number }>`select count(*)::int8 as n from pg_stat_activity where application_name = ${APPLICATION}`.execute(
          database.db,
        )
      ).rows[0]!.n,
    );

  const latestWriter = async () =>
    database.db
      .selectFrom('attribution_writers')
      .select(['writer_id', 'last_batch'])
      .orderBy('written_at', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();

  it('an answer lost after the commit: the write fails, the batch is counted, then taken back without any new batch', async () => {
    const settled = settledOutcomes();
    const writer = new CounterWriter(proxied.db, settled.log);
    await writer.write(freshRows(1), patient());
    const lost = freshRows(1);
    proxy.freeze({ answersOnly: true, newConnections: 'forwarded' });
    const started = performance.now();
    await expect(writer.write(lost, patient())).rejects.toThrow('Query read timeout');
    // Room for a loaded machine to notice the timer late: unbounded, the write would wait until the path came back.
    expect(performance.now() - started).toBeLessThan(BOUNDS.queryTimeoutMs + 2_000);
    // PostgreSQL committed it: the request would have been answered 503 with its views counted.
    expect(await countsOf(database.db, lost)).toEqual({ views: 1, clicks: 0 });
    // The writer settles it by itself, over a new connection.
    // Its log line comes after its transaction commits: waiting for the line, not for the row, leaves no race.
    await expect.poll(() => settled.outcomes, { timeout: 60_000 }).toEqual(['taken back']);
    expect(await countsOf(database.db, lost)).toEqual({ views: 0, clicks: 0 });
    await proxy.restore();
    await writer.close();
  });

  it('a statement held on a frozen path: fenced off over a new connection, it adds nothing when it reaches PostgreSQL late', async () => {
    const settled = settledOutcomes();
    const writer = new CounterWriter(proxied.db, settled.log);
    await writer.write(freshRows(1), patient());
    const { writer_id: writerId, last_batch: before } = await latestWriter();
    const late = freshRows(1);
    proxy.freeze({ newConnections: 'forwarded' });
    await expect(writer.write(late, patient())).rejects.toThrow('Query read timeout');
    // Settled by itself while the statement is still held by the path: the writer is past it.
    await expect.poll(() => settled.outcomes, { timeout: 60_000 }).toEqual(['fenced off']);
    expect(await lastBatchOf(database.db, writerId)).toBe(before + 2);
    expect(await writerBackends()).toBe(2);

    // The path comes back: the statement and its client's goodbye reach PostgreSQL.
    await proxy.restore();
    await waitUntil(async () => (await writerBackends()) === 1, 60_000);
    expect(await countsOf(database.db, late)).toEqual({ views: 0, clicks: 0 });
    expect(await lastBatchOf(database.db, writerId)).toBe(before + 2);

    const next = freshRows(1);
    await writer.write(next, patient());
    expect(await countsOf(database.db, next)).toEqual({ views: 1, clicks: 0 });
    await writer.close();
  });

  it('a late batch committing while its take-back waits for the writer row: the take-back sees its rows', async () => {
    const writerId = crypto.randomUUID();
    await registerCounterWriter(database.db, writerId);
    const late = freshRows(4);
    // The late batch holds the writer row's lock, its counter row inserted but not committed.
    const lateConnection = new pg.Client({ connectionString: database.url });
    await lateConnection.connect();
    try {
      await lateConnection.query('begin');
      await lateConnection.query(
        `with advanced as (update attribution_writers set last_batch = 1 where writer_id = $1 and last_batch = 0 returning 1)
         insert into attribution_counters (platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks)
         select $2, $3, $4, 'brand', 'partner', 3, 4, 0 where exists (select from advanced)`,
        [writerId, late[0]!.platformId, late[0]!.day, late[0]!.campaignId],
      );
      const takeBack = takeBackCounterBatch(database.db, writerId, 1, late);
      await waitUntil(
        async () =>
          Number(
            (
              await sql<{
                n: number;
              }>`select count(*)::int8 as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(
                database.db,
              )
            ).rows[0]!.n,
          ) === 1,
        60_000,
      );
      await lateConnection.query('commit');
      expect(await takeBack).toBe('taken back');
    } finally {
      await lateConnection.end();
    }
    expect(await countsOf(database.db, late)).toEqual({ views: 0, clicks: 0 });
    expect(await lastBatchOf(database.db, writerId)).toBe(2);
  });
});
