import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { executePrepared } from './prepared.js';

for (const kind of DATABASE_KINDS) {
  describe(`executePrepared [${kind}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await database.close();
    });

    const sum = (a: number, b: number) => sql<{ total: number }>`select ${a}::int + ${b}::int as total`;

    it('binds new values on every run of the same statement', async () => {
      await database.db.connection().execute(async (connection) => {
        expect((await executePrepared(connection, 'prepared_test_sum', sum(1, 2))).rows).toEqual([{ total: 3 }]);
        expect((await executePrepared(connection, 'prepared_test_sum', sum(40, 2))).rows).toEqual([{ total: 42 }]);
        // Text that was never given a name still runs as an ordinary statement.
        expect((await sql<{ total: number }>`select ${2}::int * ${3}::int as total`.execute(connection)).rows).toEqual([{ total: 6 }]);
      });
    });

    if (kind === 'postgres') {
      it('keeps the statement prepared on the connection under its name', async () => {
        await database.db.connection().execute(async (connection) => {
          await executePrepared(connection, 'prepared_test_sum', sum(1, 1));
          await executePrepared(connection, 'prepared_test_sum', sum(2, 2));
          const prepared = await sql<{ name: string; statement: string }>`
            select name, statement from pg_prepared_statements where not from_sql`.execute(connection);
          expect(prepared.rows).toEqual([{ name: 'prepared_test_sum', statement: sum(0, 0).compile(connection).sql }]);
        });
      });
    }
  });
}
