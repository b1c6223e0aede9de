import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../../test/support/databases.js';
import * as dal from './dal.js';

/**
 * The SQL of charging in the plan's currency (migration 0040), on both engines: an order's
 * commission in the shopper's currency noted once and read back, the usage record's noted amount
 * read back by its key, and the stores whose cap raise waits, oldest ask first.
 */
for (const kind of DATABASE_KINDS) {
  describe(`Shopify billing data [${kind}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await database?.close();
    });

    it('keeps an order’s commission per currency, the first note standing', async () => {
      const { db } = database;
      await dal.noteOrderCommission(db, { shop: 'a.myshopify.com', orderId: '1', currency: 'USD', commissionMinor: 1080 });
      await dal.noteOrderCommission(db, { shop: 'a.myshopify.com', orderId: '1', currency: 'USD', commissionMinor: 9999 });
      expect(await dal.orderCommissionIn(db, 'a.myshopify.com', '1', 'USD')).toBe(1080);
      expect(await dal.orderCommissionIn(db, 'a.myshopify.com', '1', 'GBP')).toBeUndefined();
      expect(await dal.orderCommissionIn(db, 'b.myshopify.com', '1', 'USD')).toBeUndefined();
    });

    it('answers the amount first noted for a usage record’s key, whatever a later note says', async () => {
      const { db } = database;
      const record = { idempotencyKey: 'commission:a.myshopify.com:2', shop: 'a.myshopify.com', orderId: '2', currency: 'JPY' };
      expect(await dal.insertUsageRecord(db, { ...record, amountCents: 1500 })).toEqual({
        usageRecordId: null,
        amountMinor: 1500,
        currency: 'JPY',
      });
      await dal.setUsageRecordId(db, record.idempotencyKey, 'gid://shopify/AppUsageRecord/1');
      expect(await dal.insertUsageRecord(db, { ...record, amountCents: 7, currency: 'USD' })).toEqual({
        usageRecordId: 'gid://shopify/AppUsageRecord/1',
        amountMinor: 1500,
        currency: 'JPY',
      });
    });

    it('lists the connected stores whose cap raise waits, oldest ask first', async () => {
      const { db } = database;
      const shop = (name: string, asked: Date | null, connected = true) =>
        db
          .insertInto('shopify_shops')
          .values({
            shop: `${name}.myshopify.com`,
            access_token_encrypted: connected ? 'v1.x.y.z' : null,
            usage_currency: 'EUR',
            cap_raise_confirmation_url: asked ? `https://${name}.myshopify.com/admin/charges/1/2/confirm_update_capped_amount` : null,
            cap_raise_minor: asked ? 100_000 : null,
            cap_raise_requested_at: asked,
          })
          .execute();
      await shop('late', new Date('2026-11-20T10:00:00Z'));
      await shop('early', new Date('2026-11-19T10:00:00Z'));
      await shop('left', new Date('2026-11-18T10:00:00Z'), false);
      await shop('none', null);
      expect(await dal.waitingCapRaises(db, 10)).toEqual([
        {
          shop: 'early.myshopify.com',
          confirmationUrl: 'https://early.myshopify.com/admin/charges/1/2/confirm_update_capped_amount',
          cappedMinor: 100_000,
          currency: 'EUR',
          requestedAt: new Date('2026-11-19T10:00:00Z'),
        },
        expect.objectContaining({ shop: 'late.myshopify.com' }),
      ]);
    });
  });
}
