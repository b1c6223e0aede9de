import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { drainScoringQueue } from '../recommendations/scorer.js';
import { migrateTo, migrateToLatest } from './migrator.js';

/**
 * Migration 0032 (issue 27): scores stored by the scorer that gave half credit for unknown facts
 * are rewritten, because every brand goes back on the scoring queue.
 */
for (const kind of DATABASE_KINDS) {
  describe(`migration 0032_rescore_known_terms_only [${kind}]`, () => {
    let database: TestDatabase;

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      await migrateTo(database.db, '0029_shopify_failed_deliveries');
      await sql`insert into companies (id, business_name, domain, categories) values
                  ('tea', 'Tea', 'tea.example', '{Tea}'), ('pets', 'Pets', 'pets.example', '{Pets}')`.execute(database.db);
      await sql`delete from scoring_queue`.execute(database.db);
      await sql`insert into recommendation_scores (company_id, candidate_id, match_rate, scored_at)
                values ('tea', 'pets', 30, now()), ('pets', 'tea', 30, now())`.execute(database.db);
    });

    afterAll(async () => {
      await database?.close();
    });

    it('queues every brand, so the old half-credit rates are rewritten', async () => {
      await migrateToLatest(database.db);
      const queued = await sql<{ company_id: string }>`select company_id from scoring_queue order by company_id`.execute(database.db);
      expect(queued.rows.map((row) => row.company_id)).toEqual(['pets', 'tea']);
      await drainScoringQueue(database.db);
      const rates = await sql<{ match_rate: number }>`select match_rate from recommendation_scores`.execute(database.db);
      expect(rates.rows.map((row) => row.match_rate)).toEqual([0, 0]);
    });
  });
}
