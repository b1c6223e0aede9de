import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { migrateTo, migrateToLatest } from './migrator.js';

/**
 * Migration 0044 (issue 44): names stored with a line break or another control character, from
 * before requests refused them, are made one line; the partners' per-partner names follow.
 */
for (const kind of DATABASE_KINDS) {
  describe(`migration 0044_names_are_one_line [${kind}]`, () => {
    let database: TestDatabase;
    const platformId = '7b0c1c0e-5f55-4f3e-9d2a-6c1f0b2d9e01';

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      await migrateTo(database.db, '0041_offers_left_with_store');
      await sql`insert into companies (id, business_name, domain, country) values
                  ('evil', ${'Evil Co\n=1+1'}, 'evil.example', ${'Far\u2028Land'}),
                  ('tabs', ${'\tTabbed\r\n\u0085 Co\u007f'}, 'tabs.example', null),
                  ('only', ${'\n\n'}, 'only.example', null),
                  ('fine', ${'Harbor & Vine – Coffee'}, 'fine.example', null)`.execute(database.db);
      await sql`insert into performance_partners (company_id, other_id, other_name) values ('fine', 'evil', ${'Evil Co\n=1+1'})`.execute(
        database.db,
      );
      await sql`insert into platforms (id, name) values (${platformId}, ${'Shop\u2029Window'})`.execute(database.db);
    });

    afterAll(async () => {
      await database?.close();
    });

    it('replaces control characters and line separators with a space, collapsed, and leaves other names alone', async () => {
      await migrateToLatest(database.db);
      const companies = await sql<{ id: string; business_name: string; country: string | null }>`
        select id, business_name, country from companies order by id`.execute(database.db);
      expect(companies.rows).toEqual([
        { id: 'evil', business_name: 'Evil Co =1+1', country: 'Far Land' },
        { id: 'fine', business_name: 'Harbor & Vine – Coffee', country: null },
        { id: 'only', business_name: ' ', country: null },
        { id: 'tabs', business_name: 'Tabbed Co', country: null },
      ]);
      const partners = await sql<{ other_name: string }>`select other_name from performance_partners`.execute(database.db);
      expect(partners.rows).toEqual([{ other_name: 'Evil Co =1+1' }]);
      const platforms = await sql<{ name: string }>`select name from platforms where id = ${platformId}`.execute(database.db);
      expect(platforms.rows).toEqual([{ name: 'Shop Window' }]);
    });
  });
}
