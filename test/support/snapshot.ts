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

const queries = new WeakMap<Db, Promise<ReturnType<typeof sql.raw>>>();

async function contentsQuery(db: Db) {
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
  // One statement for every table: cheap enough to run around each request of a fuzz run.
  const perTable = [...columns].map(([table, names]) => {
    const record = `row(${names.map((name) => `"${name}"`).join(', ')})::text`;
    return `select '${table}' as name, md5(coalesce(string_agg(${record}, ',' order by ${record}), '')) as hash from "${table}"`;
  });
  return sql.raw(perTable.join(' union all '));
}

/**
 * A digest of every table's contents (not just its row count), so an update in place shows too.
 * Compare two snapshots with toEqual: a difference names the table.
 */
export async function tableContents(db: Db): Promise<Record<string, string>> {
  let query = queries.get(db);
  if (!query) {
    query = contentsQuery(db);
    queries.set(db, query);
  }
  const { rows } = await (await query).execute(db);
  return Object.fromEntries((rows as Array<{ name: string; hash: string }>).map((row) => [row.name, row.hash]));
}
