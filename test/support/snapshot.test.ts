import crypto from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from './databases.js';
import { tableContents } from './snapshot.js';

/**
 * tableContents is what "a refused request wrote nothing" rests on, in the fuzzing and in every
 * forgery test: its shortcut (an unchanged count of recorded writes returns the last digest) must
 * never hide a write.
 */
const insertPlatform = (id = crypto.randomUUID()) => `insert into platforms (id, name) values ('${id}', 'Snapshot platform')`;

for (const kind of DATABASE_KINDS) {
  describe(`tableContents [${kind}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await database?.close();
    });

    it('names the table an insert, an update in place, a delete or a truncate changed', async () => {
      const platformId = crypto.randomUUID();
      const steps = [
        insertPlatform(platformId),
        `update platforms set name = 'Renamed' where id = '${platformId}'`,
        `insert into platform_keys (platform_id, key_hash, key_last_four, environment) values ('${platformId}', 'h', 'abcd', 'test')`,
        'delete from platform_keys',
        'truncate platforms cascade',
      ];
      const changed = ['platforms', 'platforms', 'platform_keys', 'platform_keys', 'platforms'];
      for (const [index, statement] of steps.entries()) {
        const before = await tableContents(database.db);
        expect(await tableContents(database.db), 'nothing written yet').toEqual(before);
        await sql.raw(statement).execute(database.db);
        const after = await tableContents(database.db);
        const differing = Object.keys(after).filter((table) => after[table] !== before[table]);
        expect(differing, statement).toEqual([changed[index]]);
      }
    });

    it('leaves out the volatile columns, and a copy it returns cannot change the next', async () => {
      const platformId = crypto.randomUUID();
      await sql.raw(insertPlatform(platformId)).execute(database.db);
      await sql
        .raw(`insert into platform_keys (platform_id, key_hash, key_last_four, environment) values ('${platformId}', 'v', 'wxyz', 'live')`)
        .execute(database.db);
      const before = await tableContents(database.db);
      await sql.raw(`update platform_keys set last_used_at = now() where platform_id = '${platformId}'`).execute(database.db);
      const after = await tableContents(database.db);
      expect(after).toEqual(before);
      after.platforms = 'tampered';
      expect((await tableContents(database.db)).platforms).toBe(before.platforms);
    });
  });
}

describe('tableContents beside another connection [postgres]', () => {
  let database: TestDatabase;
  let other: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    other = new pg.Client({ connectionString: database.url });
    await other.connect();
  });
  afterAll(async () => {
    await other?.end();
    await database?.close();
  });

  it('shows a write committed after a digest that ran while it was in flight, and no write rolled back', async () => {
    const before = await tableContents(database.db);
    await other.query('begin');
    await other.query(insertPlatform());
    expect(await tableContents(database.db), 'not committed yet').toEqual(before);
    await other.query('commit');
    const committed = await tableContents(database.db);
    expect(committed.platforms).not.toBe(before.platforms);

    await other.query('begin');
    await other.query(insertPlatform());
    await other.query('rollback');
    expect(await tableContents(database.db)).toEqual(committed);
  });
});
