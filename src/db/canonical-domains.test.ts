import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { tableContents } from '../../test/support/snapshot.js';
import { migrateTo, migrateToLatest } from './migrator.js';

const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 0, minutes));

/**
 * Migration 0011 (issue 14): stored domains in non-canonical forms (Unicode, full-width, mixed
 * case, a leading www.) become canonical; forms of one domain that collapse where the domain is
 * unique are merged or kept first, and reported.
 */
for (const kind of DATABASE_KINDS) {
  describe(`migration 0011_canonical_domains [${kind}]`, () => {
    let database: TestDatabase;
    const platformId = crypto.randomUUID();

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      await migrateTo(database.db, '0010_setup_job_leases');
      const { db } = database;
      await db.insertInto('platforms').values({ id: platformId, name: 'Before' }).execute();
      await db
        .insertInto('platform_brands')
        .values([
          {
            platform_id: platformId,
            domain: 'café.example',
            business_name: 'Café',
            status: 'active',
            end_date: null,
            created_at: at(10),
            updated_at: at(10),
          },
          {
            platform_id: platformId,
            domain: 'xn--caf-dma.example',
            business_name: null,
            status: 'closed',
            end_date: at(30),
            created_at: at(20),
            updated_at: at(30),
          },
          {
            platform_id: platformId,
            domain: 'ｃａｆé.example',
            business_name: 'Old name',
            status: 'active',
            end_date: null,
            created_at: at(0),
            updated_at: at(0),
          },
          {
            platform_id: platformId,
            domain: 'bücher.example',
            business_name: 'Bücher',
            status: 'active',
            end_date: null,
            created_at: at(0),
            updated_at: at(0),
          },
          {
            platform_id: platformId,
            domain: 'plain.example',
            business_name: 'Plain',
            status: 'active',
            end_date: null,
            created_at: at(0),
            updated_at: at(0),
          },
        ])
        .execute();
      await db
        .insertInto('companies')
        .values([
          { id: 'real-brand', domain: 'brand-x.example', created_at: at(0) },
          { id: 'full-width-copy', domain: 'ｂｒａｎｄ-ｘ.example', created_at: at(5) },
          { id: 'unicode-first', domain: 'bücher.example', created_at: at(0) },
          { id: 'punycode-later', domain: 'xn--bcher-kva.example', created_at: at(5) },
          { id: 'www-shop', domain: 'www.shop.example', created_at: at(0) },
          { id: 'mixed-directions', domain: 'shopשלום.example', created_at: at(0) },
          { id: 'no-domain', domain: null, created_at: at(0) },
        ])
        .execute();
      const user = await db
        .insertInto('brand_users')
        .values({ company_id: 'real-brand', email: 'staff@brand-x.example', password_hash: 'not-a-real-hash' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db.insertInto('brand_claims').values({ user_id: user.id, domain: 'Café.example', business_name: 'Claim' }).execute();
      await db
        .insertInto('merchant_stores')
        .values([
          { domain: 'café.example', created_at: at(0) },
          { domain: 'ｃａｆé.example', created_at: at(5) },
          { domain: 'bücher.example', created_at: at(0) },
          { domain: 'xn--bcher-kva.example', created_at: at(5) },
        ])
        .execute();
      await db.insertInto('setup_jobs').values({ domain: 'café.example' }).execute();
      const order = (storeDomain: string, orderId: string) => ({
        store_domain: storeDomain,
        order_id: orderId,
        customer_ref: 'ref',
        total_cents: 100,
        currency: 'USD',
        placed_at: at(0),
        new_customer: true,
      });
      await db
        .insertInto('attributed_orders')
        .values([order('café.example', 'o-1'), order('xn--caf-dma.example', 'o-1'), order('café.example', 'o-2')])
        .execute();
      await db.insertInto('store_customers').values({ store_domain: 'café.example', customer_ref: 'ref', first_order_id: 'o-2' }).execute();

      expect(await migrateTo(db, '0011_canonical_domains')).toEqual(['0011_canonical_domains']);
    });
    afterAll(async () => {
      await database?.close();
    });

    const report = async () =>
      (
        await sql<{ table_name: string; row_key: string; stored_domain: string; canonical_domain: string | null; outcome: string }>`
          select table_name, row_key, stored_domain, canonical_domain, outcome from domain_canonicalization_report
          order by table_name collate "C", stored_domain collate "C", row_key collate "C"`.execute(database.db)
      ).rows;

    it("merges the forms of a platform brand into one record: first creation, the latest sync's state and name", async () => {
      const rows = await database.db
        .selectFrom('platform_brands')
        .selectAll()
        .where('platform_id', '=', platformId)
        .orderBy('domain')
        .execute();
      expect(
        rows.map(({ domain, business_name, status, end_date, created_at, updated_at }) => ({
          domain,
          business_name,
          status,
          end_date,
          created_at,
          updated_at,
        })),
      ).toEqual([
        { domain: 'plain.example', business_name: 'Plain', status: 'active', end_date: null, created_at: at(0), updated_at: at(0) },
        {
          domain: 'xn--bcher-kva.example',
          business_name: 'Bücher',
          status: 'active',
          end_date: null,
          created_at: at(0),
          updated_at: at(0),
        },
        { domain: 'xn--caf-dma.example', business_name: 'Café', status: 'closed', end_date: at(30), created_at: at(0), updated_at: at(30) },
      ]);
    });

    it("gives a company's canonical domain to the oldest company holding a form of it, and takes it from the others", async () => {
      const companies = await database.db.selectFrom('companies').select(['id', 'domain']).orderBy('id').execute();
      expect(companies).toEqual([
        { id: 'full-width-copy', domain: null },
        { id: 'mixed-directions', domain: 'shopשלום.example' },
        { id: 'no-domain', domain: null },
        { id: 'punycode-later', domain: null },
        { id: 'real-brand', domain: 'brand-x.example' },
        { id: 'unicode-first', domain: 'xn--bcher-kva.example' },
        { id: 'www-shop', domain: 'shop.example' },
      ]);
    });

    it(`canonicalizes claims, merchant stores, setup jobs, orders and \
customers, keeping the first where the domain is unique`, async () => {
      const { db } = database;
      expect(await db.selectFrom('brand_claims').select('domain').execute()).toEqual([{ domain: 'xn--caf-dma.example' }]);
      const merchantStores = await db.selectFrom('merchant_stores').select('domain').execute();
      expect(merchantStores.map((row) => row.domain).sort()).toEqual([
        'bücher.example',
        'xn--bcher-kva.example',
        'xn--caf-dma.example',
        'ｃａｆé.example',
      ]);
      expect(await db.selectFrom('setup_jobs').select('domain').execute()).toEqual([{ domain: 'xn--caf-dma.example' }]);
      const orders = await db.selectFrom('attributed_orders').select(['store_domain', 'order_id']).execute();
      expect(orders.map((row) => `${row.order_id} ${row.store_domain}`).sort()).toEqual([
        'o-1 café.example',
        'o-1 xn--caf-dma.example',
        'o-2 xn--caf-dma.example',
      ]);
      expect(await db.selectFrom('store_customers').select('store_domain').execute()).toEqual([{ store_domain: 'xn--caf-dma.example' }]);
    });

    it('reports every row merged, left without a domain or left as stored', async () => {
      expect(await report()).toEqual([
        {
          table_name: 'attributed_orders',
          row_key: 'o-1',
          stored_domain: 'café.example',
          canonical_domain: 'xn--caf-dma.example',
          outcome: 'left_as_stored',
        },
        {
          table_name: 'companies',
          row_key: 'mixed-directions',
          stored_domain: 'shopשלום.example',
          canonical_domain: null,
          outcome: 'left_as_stored',
        },
        {
          table_name: 'companies',
          row_key: 'punycode-later',
          stored_domain: 'xn--bcher-kva.example',
          canonical_domain: 'xn--bcher-kva.example',
          outcome: 'domain_removed',
        },
        {
          table_name: 'companies',
          row_key: 'full-width-copy',
          stored_domain: 'ｂｒａｎｄ-ｘ.example',
          canonical_domain: 'brand-x.example',
          outcome: 'domain_removed',
        },
        {
          table_name: 'merchant_stores',
          row_key: 'bücher.example',
          stored_domain: 'bücher.example',
          canonical_domain: 'xn--bcher-kva.example',
          outcome: 'left_as_stored',
        },
        {
          table_name: 'merchant_stores',
          row_key: 'ｃａｆé.example',
          stored_domain: 'ｃａｆé.example',
          canonical_domain: 'xn--caf-dma.example',
          outcome: 'left_as_stored',
        },
        {
          table_name: 'platform_brands',
          row_key: platformId,
          stored_domain: 'café.example',
          canonical_domain: 'xn--caf-dma.example',
          outcome: 'merged',
        },
        {
          table_name: 'platform_brands',
          row_key: platformId,
          stored_domain: 'ｃａｆé.example',
          canonical_domain: 'xn--caf-dma.example',
          outcome: 'merged',
        },
      ]);
    });

    it('changes nothing when run on canonical domains, and undoes to the schema before it', async () => {
      const before = await report();
      const { domain_canonicalization_report: _reportBefore, ...dataBefore } = await tableContents(database.db);
      await migrateTo(database.db, '0010_setup_job_leases');
      await expect(sql`select 1 from domain_canonicalization_report`.execute(database.db)).rejects.toThrow();
      await migrateToLatest(database.db);
      const { domain_canonicalization_report: _reportAfter, ...dataAfter } = await tableContents(database.db);
      expect(dataAfter).toEqual(dataBefore);
      // Only what could not be made canonical is reported again: the mixed-direction company, and
      // the rows left as stored beside a canonical one.
      expect((await report()).map((row) => row.stored_domain).sort()).toEqual(
        before
          .filter((row) => row.outcome === 'left_as_stored')
          .map((row) => row.stored_domain)
          .sort(),
      );
    });
  });
}
