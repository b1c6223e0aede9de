import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { insertSignUpRequest } from './dal.js';

/** Sign-ups waiting for their links: each is written after its answer, so several to one address can arrive at once. */
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
      const start = Date.parse('2026-11-27T12:00:00Z');
      await Promise.all(
        Array.from({ length: 7 }, (_, i) =>
          insertSignUpRequest(
            database.db,
            {
              tokenHash: `${kind}-token-${i}`,
              email,
              passwordHash: 'argon2-hash',
              invitationCodeHash: null,
              claim: { domain: `at-once-${i}.example`, businessName: `At once ${i}`, categories: [] },
              expiresAt: new Date(start + 3_600_000),
            },
            5,
            new Date(start + i),
          ),
        ),
      );
      const rows = await database.db.selectFrom('sign_up_requests').select('business_name').where('email', '=', email).execute();
      expect(rows.map((row) => row.business_name).sort()).toEqual(['At once 2', 'At once 3', 'At once 4', 'At once 5', 'At once 6']);
    });
  });
}
