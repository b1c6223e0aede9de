import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { migrateTo, migrateToLatest } from '../db/migrator.js';
import { insertSignUpRequestUnlessTaken, type SignUpRequest } from './dal.js';

const START = Date.parse('2026-11-27T12:00:00Z');

const request = (email: string, name: string): SignUpRequest => ({
  tokenHash: `${name}-token`,
  email,
  invitationCodeHash: null,
  claim: { domain: `${name}.example`, businessName: name, categories: ['home'] },
  expiresAt: new Date(START + 3_600_000),
});

/** Sign-ups waiting for their links: several to one address can arrive at once, and a taken address keeps none. */
for (const kind of DATABASE_KINDS) {
  describe(`sign-ups waiting for their links [${kind}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await database.close();
    });

    it('keeps an address at its newest five when seven sign-ups to it are written at once', async () => {
      const email = `${kind}-at-once@fresh.example`;
      const kept = await Promise.all(
        Array.from({ length: 7 }, (_, i) =>
          insertSignUpRequestUnlessTaken(database.db, request(email, `At once ${i}`), 5, new Date(START + i)),
        ),
      );
      expect(kept).toEqual(Array(7).fill(true));
      const rows = await database.db.selectFrom('sign_up_requests').select('business_name').where('email', '=', email).execute();
      expect(rows.map((row) => row.business_name).sort()).toEqual(['At once 2', 'At once 3', 'At once 4', 'At once 5', 'At once 6']);
    });

    it('writes nothing for an address that has an account, and keeps its categories and store for a free one', async () => {
      const taken = `${kind}-taken@owner.example`;
      await database.db
        .insertInto('brand_users')
        .values({ company_id: null, email: taken, display_name: null, password_hash: 'hash' })
        .execute();
      expect(await insertSignUpRequestUnlessTaken(database.db, request(taken, 'Taken'), 5, new Date(START))).toBe(false);
      expect(await database.db.selectFrom('sign_up_requests').select('token_hash').where('email', '=', taken).execute()).toEqual([]);

      const free = `${kind}-free@owner.example`;
      expect(await insertSignUpRequestUnlessTaken(database.db, request(free, 'Free'), 5, new Date(START))).toBe(true);
      expect(
        await database.db
          .selectFrom('sign_up_requests')
          .select(['token_hash', 'domain', 'business_name', 'categories', 'invitation_code_hash'])
          .where('email', '=', free)
          .execute(),
      ).toEqual([
        { token_hash: 'Free-token', domain: 'Free.example', business_name: 'Free', categories: ['home'], invitation_code_hash: null },
      ]);
    });
  });

  /**
   * Migration 0042 (issue 44): a sign-up kept the password given with it, and its link made the
   * account with that password, whoever had given it. A sign-up waiting when the migration runs
   * keeps its link and loses the password: its opener chooses one on the page the link opens.
   */
  describe(`migration 0042_sign_up_password_at_finish [${kind}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(kind);
      await migrateTo(database.db, '0041_offers_left_with_store');
      await sql`
        insert into sign_up_requests (token_hash, email, password_hash, domain, business_name, categories, expires_at)
        values ('waiting-token', 'victim@owner.example', '$argon2id$v=19$chosen-by-someone-else', 'victim.example', 'Victim',
                '{}', now() + interval '1 hour')`.execute(database.db);
      await migrateToLatest(database.db);
    });
    afterAll(async () => {
      await database.close();
    });

    it('drops the password a waiting sign-up carried and keeps its link', async () => {
      const columns = await sql<{ column_name: string }>`
        select column_name from information_schema.columns where table_name = 'sign_up_requests' order by column_name`.execute(database.db);
      expect(columns.rows.map((row) => row.column_name)).not.toContain('password_hash');
      const rows = await database.db.selectFrom('sign_up_requests').selectAll().execute();
      expect(rows).toMatchObject([{ token_hash: 'waiting-token', email: 'victim@owner.example', domain: 'victim.example' }]);
      expect(JSON.stringify(rows)).not.toMatch(/argon2/);
    });
  });
}
