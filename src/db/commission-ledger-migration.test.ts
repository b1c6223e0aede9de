import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { migrateTo, migrateToLatest } from './migrator.js';

/**
 * Migration 0015 (issue 16): the performance rollups a brand already had are split by its role,
 * `shown` for its showings of partners' offers and `received` for its offer shown by partners,
 * with the same totals as before; a brand that showed its own offer counts once, as the shower.
 */
for (const kind of DATABASE_KINDS) {
  describe(`migration 0015_commission_ledger [${kind}]`, () => {
    let database: TestDatabase;
    const platformId = crypto.randomUUID();
    const day = '2025-03-01';

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      await migrateTo(database.db, '0014_merchant_tokens');
      await database.db.insertInto('platforms').values({ id: platformId, name: 'Before' }).execute();
      await sql`
        insert into attribution_counters (platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks)
        values (${platformId}::uuid, ${day}::date, 'c1', 'alpha', 'beta', 0, 5, 2),
               (${platformId}::uuid, ${day}::date, 'c1', 'beta', 'alpha', 0, 3, 1),
               (${platformId}::uuid, ${day}::date, 'c2', 'alpha', 'alpha', 0, 7, 0)`.execute(database.db);
      await sql`select rebuild_performance()`.execute(database.db);
    });

    afterAll(async () => {
      await database?.close();
    });

    const rollups = async () =>
      (
        await sql<{ company_id: string; side: string; views: number; clicks: number }>`
          select company_id, side, views, clicks from performance_days order by company_id, side`.execute(database.db)
      ).rows;

    it('splits the rollups by role, keeping every total, and undoes it', async () => {
      const before = await sql<{ company_id: string; views: number }>`
        select company_id, sum(views)::int8 as views from performance_days group by 1 order by 1`.execute(database.db);
      expect(before.rows).toEqual([
        { company_id: 'alpha', views: 15 },
        { company_id: 'beta', views: 8 },
      ]);
      await migrateToLatest(database.db);
      expect(await rollups()).toEqual([
        { company_id: 'alpha', side: 'received', views: 3, clicks: 1 },
        { company_id: 'alpha', side: 'shown', views: 12, clicks: 2 },
        { company_id: 'beta', side: 'received', views: 5, clicks: 2 },
        { company_id: 'beta', side: 'shown', views: 3, clicks: 1 },
      ]);
      await migrateTo(database.db, '0014_merchant_tokens');
      const undone = await sql<{ company_id: string; views: number }>`
        select company_id, sum(views)::int8 as views from performance_days group by 1 order by 1`.execute(database.db);
      expect(undone.rows).toEqual(before.rows);
      await migrateToLatest(database.db);
    });
  });
}
