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
});
