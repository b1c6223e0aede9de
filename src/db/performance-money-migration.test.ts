import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { migrateTo, migrateToLatest } from './migrator.js';

/**
 * Migration 0018 (issue 16, performance): the orders a database already holds, with their refunds
 * and ledger entries, are folded into the money rollups per role and currency; undone, the
 * rollups and their triggers are gone and rebuild_performance works as before.
 */
for (const kind of DATABASE_KINDS) {
  describe(`migration 0019_performance_money [${kind}]`, () => {
    let database: TestDatabase;
    const platformId = crypto.randomUUID();

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      await migrateTo(database.db, '0018_shopify_proof_and_parking');
      await database.db.insertInto('platforms').values({ id: platformId, name: 'Before' }).execute();
      await sql`
        insert into attributed_orders (store_domain, order_id, customer_ref, total_cents, currency, placed_at, platform_id, campaign_id,
                                       brand_id, partner_id, matched_by, new_customer, commission_cents)
        values ('beta.example', 'o1', 'c1', 10000, 'USD', '2025-03-01T10:00:00Z', ${platformId}::uuid, 'c', 'alpha', 'beta',
                'referral_link', true, 500),
               ('beta.example', 'o2', 'c2', 4000, 'EUR', '2025-03-02T10:00:00Z', ${platformId}::uuid, 'c', 'alpha', 'beta',
                'referral_link', true, 200),
               ('beta.example', 'o3', 'c3', 900, 'USD', '2025-03-02T10:00:00Z', null, null, null, null, null, true, 0)`.execute(
        database.db,
      );
      await sql`
        insert into order_events (store_domain, event_id, order_id, kind, amount_cents, occurred_at)
        values ('beta.example', 'r1', 'o1', 'refund', 2000, now())`.execute(database.db);
      await sql`
        insert into commission_ledger (kind, receiving_brand_id, showing_brand_id, platform_id, campaign_id, store_domain, order_id,
                                       event_id, amount_minor, currency, rate_basis_points, basis_minor, customer, customer_basis, touch)
        values ('commission', 'beta', 'alpha', ${platformId}::uuid, 'c', 'beta.example', 'o1', '', 500, 'USD', 500, 10000, 'new',
                'store_history', 'click'),
               ('reversal', 'beta', 'alpha', ${platformId}::uuid, 'c', 'beta.example', 'o1', 'r1', -100, 'USD', 500, 2000, 'new',
                'store_history', 'click'),
               ('commission', 'beta', 'alpha', ${platformId}::uuid, 'c', 'beta.example', 'o2', '', 200, 'EUR', 500, 4000, 'new',
                'store_history', 'click')`.execute(database.db);
    });

    afterAll(async () => {
      await database?.close();
    });

    const moneyDays = async () =>
      (
        await sql`
          select company_id, side, to_char(day, 'YYYY-MM-DD') as day, currency, orders, new_customers, revenue_minor, commission_minor
          from performance_money_days order by company_id, side, day, currency`.execute(database.db)
      ).rows;

    it('folds the orders in per role and currency, and undoes it', async () => {
      await migrateToLatest(database.db);
      const usd = { day: '2025-03-01', currency: 'USD', orders: 1, new_customers: 1, revenue_minor: 8000, commission_minor: 400 };
      const eur = { day: '2025-03-02', currency: 'EUR', orders: 1, new_customers: 1, revenue_minor: 4000, commission_minor: 200 };
      expect(await moneyDays()).toEqual([
        { company_id: 'alpha', side: 'shown', ...usd },
        { company_id: 'alpha', side: 'shown', ...eur },
        { company_id: 'beta', side: 'received', ...usd },
        { company_id: 'beta', side: 'received', ...eur },
      ]);
      const pairs =
        await sql`select brand_id, partner_id, currency, revenue_minor from performance_pair_money_days order by currency`.execute(
          database.db,
        );
      expect(pairs.rows).toEqual([
        { brand_id: 'alpha', partner_id: 'beta', currency: 'EUR', revenue_minor: 4000 },
        { brand_id: 'alpha', partner_id: 'beta', currency: 'USD', revenue_minor: 8000 },
      ]);

      await migrateTo(database.db, '0018_shopify_proof_and_parking');
      const left = await sql<{ name: string }>`
        select tgname as name from pg_trigger where tgname like '%money%'
        union all select relname from pg_class where relname like 'performance%money%'`.execute(database.db);
      expect(left.rows).toEqual([]);
      await sql`select rebuild_performance()`.execute(database.db);
      const orders = await sql`select sum(orders)::int8 as orders from performance_days where side = 'shown'`.execute(database.db);
      expect(orders.rows).toEqual([{ orders: 2 }]);
      await migrateToLatest(database.db);
      expect(await moneyDays()).toHaveLength(4);
    });
  });
}
