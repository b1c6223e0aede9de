import { beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeOnBothEngines } from '../../test/support/harness.js';
import { uniqueId } from '../../test/support/factories.js';
import { seedPerformanceStory, utcDay, type PerformanceStory } from '../../test/support/performance-story.js';
import { receiveOrder, recordOrderEvent, redactCustomer } from '../orders/service.js';

type Side = 'shown' | 'received';

/**
 * The money rollups of migration 0019 against the ledger. On top of the story of
 * test/support/performance-story.ts (days -3 to 0, the live week): showings both ways on day -10,
 * sealed, with an order in euros each way that day; a dollar order to Alpha yesterday. Then a
 * partial refund and a cancel of Alpha's euro order on the sealed day, a partial refund of the
 * story's first dollar order, a cancel of yesterday's and a refund after it.
 */
describeOnBothEngines('performance page: each role’s money per currency equals the ledger', (use) => {
  let story: PerformanceStory;
  let domains: { alpha: string; zeta: string };
  const [from, to] = [utcDay(10), utcDay(0)];
  const at = (daysAgo: number) => new Date(Date.parse(utcDay(daysAgo)) + 3_600_000);

  const order = async (storeDomain: string, customerId: string, totalCents: number, currency: string, daysAgo: number, token: string) => {
    const orderId = uniqueId('order');
    await receiveOrder(
      { db: use().db, ...use().config.orders },
      { storeDomain, orderId, customerId, totalCents, currency, placedAt: at(daysAgo), referralToken: token },
    );
    return orderId;
  };
  const event = (storeDomain: string, orderId: string, kind: 'refund' | 'cancel', amountCents?: number) =>
    recordOrderEvent({ db: use().db }, { storeDomain, orderId, eventId: uniqueId(kind), kind, amountCents, occurredAt: new Date() });

  const report = async (side: Side) => {
    const response = await story.alpha.get(`/dashboard/api/performance/${side}?from=${from}&to=${to}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };

  /** Alpha's rows in one role, as a condition on attributed_orders `o`. */
  const mine = (side: Side) =>
    side === 'shown' ? sql`o.brand_id = ${story.alphaId}` : sql`o.partner_id = ${story.alphaId} and o.brand_id <> ${story.alphaId}`;

  /**
   * Per day, platform (or other brand) and currency, from the raw tables: the orders, their totals
   * less their events, and the sum of their ledger entries.
   */
  const fromRawTables = async (side: Side, by: 'platform' | 'other') => {
    const key =
      by === 'platform' ? sql`o.platform_id::text` : sql`case when o.brand_id = ${story.alphaId} then o.partner_id else o.brand_id end`;
    const result = await sql<Record<string, unknown>>`
      select to_char((o.placed_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, ${key} as key, o.currency,
             count(*)::int8 as orders, count(*) filter (where o.new_customer)::int8 as new_customers,
             sum(o.total_cents - coalesce((select sum(e.amount_cents) from order_events e
                                           where e.store_domain = o.store_domain and e.order_id = o.order_id), 0))::int8 as revenue_minor,
             coalesce(sum((select sum(l.amount_minor) from commission_ledger l
                           where l.store_domain = o.store_domain and l.order_id = o.order_id)), 0)::int8 as commission_minor
      from attributed_orders o where ${mine(side)} and o.platform_id is not null
      group by 1, 2, 3 order by 1, 2, 3`.execute(use().db);
    return result.rows;
  };

  /** The same from the rollups: the role's rows per day and platform, and the pair rows of its direction. */
  const fromRollups = async (side: Side) => {
    const [other, pairMine] =
      side === 'shown'
        ? [sql.ref('p.partner_id'), sql`p.brand_id = ${story.alphaId}`]
        : [sql.ref('p.brand_id'), sql`p.partner_id = ${story.alphaId} and p.brand_id <> ${story.alphaId}`];
    const days = await sql<Record<string, unknown>>`
      select to_char(day, 'YYYY-MM-DD') as day, platform_id::text as key, currency, orders, new_customers, revenue_minor, commission_minor
      from performance_money_days where company_id = ${story.alphaId} and side = ${side} and orders <> 0
      order by 1, 2, 3`.execute(use().db);
    const pairs = await sql<Record<string, unknown>>`
      select to_char(p.day, 'YYYY-MM-DD') as day, ${other} as key, p.currency, p.orders, p.new_customers, p.revenue_minor,
             p.commission_minor
      from performance_pair_money_days p where ${pairMine} and p.orders <> 0
      order by 1, 2, 3`.execute(use().db);
    return { days: days.rows, pairs: pairs.rows };
  };

  /** The rollups equal the raw tables, and each role's commission per currency equals its ledger entries. */
  const expectRollupsEqualLedger = async () => {
    for (const side of ['shown', 'received'] as const) {
      const rollups = await fromRollups(side);
      expect(rollups.days, side).toEqual(await fromRawTables(side, 'platform'));
      expect(rollups.pairs, side).toEqual(await fromRawTables(side, 'other'));
      const role = side === 'shown' ? sql`l.showing_brand_id` : sql`l.receiving_brand_id`;
      const ledger = await sql<{ currency: string; commission: number }>`
        select l.currency, sum(l.amount_minor)::int8 as commission from commission_ledger l
        where ${role} = ${story.alphaId} and l.showing_brand_id <> l.receiving_brand_id group by 1 order by 1`.execute(use().db);
      const totals = (await report(side)).totals.money.map((money: { currency: string; commissionMinor: number }) => ({
        currency: money.currency,
        commission: money.commissionMinor,
      }));
      expect(totals, side).toEqual(ledger.rows);
    }
  };

  let euroToAlpha: string;
  let dollarsToAlpha: string;

  beforeAll(async () => {
    story = await seedPerformanceStory(use());
    const { db, runtime } = use();
    const domainOf = async (id: string) =>
      (await db.selectFrom('companies').select('domain').where('id', '=', id).executeTakeFirstOrThrow()).domain!;
    domains = { alpha: await domainOf(story.alphaId), zeta: await domainOf(story.zetaId) };
    const campaign = await db
      .selectFrom('campaigns')
      .select('id')
      .where((eb) => eb.or([eb('owner_id', '=', story.zetaId), eb('partner_id', '=', story.zetaId)]))
      .executeTakeFirstOrThrow();
    const link = (brandId: string, partnerId: string) => ({ platformId: story.platforms.p1, campaignId: campaign.id, brandId, partnerId });
    const [alphaShowsZeta, zetaShowsAlpha] = [link(story.alphaId, story.zetaId), link(story.zetaId, story.alphaId)];
    await runtime.attribution.counters.record([alphaShowsZeta, zetaShowsAlpha], 2, 1, at(10));
    // The sealer ran as the app started, so day -10 was sealed before its counters came: a rebuild folds them in.
    await sql`select rebuild_performance()`.execute(db);
    const [toZeta, toAlpha] = await runtime.attribution.referralTokens([alphaShowsZeta, zetaShowsAlpha]);
    await order(domains.zeta, 'shopper-9', 6_000, 'EUR', 10, toZeta!);
    euroToAlpha = await order(domains.alpha, 'shopper-10', 8_000, 'EUR', 10, toAlpha!);
    dollarsToAlpha = await order(domains.alpha, 'shopper-11', 3_000, 'USD', 1, toAlpha!);
  });

  it('holds each order’s money on its day, sealed or live, before any refund', async () => {
    const sealed = await sql<{ sealed: string }>`select to_char(sealed_through, 'YYYY-MM-DD') as sealed from performance_sealed`.execute(
      use().db,
    );
    expect(sealed.rows[0]!.sealed >= from).toBe(true);
    await expectRollupsEqualLedger();
    expect((await report('received')).totals.money).toEqual([
      { currency: 'EUR', orders: 1, newCustomers: 1, revenueMinor: 8_000, commissionMinor: 400 },
      { currency: 'USD', orders: 2, newCustomers: 2, revenueMinor: 5_500, commissionMinor: 275 },
    ]);
  });

  it('follows partial refunds, cancels and a refund after a cancel, and a rebuild from the raw tables agrees', async () => {
    await event(domains.alpha, euroToAlpha, 'refund', 3_000);
    await expectRollupsEqualLedger();
    await event(domains.alpha, euroToAlpha, 'cancel');
    const storyOrder = await use()
      .db.selectFrom('attributed_orders')
      .select('order_id')
      .where('store_domain', '=', domains.zeta)
      .where('total_cents', '=', 10_000)
      .executeTakeFirstOrThrow();
    await event(domains.zeta, storyOrder.order_id, 'refund', 2_500);
    await event(domains.alpha, dollarsToAlpha, 'cancel');
    await event(domains.alpha, dollarsToAlpha, 'refund', 500);
    await expectRollupsEqualLedger();

    const received = await report('received');
    expect(received.totals.money).toEqual([
      { currency: 'EUR', orders: 1, newCustomers: 1, revenueMinor: 0, commissionMinor: 0 },
      { currency: 'USD', orders: 2, newCustomers: 2, revenueMinor: 2_500, commissionMinor: 125 },
    ]);
    expect(received.byDay[0]).toEqual({ date: from, views: 2, clicks: 1, orders: 1 });
    const shown = await report('shown');
    expect(shown.totals.money).toEqual([
      { currency: 'EUR', orders: 1, newCustomers: 1, revenueMinor: 6_000, commissionMinor: 300 },
      { currency: 'USD', orders: 2, newCustomers: 1, revenueMinor: 11_500, commissionMinor: 375 },
    ]);
    expect(shown.byPartner.data.find((row: { companyId: string }) => row.companyId === story.zetaId).money).toEqual(shown.totals.money);

    // Forgetting a shopper rewrites their orders but moves no money.
    await redactCustomer(use().db, domains.alpha, 'shopper-10');
    await expectRollupsEqualLedger();
    const before = await Promise.all([fromRollups('shown'), fromRollups('received')]);
    await sql`select rebuild_performance()`.execute(use().db);
    expect(await Promise.all([fromRollups('shown'), fromRollups('received')])).toEqual(before);
  });

  it('moves an order’s whole money when support’s SQL moves or removes the order', async () => {
    await sql`update attributed_orders set placed_at = placed_at - interval '1 day' where order_id = ${dollarsToAlpha}`.execute(use().db);
    await sql`delete from attributed_orders where order_id = ${euroToAlpha}`.execute(use().db);
    const raw = await fromRawTables('received', 'platform');
    expect(raw.some((row) => row.day === utcDay(2) && row.currency === 'USD')).toBe(true);
    expect(raw.some((row) => row.currency === 'EUR')).toBe(false);
    const rollups = await fromRollups('received');
    expect(rollups.days).toEqual(raw);
    expect(rollups.pairs).toEqual(await fromRawTables('received', 'other'));
  });
});
