import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { InvalidationBus } from '../cache/invalidation.js';
import { domainsOfStore, linkStoreDomains, recordImportedStore, StoreDomainCache, storeDomainOf, storeDomainsOf } from './service.js';
import type { StoreProfile } from './store-profile.js';

const imported = (domain: string): StoreProfile => ({
  domain,
  businessName: 'Imported Name',
  tagline: 'From the platform',
  logoImageUrl: 'https://cdn.example/logo.png',
  categories: ['home'],
  country: 'US',
  productCount: 42,
  welcomeDiscountPercent: null,
  platformName: 'shopify',
});

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
      const ctx = { db: database.db, bus: new InvalidationBus() };
      await linkStoreDomains(ctx, 'acme.myshopify.com', { primary: 'https://www.Acme-Brand.example/shop' });
      expect(await storeDomainOf(ctx, 'acme-brand.example')).toBe('acme.myshopify.com');
      expect(await storeDomainOf(ctx, 'acme.myshopify.com')).toBe('acme.myshopify.com');
      expect(await storeDomainOf(ctx, 'unknown.example')).toBe('unknown.example');
      expect(await domainsOfStore(ctx, 'acme.myshopify.com')).toEqual(['acme.myshopify.com', 'acme-brand.example']);
    });

    it("replaces the store's hosts: a host it no longer has leads nowhere, the primary comes first", async () => {
      const ctx = { db: database.db, bus: new InvalidationBus() };
      await linkStoreDomains(ctx, 'beta.myshopify.com', { primary: 'beta.example', others: ['old-beta.example'] });
      await linkStoreDomains(ctx, 'beta.myshopify.com', { primary: 'new-beta.example', others: ['beta.example'] });
      expect(await domainsOfStore(ctx, 'beta.myshopify.com')).toEqual(['beta.myshopify.com', 'new-beta.example', 'beta.example']);
      expect(await storeDomainOf(ctx, 'old-beta.example')).toBe('old-beta.example');
    });

    it("leaves out the store's own domain and malformed hosts, and links nothing for a store without a custom domain", async () => {
      const ctx = { db: database.db, bus: new InvalidationBus() };
      await linkStoreDomains(ctx, 'plain.myshopify.com', { primary: 'plain.myshopify.com', others: ['not a host', 'localhost'] });
      expect(await domainsOfStore(ctx, 'plain.myshopify.com')).toEqual(['plain.myshopify.com']);
      const rows = await database.db.selectFrom('store_domains').selectAll().where('store_domain', '=', 'plain.myshopify.com').execute();
      expect(rows).toEqual([]);
    });

    it('moves a host to the store the platform now says it points to; a host never leads to two stores', async () => {
      const ctx = { db: database.db, bus: new InvalidationBus() };
      await linkStoreDomains(ctx, 'first.myshopify.com', { primary: 'moved.example' });
      await linkStoreDomains(ctx, 'second.myshopify.com', { primary: 'moved.example' });
      expect(await storeDomainOf(ctx, 'moved.example')).toBe('second.myshopify.com');
      expect(await domainsOfStore(ctx, 'first.myshopify.com')).toEqual(['first.myshopify.com']);
    });

    it('unlinks every host of a store given none', async () => {
      const ctx = { db: database.db, bus: new InvalidationBus() };
      await linkStoreDomains(ctx, 'gone.myshopify.com', { primary: 'gone.example' });
      await linkStoreDomains(ctx, 'gone.myshopify.com', { primary: null });
      expect(await storeDomainOf(ctx, 'gone.example')).toBe('gone.example');
    });

    it('gives the store a domain names and all its domains in one read, as the two reads do', async () => {
      const ctx = { db: database.db, bus: new InvalidationBus() };
      await linkStoreDomains(ctx, 'one.myshopify.com', { primary: 'one.example', others: ['one-shop.example'] });
      for (const given of ['one.example', 'one-shop.example', 'one.myshopify.com', 'elsewhere.example']) {
        const store = await storeDomainOf(ctx, given);
        expect(await storeDomainsOf(ctx, given), given).toEqual({ store, domains: await domainsOfStore(ctx, store) });
      }
      expect(await storeDomainsOf(ctx, 'one-shop.example')).toEqual({
        store: 'one.myshopify.com',
        domains: ['one.myshopify.com', 'one.example', 'one-shop.example'],
      });
    });

    it('announces a change of a store’s domains once, and nothing when the platform says the same again', async () => {
      const bus = new InvalidationBus();
      const heard: string[] = [];
      bus.on('store_domains', () => heard.push('store_domains'));
      const ctx = { db: database.db, bus };
      await linkStoreDomains(ctx, 'quiet.myshopify.com', { primary: 'https://www.Quiet.example/' });
      await linkStoreDomains(ctx, 'quiet.myshopify.com', { primary: 'quiet.example' });
      expect(heard).toHaveLength(1);
      await linkStoreDomains(ctx, 'quiet.myshopify.com', { primary: 'quiet.example', others: ['quiet-shop.example'] });
      await linkStoreDomains(ctx, 'quiet.myshopify.com', { primary: 'quiet-shop.example', others: ['quiet.example'] });
      await linkStoreDomains(ctx, 'quiet.myshopify.com', { primary: null });
      await linkStoreDomains(ctx, 'quiet.myshopify.com', { primary: null });
      expect(heard).toHaveLength(4);
    });

    it("an imported store joins the company of its linked domain (the brand signed up as brand.com): the brand's words kept", async () => {
      const ctx = { db: database.db, bus: new InvalidationBus() };
      await database.db
        .insertInto('companies')
        .values({ id: 'co_signed_up', domain: 'signed-up.example', business_name: 'Signed Up Brand', categories: ['toys'] })
        .execute();
      await linkStoreDomains(ctx, 'signed-up.myshopify.com', { primary: 'signed-up.example' });
      expect(await recordImportedStore(ctx, imported('signed-up.myshopify.com'))).toBe('co_signed_up');
      const companies = await database.db
        .selectFrom('companies')
        .select(['id', 'domain', 'business_name', 'categories', 'description', 'product_count', 'commerce_platform'])
        .where('domain', 'in', ['signed-up.example', 'signed-up.myshopify.com'])
        .execute();
      expect(companies).toEqual([
        {
          id: 'co_signed_up',
          domain: 'signed-up.example',
          business_name: 'Signed Up Brand',
          categories: ['toys'],
          description: 'From the platform',
          product_count: 42,
          commerce_platform: 'shopify',
        },
      ]);
      // Imported again (a reinstall): the same company.
      expect(await recordImportedStore(ctx, imported('signed-up.myshopify.com'))).toBe('co_signed_up');
    });

    it("an imported store keeps a company of its own domain, and takes no other store's brand by a linked domain", async () => {
      const ctx = { db: database.db, bus: new InvalidationBus() };
      await database.db
        .insertInto('companies')
        .values([
          { id: 'co_own', domain: 'own.myshopify.com', business_name: 'Own', categories: [] },
          { id: 'co_own_host', domain: 'own.example', business_name: 'Own Host', categories: [] },
          { id: 'co_moved', domain: 'moved-brand.example', business_name: 'Moved', categories: [] },
        ])
        .execute();
      await linkStoreDomains(ctx, 'own.myshopify.com', { primary: 'own.example' });
      expect(await recordImportedStore(ctx, imported('own.myshopify.com'))).toBe('co_own');

      await database.db.insertInto('merchant_stores').values({ domain: 'old.myshopify.com', company_id: 'co_moved' }).execute();
      await linkStoreDomains(ctx, 'new.myshopify.com', { primary: 'moved-brand.example' });
      const created = await recordImportedStore(ctx, imported('new.myshopify.com'));
      expect(created).not.toBe('co_moved');
      const company = await database.db.selectFrom('companies').select('domain').where('id', '=', created).executeTakeFirstOrThrow();
      expect(company.domain).toBe('new.myshopify.com');
    });

    it('the cache answers from memory until a change is announced, by this instance or another one', async () => {
      const bus = new InvalidationBus();
      const ctx = { db: database.db, bus };
      const cache = new StoreDomainCache(database.db, bus);
      await linkStoreDomains(ctx, 'cached.myshopify.com', { primary: 'cached.example' });
      expect(await cache.lookup('cached.example')).toEqual({
        store: 'cached.myshopify.com',
        domains: ['cached.myshopify.com', 'cached.example'],
      });
      // Rows changed behind its back (no announcement) are not seen: the answer is the one in memory, for the host
      // asked and for its store, whose domains the one read gave too.
      await database.db.deleteFrom('store_domains').where('store_domain', '=', 'cached.myshopify.com').execute();
      expect(await cache.storeOf('cached.example')).toBe('cached.myshopify.com');
      expect(await cache.domainsOf('cached.myshopify.com')).toEqual(['cached.myshopify.com', 'cached.example']);
      // A change through the companies service is announced: the next lookup reads again.
      await linkStoreDomains(ctx, 'cached.myshopify.com', { primary: 'cached-new.example' });
      expect(await cache.lookup('cached.example')).toEqual({ store: 'cached.example', domains: ['cached.example'] });
      expect((await cache.lookup('cached-new.example')).store).toBe('cached.myshopify.com');
      // Another instance's change arrives as the same topic on the bus.
      await database.db.deleteFrom('store_domains').where('store_domain', '=', 'cached.myshopify.com').execute();
      await bus.publish('store_domains');
      expect((await cache.lookup('cached-new.example')).store).toBe('cached-new.example');
    });
  });
}
