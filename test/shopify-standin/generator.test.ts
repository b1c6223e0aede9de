import { describe, expect, it } from 'vitest';
import { generateShopData } from './generator.js';
import { IdAllocator } from './model.js';
import { ShopifyStandIn } from './stand-in.js';

describe('Shopify stand-in: shop generator', () => {
  it('makes a shop of 10,000 products and 50,000 orders in well under a few seconds', () => {
    const standIn = new ShopifyStandIn();
    const started = performance.now();
    const shop = standIn.createShop({ name: 'bigstore', products: 10_000, orders: 50_000 });
    const elapsedMs = performance.now() - started;
    expect(shop.products).toHaveLength(10_000);
    expect(shop.orders).toHaveLength(50_000);
    // Measured at 0.3 to 0.9 s on this 2-core machine (README); the bound leaves room for a busy CI.
    expect(elapsedMs).toBeLessThan(3_000);
    console.info(`generated 10,000 products and 50,000 orders in ${Math.round(elapsedMs)} ms`);
  });

  it('is deterministic by seed, keeps orders in time order, and counts each customer’s orders', () => {
    const options = {
      seed: 'seed-1',
      products: 300,
      orders: 2_000,
      now: new Date('2026-11-02T12:00:00Z'),
      withoutImagesShare: 0.1,
      inactiveShare: 0.2,
    };
    const first = generateShopData(new IdAllocator(), 'a.myshopify.com', options);
    const second = generateShopData(new IdAllocator(), 'a.myshopify.com', options);
    expect(second).toEqual(first);
    const other = generateShopData(new IdAllocator(), 'a.myshopify.com', { ...options, seed: 'seed-2' });
    expect(other.products.map((product) => product.title)).not.toEqual(first.products.map((product) => product.title));

    const times = first.orders.map((order) => order.createdAt.getTime());
    expect(times).toEqual([...times].sort((left, right) => left - right));
    const ordersByCustomer = new Map<number, number>();
    const expectedIndexes = first.orders.map((order) => {
      const seen = (ordersByCustomer.get(order.customerId!) ?? 0) + 1;
      ordersByCustomer.set(order.customerId!, seen);
      return seen;
    });
    expect(first.orders.map((order) => order.customerOrderIndex)).toEqual(expectedIndexes);
    expect(first.customers.map((customer) => customer.orderCount)).toEqual(
      first.customers.map((customer) => ordersByCustomer.get(customer.id) ?? 0),
    );
    expect(first.products.some((product) => product.imageUrl === null)).toBe(true);
    expect(first.products.some((product) => product.status !== 'ACTIVE')).toBe(true);
  });
});
