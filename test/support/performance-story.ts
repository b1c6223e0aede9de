import type { TestContext } from './harness.js';
import { createBrand, createPlatform, uniqueId } from './factories.js';
import { seedPartnerOffer } from '../durability/seed.js';
import type { LinkKey } from '../../src/attribution/dal.js';
import { receiveOrder } from '../../src/orders/service.js';
import { DashboardClient } from './dashboard-client.js';

const DAY_MS = 86_400_000;

/** The UTC day `daysAgo` days before today, YYYY-MM-DD. */
export const utcDay = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);

export interface PerformanceStory {
  /** Alpha's dashboard, signed in. */
  alpha: DashboardClient;
  alphaEmail: string;
  alphaId: string;
  /** Partners of Alpha, by name: "Beta Tea Traders" (showings on P2 only) and "Zeta Coffee House". */
  betaId: string;
  zetaId: string;
  platforms: { p1: string; p2: string; unrelated: string };
}

/**
 * Alpha's activity over four UTC days (3 days ago to today) on two platforms, written through the
 * same paths as production (group commit for views and clicks, order intake for orders), from
 * both sides: Alpha showing its partners' offers, and Zeta showing Alpha's. Two days ago has
 * all of it at once; yesterday has nothing. Two unrelated brands are active on a third platform.
 *
 * | day | platform | showing brand | partner | views | clicks | orders                                  |
 * |-----|----------|---------------|---------|-------|--------|-----------------------------------------|
 * | -3  | p1       | Alpha         | Zeta    | 5     | 2      | 10,000 (new customer, commission 500)   |
 * | -2  | p1       | Zeta          | Alpha   | 4     | 1      | 2,500 (new customer, commission 125)    |
 * | -2  | p1       | Alpha         | Zeta    |       |        | 4,000 (returning customer)              |
 * | -2  | p2       | Alpha         | Beta    | 3     | 1      |                                         |
 * |  0  | p2       | Alpha         | Zeta    | 2     |        |                                         |
 */
export async function seedPerformanceStory(context: TestContext): Promise<PerformanceStory> {
  const { support, app, db } = context;
  const [p1, p2, unrelated] = [
    (await createPlatform(support)).platformId,
    (await createPlatform(support)).platformId,
    (await createPlatform(support)).platformId,
  ];
  const alpha = new DashboardClient(app);
  const alphaEmail = `${uniqueId('alpha')}@alpha.example`;
  const alphaDomain = `${uniqueId('alpha')}.example`;
  const alphaId = await alpha.signUpBrand('Alpha Roasters', alphaDomain, alphaEmail);
  await alpha.post('/dashboard/api/offer', { title: '10% off', imageUrl: 'https://cdn.example/alpha.png', discountPercent: 10 });
  const zeta = await seedPartnerOffer(support, alphaId);
  const beta = await seedPartnerOffer(support, alphaId);
  await db.updateTable('companies').set({ business_name: 'Zeta Coffee House' }).where('id', '=', zeta.partnerId).execute();
  await db.updateTable('companies').set({ business_name: 'Beta Tea Traders' }).where('id', '=', beta.partnerId).execute();

  const link = (platformId: string, brandId: string, partnerId: string, campaignId: string): LinkKey => ({
    platformId,
    campaignId,
    brandId,
    partnerId,
  });
  const alphaShowsZeta = link(p1, alphaId, zeta.partnerId, zeta.campaignId);
  const zetaShowsAlpha = link(p1, zeta.partnerId, alphaId, zeta.campaignId);
  const counters = app.runtime.attribution.counters;
  const at = (daysAgo: number) => new Date(Date.parse(utcDay(daysAgo)) + 3_600_000);
  await Promise.all([
    counters.record([alphaShowsZeta], 5, 2, at(3)),
    counters.record([zetaShowsAlpha], 4, 1, at(2)),
    counters.record([link(p2, alphaId, beta.partnerId, beta.campaignId)], 3, 1, at(2)),
    counters.record([link(p2, alphaId, zeta.partnerId, zeta.campaignId)], 2, 0, at(0)),
  ]);

  const [toZeta, toAlpha] = await app.runtime.attribution.referralTokens([alphaShowsZeta, zetaShowsAlpha]);
  const orders = { db, ...context.config.orders };
  const order = (storeDomain: string, customerId: string, totalCents: number, daysAgo: number, referralToken: string | undefined) =>
    receiveOrder(orders, {
      storeDomain,
      orderId: uniqueId('order'),
      customerId,
      totalCents,
      currency: 'USD',
      placedAt: at(daysAgo),
      referralToken,
    });
  await order(zeta.domain, 'shopper-1', 10_000, 3, toZeta);
  await order(alphaDomain, 'shopper-2', 2_500, 2, toAlpha);
  await order(zeta.domain, 'shopper-1', 4_000, 2, toZeta);

  const outsider = await createBrand(support);
  const outsiderPartner = await seedPartnerOffer(support, outsider.companyId);
  await counters.record([link(unrelated, outsider.companyId, outsiderPartner.partnerId, outsiderPartner.campaignId)], 7, 0, at(2));

  return { alpha, alphaEmail, alphaId, betaId: beta.partnerId, zetaId: zeta.partnerId, platforms: { p1, p2, unrelated } };
}
