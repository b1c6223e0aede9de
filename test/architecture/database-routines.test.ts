import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';

const HEADER = `-- The database functions and triggers as the migrations leave them (several are redefined by later
-- migrations), in one place to read. Written by PostgreSQL itself (pg_get_functiondef,
-- pg_get_triggerdef) from a migrated database; test/architecture/database-routines.test.ts fails
-- when this file differs from what the migrations produce. After a migration changes one:
--   npx vitest run test/architecture/database-routines.test.ts -u
`;

describe('docs/database-routines.sql', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.close();
  });

  it("holds every function and trigger of the migrated database, as PostgreSQL defines them (extensions' own aside)", async () => {
    const functions = await sql<{ definition: string }>`
      select pg_get_functiondef(p.oid) as definition
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public'
        and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
      order by p.proname, pg_get_function_identity_arguments(p.oid)`.execute(database.db);
    const triggers = await sql<{ definition: string }>`
      select pg_get_triggerdef(t.oid, true) as definition
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and not t.tgisinternal
      order by c.relname, t.tgname`.execute(database.db);
    expect(functions.rows.length).toBeGreaterThan(0);
    expect(triggers.rows.length).toBeGreaterThan(0);
    const text = [
      HEADER,
      '-- Functions',
      ...functions.rows.map(({ definition }) => `${definition.trim()};\n`),
      '-- Triggers',
      ...triggers.rows.map(({ definition }) => `${definition};`),
      '',
    ].join('\n');
    await expect(text).toMatchFileSnapshot('../../docs/database-routines.sql');
  });
});
