import { describe, expect, it } from 'vitest';
import { incomingOrder, refundReversal, type ShopifyOrderPayload, UnreadablePayloadError } from './orders.js';

const SHOP = 'yen-and-dinar.myshopify.com';
const order = (currency: string, total: string): ShopifyOrderPayload => ({
  id: 1001,
  created_at: '2026-11-20T10:00:00Z',
  currency,
  total_price: total,
  customer: { id: 7 },
});

describe('Shopify order and refund bodies in minor units by ISO 4217', () => {
  it('books JPY without minor units and KWD with three, never x100', () => {
    expect(incomingOrder(SHOP, order('JPY', '1500'))?.totalCents).toBe(1500);
    expect(incomingOrder(SHOP, order('JPY', '1500.00'))?.totalCents).toBe(1500);
    expect(incomingOrder(SHOP, order('KWD', '12.345'))?.totalCents).toBe(12345);
    expect(incomingOrder(SHOP, order('USD', '404.95'))?.totalCents).toBe(40495);
  });

  it('takes the commission base from the subtotal (after discounts, without shipping, duties and taxes), never above the total', () => {
    const withSubtotal = { ...order('USD', '130.00'), subtotal_price: '100.00' };
    expect(incomingOrder(SHOP, withSubtotal)).toMatchObject({ totalCents: 13000, merchandiseCents: 10000 });
    expect(incomingOrder(SHOP, { ...order('JPY', '1650'), subtotal_price: '1500' })?.merchandiseCents).toBe(1500);
    expect(incomingOrder(SHOP, { ...order('USD', '90.00'), subtotal_price: '95.00' })?.merchandiseCents).toBe(9000);
    expect(incomingOrder(SHOP, order('USD', '90.00'))?.merchandiseCents).toBeUndefined();
    expect(() => incomingOrder(SHOP, { ...order('JPY', '1650'), subtotal_price: '1500.5' })).toThrow(UnreadablePayloadError);
  });

  it('refuses, as a body no retry can book, an amount finer than the currency or a currency ISO does not know', () => {
    expect(() => incomingOrder(SHOP, order('JPY', '1500.5'))).toThrow(UnreadablePayloadError);
    expect(() => incomingOrder(SHOP, order('XYZ', '10.00'))).toThrow(UnreadablePayloadError);
  });

  it('takes a refund transaction’s currency from the refund’s line items when the transaction names none', () => {
    const reversal = refundReversal(SHOP, {
      id: 55,
      order_id: 1001,
      created_at: '2026-11-21T10:00:00Z',
      transactions: [
        { kind: 'refund', status: 'success', amount: '300', currency: null },
        { kind: 'refund', status: 'failure', amount: '999', currency: null },
      ],
      refund_line_items: [{ subtotal_set: { presentment_money: { amount: '300', currency_code: 'JPY' } } }],
    });
    expect(reversal.refunded).toEqual([{ amountCents: 300, currency: 'JPY' }]);
    expect(() =>
      refundReversal(SHOP, {
        id: 56,
        order_id: 1001,
        created_at: '2026-11-21T10:00:00Z',
        transactions: [{ kind: 'refund', status: 'success', amount: '3.00', currency: null }],
      }),
    ).toThrow(/names no currency/);
  });

  describe("a refund of an order the shopper paid in another currency, booked in the shop's from Shopify's own amounts", () => {
    const set = (shop: string, shopper: string, shopperCurrency = 'EUR') => ({
      shop_money: { amount: shop, currency_code: 'USD' },
      presentment_money: { amount: shopper, currency_code: shopperCurrency },
    });
    const refund = (fields: Partial<Parameters<typeof refundReversal>[1]>) =>
      refundReversal(SHOP, { id: 60, order_id: 1001, created_at: '2026-11-21T10:00:00Z', ...fields });
    const paid = (amount: string, currency: string | null = 'EUR') => [{ kind: 'refund', status: 'success', amount, currency }];

    it("whole items: the items' shop money, tax included, when the transactions moved their shopper money", () => {
      const reversal = refund({
        transactions: paid('101.20'),
        refund_line_items: [{ subtotal_set: set('100.00', '92.00'), total_tax_set: set('10.00', '9.20') }],
      });
      expect(reversal.refunded).toEqual([{ amountCents: 11000, currency: 'USD' }]);
      expect(reversal.paidBack).toEqual([{ amountCents: 10120, currency: 'EUR' }]);
      // A transaction naming no currency is the shopper's, as the line items say.
      expect(refund({ transactions: paid('92.00', null), refund_line_items: [{ subtotal_set: set('100.00', '92.00') }] }).refunded).toEqual(
        [{ amountCents: 10000, currency: 'USD' }],
      );
    });

    it('less than the items (an adjustment kept back), an amount on its own (a negative adjustment): items less adjustments', () => {
      const kept = refund({
        transactions: paid('46.00'),
        refund_line_items: [{ subtotal_set: set('100.00', '92.00') }],
        order_adjustments: [{ amount_set: set('50.00', '46.00'), tax_amount_set: set('0.00', '0.00') }],
      });
      expect(kept.refunded).toEqual([{ amountCents: 5000, currency: 'USD' }]);
      const alone = refund({ transactions: paid('18.40'), order_adjustments: [{ amount_set: set('-20.00', '-18.40') }] });
      expect(alone.refunded).toEqual([{ amountCents: 2000, currency: 'USD' }]);
    });

    it("transactions that are not exactly the refund's shopper money are converted at the rate of its two sums", () => {
      const reversal = refund({ transactions: paid('18.39'), order_adjustments: [{ amount_set: set('-20.00', '-18.40') }] });
      expect(reversal.refunded).toEqual([{ amountCents: Math.round((1839 * 2000) / 1840), currency: 'USD' }]);
    });

    it('minor units by ISO 4217 on both sides: yen paid back at a dollar shop', () => {
      const reversal = refund({
        transactions: paid('1500', 'JPY'),
        refund_line_items: [{ subtotal_set: set('10.00', '1500', 'JPY') }],
      });
      expect(reversal).toMatchObject({
        refunded: [{ amountCents: 1000, currency: 'USD' }],
        paidBack: [{ amountCents: 1500, currency: 'JPY' }],
      });
    });

    it("a transaction's own shop money, where the body has it, is taken as it is", () => {
      const reversal = refund({
        transactions: [{ kind: 'refund', status: 'success', amount: '9.00', currency: 'EUR', amount_set: set('9.87', '9.00') }],
        refund_line_items: [{ subtotal_set: set('100.00', '92.00') }],
      });
      expect(reversal.refunded).toEqual([{ amountCents: 987, currency: 'USD' }]);
    });

    it("money nothing converts stays in the shopper's currency, for the ledger to refuse as not the order's", () => {
      expect(refund({ transactions: paid('18.40') }).refunded).toEqual([{ amountCents: 1840, currency: 'EUR' }]);
      const mixed = refund({ transactions: paid('18.40'), refund_line_items: [{ subtotal_set: set('20.00', '18.40', 'GBP') }] });
      expect(mixed.refunded).toEqual([{ amountCents: 1840, currency: 'EUR' }]);
    });
  });
});
