import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../test/support/databases.js';
import type { InvalidationTopic } from './cache/invalidation.js';
import { inTransaction, type DataContext } from './service-context.js';

for (const kind of DATABASE_KINDS) {
  describe(`inTransaction [${kind}]`, () => {
    let database: TestDatabase;
    let published: InvalidationTopic[];
    let ctx: DataContext;
    const platformNamed = async (name: string) =>
      (await database.db.selectFrom('platforms').select('id').where('name', '=', name).executeTakeFirst()) !== undefined;
    const insertPlatform = (tx: DataContext, name: string) =>
      tx.db.insertInto('platforms').values({ id: crypto.randomUUID(), name, created_at: new Date(), updated_at: new Date() }).execute();

    beforeAll(async () => {
      database = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await database.close();
    });

    const fresh = () => {
      published = [];
      ctx = { db: database.db, bus: { publish: async (topic) => void published.push(topic) } };
    };

    it('announces what the work published once, after the commit, when its rows are visible', async () => {
      fresh();
      const visibleAtPublish: boolean[] = [];
      const publish = async (topic: InvalidationTopic) => {
        published.push(topic);
        visibleAtPublish.push(await platformNamed('committed'));
      };
      ctx = { db: database.db, bus: { publish } };
      await inTransaction(ctx, async (tx) => {
        await insertPlatform(tx, 'committed');
        await tx.bus.publish('platforms');
        await tx.bus.publish('platforms');
        await tx.bus.publish('offers');
        expect(published).toEqual([]);
      });
      expect(published).toEqual(['platforms', 'offers']);
      expect(visibleAtPublish).toEqual([true, true]);
    });

    it('announces nothing and writes nothing when the work fails', async () => {
      fresh();
      await expect(
        inTransaction(ctx, async (tx) => {
          await insertPlatform(tx, 'rolled back');
          await tx.bus.publish('platforms');
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(published).toEqual([]);
      expect(await platformNamed('rolled back')).toBe(false);
    });

    it('joins a transaction it is called in: one commit, one announcement', async () => {
      fresh();
      await inTransaction(ctx, async (outer) => {
        await inTransaction(outer, async (inner) => {
          expect(inner.db).toBe(outer.db);
          await insertPlatform(inner, 'nested');
          await inner.bus.publish('campaigns');
        });
        expect(published).toEqual([]);
      });
      expect(published).toEqual(['campaigns']);
      expect(await platformNamed('nested')).toBe(true);
    });
  });
}
