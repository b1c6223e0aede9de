import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { domainsOfStore, linkStoreDomains, storeDomainOf } from './service.js';

for (const kind of DATABASE_KINDS) {
  describe(`a store's own domains [${kind}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await database.close();
    });

    it('finds the store by its linked host, normalized, and by its own domain', async () => {
      const ctx = { db: database.db };
      await linkStoreDomains(ctx, 'acme.myshopify.com', { primary: 'https://www.Acme-Brand.example/shop' });
      expect(await storeDomainOf(ctx, 'acme-brand.example')).toBe('acme.myshopify.com');
      expect(await storeDomainOf(ctx, 'acme.myshopify.com')).toBe('acme.myshopify.com');
      expect(await storeDomainOf(ctx, 'unknown.example')).toBe('unknown.example');
      expect(await domainsOfStore(ctx, 'acme.myshopify.com')).toEqual(['acme.myshopify.com', 'acme-brand.example']);
    });

    it("replaces the store's hosts: a host it no longer has leads nowhere, the primary comes first", async () => {
      const ctx = { db: database.db };
      await linkStoreDomains(ctx, 'beta.myshopify.com', { primary: 'beta.example', others: ['old-beta.example'] });
      await linkStoreDomains(ctx, 'beta.myshopify.com', { primary: 'new-beta.example', others: ['beta.example'] });
      expect(await domainsOfStore(ctx, 'beta.myshopify.com')).toEqual(['beta.myshopify.com', 'new-beta.example', 'beta.example']);
      expect(await storeDomainOf(ctx, 'old-beta.example')).toBe('old-beta.example');
    });

    it("leaves out the store's own domain and malformed hosts, and links nothing for a store without a custom domain", async () => {
      const ctx = { db: database.db };
      await linkStoreDomains(ctx, 'plain.myshopify.com', { primary: 'plain.myshopify.com', others: ['not a host', 'localhost'] });
      expect(await domainsOfStore(ctx, 'plain.myshopify.com')).toEqual(['plain.myshopify.com']);
      const rows = await database.db.selectFrom('store_domains').selectAll().where('store_domain', '=', 'plain.myshopify.com').execute();
      expect(rows).toEqual([]);
    });

    it('moves a host to the store the platform now says it points to; a host never leads to two stores', async () => {
      const ctx = { db: database.db };
      await linkStoreDomains(ctx, 'first.myshopify.com', { primary: 'moved.example' });
      await linkStoreDomains(ctx, 'second.myshopify.com', { primary: 'moved.example' });
      expect(await storeDomainOf(ctx, 'moved.example')).toBe('second.myshopify.com');
      expect(await domainsOfStore(ctx, 'first.myshopify.com')).toEqual(['first.myshopify.com']);
    });

    it('unlinks every host of a store given none', async () => {
      const ctx = { db: database.db };
      await linkStoreDomains(ctx, 'gone.myshopify.com', { primary: 'gone.example' });
      await linkStoreDomains(ctx, 'gone.myshopify.com', { primary: null });
      expect(await storeDomainOf(ctx, 'gone.example')).toBe('gone.example');
    });
  });
}
