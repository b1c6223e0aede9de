import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { createTestDatabase, DATABASE_KINDS } from './databases.js';
import { tableContents } from './snapshot.js';

/** Every table's rows, as JSON text per table: what a file finds in the database it is given. */
async function everyRow(db: Db): Promise<Record<string, string>> {
  const { rows: tables } = await sql<{ name: string }>`
    select relname as name from pg_class where relnamespace = 'public'::regnamespace and relkind = 'r' order by relname`.execute(db);
  const { rows } = await sql<Record<string, string>>`select ${sql.join(
    tables.map(
      ({ name }) => sql`(select coalesce(json_agg(t order by t::text), '[]'::json)::text from ${sql.table(name)} t) as ${sql.ref(name)}`,
    ),
  )}`.execute(db);
  return rows[0]!;
}

const SEEDED_BY_MIGRATIONS = ['kysely_migration', 'kysely_migration_lock', 'performance_sealed', 'service_secrets'];

async function writeLedgerEntry(db: Db, orderId: string): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    insert into commission_ledger (kind, receiving_brand_id, showing_brand_id, platform_id, campaign_id, store_domain, order_id,
      amount_minor, currency, rate_basis_points, basis_minor, customer, customer_basis, touch)
    values ('commission', 'brand-a', 'brand-b', gen_random_uuid(), 'campaign-1', 'shop.example', ${orderId},
      120, 'EUR', 1000, 1200, 'new', 'store_history', 'click')
    returning id`.execute(db);
  return Number(rows[0]!.id);
}

/**
 * A worker hands a file's database to its next file (test/support/databases.ts): what one file
 * wrote, set or built must not reach the next one.
 */
describe.each(DATABASE_KINDS)('a database handed from one file to the next [%s]', (kind) => {
  it('comes back as the template left it: rows, an append-only table, seeded rows, sequences, settings, the write log', async () => {
    const first = await createTestDatabase(kind);
    const before = await everyRow(first.db);
    for (const [table, rows] of Object.entries(before)) {
      if (!SEEDED_BY_MIGRATIONS.includes(table)) expect({ table, rows }).toEqual({ table, rows: '[]' });
    }
    const firstId = await writeLedgerEntry(first.db, 'order-1');
    await writeLedgerEntry(first.db, 'order-2');
    await sql`update performance_sealed set sealed_through = '2026-01-01'`.execute(first.db);
    await tableContents(first.db);
    if (kind === 'pglite') await sql`set datestyle = 'SQL, DMY'`.execute(first.db);
    expect(await everyRow(first.db)).not.toEqual(before);
    await first.close();

    const next = await createTestDatabase(kind);
    try {
      expect(next.reused).toBe(true);
      if (kind === 'postgres') expect(next.url).toBe(first.url);
      expect(await everyRow(next.db)).toEqual(before);
      expect(await writeLedgerEntry(next.db, 'order-1')).toBe(firstId);
      const { rows } = await sql<{ datestyle: string; log: string | null }>`
        select current_setting('datestyle') as datestyle, to_regnamespace('test_snapshot')::text as log`.execute(next.db);
      expect(rows[0]).toEqual({ datestyle: 'ISO, MDY', log: null });
    } finally {
      await next.close();
    }
  });

  it('is not handed on when the file changed the schema', async () => {
    const first = await createTestDatabase(kind);
    await sql`create table left_behind (id int)`.execute(first.db);
    await first.close();

    const next = await createTestDatabase(kind);
    try {
      if (kind === 'postgres') expect(next.url).not.toBe(first.url);
      const { rows } = await sql<{ found: string | null }>`select to_regclass('public.left_behind')::text as found`.execute(next.db);
      expect(rows[0]!.found).toBeNull();
    } finally {
      await next.close();
    }
  });
});

describe('a PostgreSQL database handed to the next file', () => {
  it("ends a connection the file left open, so that nothing of the file's writes into the next one", async () => {
    const first = await createTestDatabase('postgres');
    const leftOpen = new pg.Client({ connectionString: first.url });
    let ended: Error | undefined;
    leftOpen.on('error', (error) => {
      ended = error;
    });
    await leftOpen.connect();
    await first.close();
    await expect.poll(() => ended?.message).toMatch(/terminat/);

    const next = await createTestDatabase('postgres');
    try {
      expect(next.url).toBe(first.url);
      await expect(leftOpen.query('select 1')).rejects.toThrow();
    } finally {
      await leftOpen.end().catch(() => undefined);
      await next.close();
    }
  });
});
