import { beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ADMIN_TOKEN, describeEachDatabase } from '../../test/support/harness.js';
import { uniqueId } from '../../test/support/factories.js';
import { seedPerformanceStory, utcDay, type PerformanceStory } from '../../test/support/performance-story.js';
import { receiveOrder, recordOrderEvent } from '../orders/service.js';

/**
 * The story of test/support/performance-story.ts, and on top: today a shopper orders at Zeta's store
 * with Zeta's discount code and no referral token, in euros. The last click on Zeta's offer is
 * Alpha's showing on p1, 3 days ago: the order credits the pair Alpha → Zeta and no platform
 * ("unknown platform"). Zeta refunds 1,000 of it. Performance and the admin stats count it there,
 * in euros, beside the story's dollars.
 */
describeEachDatabase('performance: orders credited to no platform ("unknown platform")', (use) => {
  let story: PerformanceStory;
  const [from, to] = [utcDay(3), utcDay(0)];
  const euros = { currency: 'EUR', orders: 1, newCustomers: 1, revenueMinor: 5_000, commissionMinor: 250 };

  beforeAll(async () => {
    story = await seedPerformanceStory(use());
    const { db, config } = use();
    const zeta = await db.selectFrom('offers').select('discount_code').where('company_id', '=', story.zetaId).executeTakeFirstOrThrow();
    const zetaDomain = (await db.selectFrom('companies').select('domain').where('id', '=', story.zetaId).executeTakeFirstOrThrow()).domain!;
    const orderId = uniqueId('code-order');
    const outcome = await receiveOrder(
      { db, ...config.orders },
      {
        storeDomain: zetaDomain,
        orderId,
        customerId: 'code-shopper',
        totalCents: 6_000,
        currency: 'EUR',
        placedAt: new Date(),
        discountCode: zeta.discount_code!.toLowerCase(),
      },
    );
    expect(outcome.matchedBy).toBe('discount_code');
    await recordOrderEvent(
      { db },
      { storeDomain: zetaDomain, orderId, eventId: 'refund-eur', kind: 'refund', amountCents: 1_000, occurredAt: new Date() },
    );
    const stored = await db.selectFrom('attributed_orders').select('platform_id').where('order_id', '=', orderId).executeTakeFirstOrThrow();
    expect(stored.platform_id).toBeNull();
  });

  const adminStats = (platformId: string, query = '') =>
    use().app.inject({
      method: 'GET',
      url: `/admin/platforms/${platformId}/stats${query}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });

  it("puts the order in the showing brand's shown side under the unknown platform, per currency, never added to dollars", async () => {
    const response = await story.alpha.get(`/dashboard/api/performance/shown?from=${from}&to=${to}`);
    expect(response.statusCode, response.body).toBe(200);
    const shown = response.json();
    expect(shown.byPlatform.at(-1)).toEqual({ platformId: null, name: 'unknown platform', views: 0, clicks: 0, ...counts(euros) });
    expect(shown.totals).toEqual({
      views: 10,
      clicks: 3,
      orders: 3,
      newCustomers: 2,
      money: [euros, { currency: 'USD', orders: 2, newCustomers: 1, revenueMinor: 14_000, commissionMinor: 500 }],
    });
    expect(shown.byDay.at(-1).orders).toBe(1);
    expect(shown.byPartner.data.find((row: { companyId: string }) => row.companyId === story.zetaId).money).toContainEqual(euros);

    const csv = await story.alpha.get(`/dashboard/api/performance/shown.csv?from=${from}&to=${to}`);
    expect(csv.body.split('\r\n')).toContain('platform,,unknown platform,0,0,1,1,EUR,5000,50,250,2.5');
  });

  it('counts it in both roles of the combined performance: the same figures per platform, day and in total', async () => {
    const response = await story.alpha.get(`/dashboard/api/performance?from=${from}&to=${to}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.byPlatform.at(-1)).toEqual({ platformId: null, name: 'unknown platform', views: 0, clicks: 0, ...counts(euros) });
    expect(body.totals.money.find((line: { currency: string }) => line.currency === 'EUR')).toEqual(euros);
    expect(body.totals.orders).toBe(body.byPlatform.reduce((sum: number, row: { orders: number }) => sum + row.orders, 0));
    expect(body.byDay.reduce((sum: number, day: { orders: number }) => sum + day.orders, 0)).toBe(body.totals.orders);
  });

  it('gives the admin stats of the unknown platform from the raw tables, equal to the rollups after a rebuild', async () => {
    const response = await adminStats('unknown', `?from=${from}&to=${to}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ views: 0, clicks: 0, ...counts(euros) });
    expect((await adminStats('unknown', `?from=${utcDay(10)}&to=${utcDay(5)}`)).json()).toEqual({
      views: 0,
      clicks: 0,
      orders: 0,
      newCustomers: 0,
      money: [],
    });
    // The p1 stats keep only the orders that carried the shopper's own click.
    const p1 = (await adminStats(story.platforms.p1)).json();
    expect(p1.money.map((line: { currency: string }) => line.currency)).toEqual(['USD']);

    const before = (await story.alpha.get(`/dashboard/api/performance/shown?from=${from}&to=${to}`)).json();
    await sql`select rebuild_performance()`.execute(use().db);
    expect((await story.alpha.get(`/dashboard/api/performance/shown?from=${from}&to=${to}`)).json()).toEqual(before);
  });

  it('refuses a platform that is neither a uuid nor "unknown" with 400 invalid_request', async () => {
    for (const id of ['UNKNOWN-PLATFORM', 'null', 'none']) {
      const response = await adminStats(id);
      expect(response.statusCode, id).toBe(400);
      expect(response.json().error).toBe('invalid_request');
    }
  });
});

/** A money line's counts, as a platform row carries them beside its money. */
const counts = (line: { orders: number; newCustomers: number }) => ({
  orders: line.orders,
  newCustomers: line.newCustomers,
  money: [line],
});
