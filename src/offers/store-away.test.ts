import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { createBrand } from '../../test/support/factories.js';
import { InvalidationBus } from '../cache/invalidation.js';
import {
  hideOffersOfLeavingStore,
  saveDraftOffer,
  saveOffer,
  setOfferLive,
  showOffersOfReturningStore,
  turnOnConsentedOffer,
} from './service.js';

const CONTENT = { title: 'Ten off', imageUrl: 'https://cdn.example/offer.png' };

for (const kind of DATABASE_KINDS) {
  describe(`offers hidden because their store left [${kind}]`, () => {
    let database: TestDatabase;
    const statements: string[] = [];
    const published: string[] = [];
    const bus = new InvalidationBus();
    bus.on('offers', () => published.push('offers'));
    const ctx = () => ({ db: database.db, bus, serviceEnv: 'test' as const, adapter: null });
    beforeAll(async () => {
      database = await createTestDatabase(kind, { onQuery: (text) => statements.push(text) });
    });
    afterAll(async () => {
      await database.close();
    });

    /** A brand with its offer saved in the dashboard (live from its first save). */
    const brandWithOffer = async () => {
      const { companyId } = await createBrand(ctx());
      await saveOffer(ctx(), { companyId, domain: null }, CONTENT);
      return companyId;
    };
    const offerOf = (companyId: string) =>
      database.db
        .selectFrom('offers')
        .select(['title', 'live', 'left_with_store'])
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow();

    it("hides only the live offers of the leaving store's brands, each marked with the store, in one statement", async () => {
      const live = await brandWithOffer();
      const turnedOff = await brandWithOffer();
      await setOfferLive(ctx(), turnedOff, false, new Date());
      const { companyId: draft } = await createBrand(ctx());
      await saveDraftOffer(ctx(), draft, { ...CONTENT, subtitle: 'From the best sellers' });
      const otherBrand = await brandWithOffer();
      statements.length = 0;
      published.length = 0;

      await hideOffersOfLeavingStore(ctx(), [live, turnedOff, draft], 'away.myshopify.com', new Date());
      expect(statements.filter((text) => /^\s*update\b/i.test(text))).toHaveLength(1);
      expect(published).toEqual(['offers']);
      expect(await offerOf(live)).toMatchObject({ live: false, left_with_store: 'away.myshopify.com' });
      expect(await offerOf(turnedOff)).toMatchObject({ live: false, left_with_store: null });
      expect(await offerOf(draft)).toMatchObject({ live: false, left_with_store: null });
      expect(await offerOf(otherBrand)).toMatchObject({ live: true, left_with_store: null });
    });

    it("shows again exactly what the store's leaving hid, and no other store's", async () => {
      const first = await brandWithOffer();
      const second = await brandWithOffer();
      const elsewhere = await brandWithOffer();
      const hidden = await brandWithOffer();
      await setOfferLive(ctx(), hidden, false, new Date());
      await hideOffersOfLeavingStore(ctx(), [first, second, hidden], 'back.myshopify.com', new Date());
      await hideOffersOfLeavingStore(ctx(), [elsewhere], 'gone.myshopify.com', new Date());
      statements.length = 0;
      published.length = 0;

      await showOffersOfReturningStore(ctx(), 'back.myshopify.com', new Date());
      expect(statements.filter((text) => /^\s*update\b/i.test(text))).toHaveLength(1);
      expect(published).toEqual(['offers']);
      for (const shown of [first, second]) expect(await offerOf(shown)).toMatchObject({ live: true, left_with_store: null });
      expect(await offerOf(hidden)).toMatchObject({ live: false, left_with_store: null });
      expect(await offerOf(elsewhere)).toMatchObject({ live: false, left_with_store: 'gone.myshopify.com' });
      // A return with nothing hidden by its leaving changes nothing and tells no cache.
      published.length = 0;
      await showOffersOfReturningStore(ctx(), 'back.myshopify.com', new Date());
      expect(published).toEqual([]);
    });

    it("keeps the brand's own choice while the store is away: turned off or on it is no longer the store's to show", async () => {
      const turnedOff = await brandWithOffer();
      const consented = await brandWithOffer();
      const rewritten = await brandWithOffer();
      const store = 'choices.myshopify.com';
      await hideOffersOfLeavingStore(ctx(), [turnedOff, consented, rewritten], store, new Date());

      await setOfferLive(ctx(), turnedOff, false, new Date());
      await turnOnConsentedOffer(ctx(), consented, { percent: 15, code: 'PARTNER15-ABCDEF', title: '15% off' }, new Date());
      // Saving its words changes what shows, not whether: still away, shown with the new words when the store is back.
      await saveOffer(ctx(), { companyId: rewritten, domain: null }, { ...CONTENT, title: 'Rewritten' });
      expect(await offerOf(turnedOff)).toMatchObject({ live: false, left_with_store: null });
      expect(await offerOf(consented)).toMatchObject({ live: true, left_with_store: null });
      expect(await offerOf(rewritten)).toEqual({ title: 'Rewritten', live: false, left_with_store: store });

      await showOffersOfReturningStore(ctx(), store, new Date());
      expect(await offerOf(turnedOff)).toMatchObject({ live: false, left_with_store: null });
      expect(await offerOf(rewritten)).toEqual({ title: 'Rewritten', live: true, left_with_store: null });
    });

    it('never keeps the mark on a live offer: a write that shows it without clearing the mark is refused', async () => {
      const companyId = await brandWithOffer();
      await hideOffersOfLeavingStore(ctx(), [companyId], 'refused.myshopify.com', new Date());
      await expect(database.db.updateTable('offers').set({ live: true }).where('company_id', '=', companyId).execute()).rejects.toThrow(
        /offers_left_with_store_hidden/,
      );
    });
  });
}
