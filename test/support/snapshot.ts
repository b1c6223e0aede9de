import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';

/**
 * Columns and tables left out when tests check that a refused request wrote nothing:
 * bookkeeping the service updates on its own schedule, not the data a request changes.
 */
const VOLATILE: { columns: Record<string, string[]>; tables: string[] } = {
  columns: {
    // Written in batches every couple of seconds by the usage recorder after accepted calls
    // (src/auth/usage-recorder.ts), so a flush can land while a later request is refused.
    brand_api_keys: ['last_used_at'],
    platform_keys: ['last_used_at'],
    platform_companies: ['last_seen_at'],
    // The setup worker's lease and retry bookkeeping (src/embed/setup-worker.ts).
    setup_jobs: ['attempts', 'next_attempt_at', 'locked_until', 'last_error'],
  },
  tables: [
    // The scoring loop's queue and its output: filled by accepted writes, worked off in the
    // background (src/recommendations/scorer.ts), which runs in-process on PGlite.
    'scoring_queue',
    'recommendation_scores',
    // The development mailbox: a password reset's mail is sent after the answer, so that the time
    // taken does not tell whether the address has an account (src/accounts/password-reset.ts).
    'mail_outbox',
    // A sign-up's waiting request is written after its answer, so that the time taken does not tell
    // whether the address has an account (src/accounts/sign-up.ts); tests of sign-up count it themselves.
    'sign_up_requests',
    // A refused sign-in is recorded on purpose: the lockout counts these (src/accounts/users.ts).
    'sign_in_failures',
    // The migrator's own bookkeeping.
    'kysely_migration',
    'kysely_migration_lock',
  ],
};

interface Snapshotter {
  /** Hashes every table's contents, volatile columns and tables left out. */
  digest: ReturnType<typeof sql.raw>;
  /** Counts the write statements committed to the digested tables so far. */
  writes: ReturnType<typeof sql.raw>;
  /** The last digest and the count of writes read just before it. */
  last?: { writes: string; contents: Record<string, string> };
}

const snapshotters = new WeakMap<Db, Promise<Snapshotter>>();

/**
 * Hashing every table took 14 ms a call on PostgreSQL, 43 s of the hostile-input fuzzing's 68 (3,034
 * calls), though most requests it follows are refused and write nothing. So each digested table gets a
 * statement-level trigger that records every write statement in a log table of the tests' own schema:
 * the log's row count changes with each committed write, its rows commit with the write they record,
 * and an unchanged count proves the digest unchanged. A volatile column's write is recorded too and
 * only costs a fresh digest.
 */
async function snapshotterFor(db: Db): Promise<Snapshotter> {
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
    order by c.table_name, c.ordinal_position`.execute(db);
  const columns = new Map<string, string[]>();
  for (const row of rows) {
    if (VOLATILE.tables.includes(row.table_name) || VOLATILE.columns[row.table_name]?.includes(row.column_name)) continue;
    columns.set(row.table_name, [...(columns.get(row.table_name) ?? []), row.column_name]);
  }
  const triggers = [...columns.keys()].map(
    (table) =>
      `create trigger test_snapshot_writes after insert or update or delete or truncate on public."${table}" ` +
      'for each statement execute function test_snapshot.record_write();',
  );
  // One statement (PGlite's extended protocol takes no lists); a second handle on the same database finds the triggers there.
  await sql
    .raw(`do $$ begin
      if to_regnamespace('test_snapshot') is null then
        create schema test_snapshot;
        create unlogged table test_snapshot.writes ();
        create function test_snapshot.record_write() returns trigger language plpgsql
          as 'begin insert into test_snapshot.writes default values; return null; end';
        ${triggers.join('\n        ')}
      end if;
    end $$`)
    .execute(db);
  const perTable = [...columns].map(([table, names]) => {
    const record = `row(${names.map((name) => `"${name}"`).join(', ')})::text`;
    return `select '${table}' as name, md5(coalesce(string_agg(${record}, ',' order by ${record}), '')) as hash from "${table}"`;
  });
  return { digest: sql.raw(perTable.join(' union all ')), writes: sql.raw('select count(*)::text as writes from test_snapshot.writes') };
}

/**
 * A digest of every table's contents (not just its row count), so an update in place shows too.
 * Compare two snapshots with toEqual: a difference names the table.
 */
export async function tableContents(db: Db): Promise<Record<string, string>> {
  let pending = snapshotters.get(db);
  if (!pending) {
    pending = snapshotterFor(db);
    snapshotters.set(db, pending);
  }
  const snapshotter = await pending;
  // Read before the digest: a write committed in between makes the next call's count differ, so it digests again.
  const { rows: counted } = await snapshotter.writes.execute(db);
  const writes = (counted as Array<{ writes: string }>)[0]!.writes;
  if (snapshotter.last?.writes !== writes) {
    const { rows } = await snapshotter.digest.execute(db);
    snapshotter.last = {
      writes,
      contents: Object.fromEntries((rows as Array<{ name: string; hash: string }>).map((row) => [row.name, row.hash])),
    };
  }
  return { ...snapshotter.last.contents };
}
