import { beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parse } from 'csv-parse/sync';
import { describeEachDatabase } from '../../test/support/harness.js';
import { uniqueId } from '../../test/support/factories.js';
import { seedPerformanceStory, utcDay, type PerformanceStory } from '../../test/support/performance-story.js';
import { receiveOrder, recordOrderEvent } from '../orders/service.js';

type Side = 'shown' | 'received';
interface Money {
  currency: string;
  orders: number;
  newCustomers: number;
  revenueMinor: number;
  commissionMinor: number;
}
interface SideFigures {
  views: number;
  clicks: number;
  orders: number;
  newCustomers: number;
  money: Money[];
}

/**
 * The story of test/support/performance-story.ts, and on top: Zeta's showing of Alpha's offer on
 * p1 brings a second order to Alpha today, in euros, and Alpha refunds 1,000 of its dollar order.
 */
describeEachDatabase('performance page: the two roles apart', (use) => {
  let story: PerformanceStory;
  const [from, to] = [utcDay(3), utcDay(0)];

  beforeAll(async () => {
    story = await seedPerformanceStory(use());
    const { db, config } = use();
    const alphaDomain = (await db.selectFrom('companies').select('domain').where('id', '=', story.alphaId).executeTakeFirstOrThrow())
      .domain!;
    const link = await db
      .selectFrom('referral_links')
      .select('token')
      .where('brand_id', '=', story.zetaId)
      .where('partner_id', '=', story.alphaId)
      .executeTakeFirstOrThrow();
    await use().runtime.attribution.counters.record(
      [{ platformId: story.platforms.p1, campaignId: (await campaignOf(story)).id, brandId: story.zetaId, partnerId: story.alphaId }],
      0,
      1,
      new Date(),
    );
    await receiveOrder(
      { db, ...config.orders },
      {
        storeDomain: alphaDomain,
        orderId: uniqueId('order'),
        customerId: 'euro-shopper',
        totalCents: 7_000,
        currency: 'EUR',
        placedAt: new Date(),
        referralToken: link.token,
      },
    );
    const dollarOrder = await db
      .selectFrom('attributed_orders')
      .select('order_id')
      .where('partner_id', '=', story.alphaId)
      .where('currency', '=', 'USD')
      .executeTakeFirstOrThrow();
    await recordOrderEvent(
      { db },
      {
        storeDomain: alphaDomain,
        orderId: dollarOrder.order_id,
        eventId: 'refund-1',
        kind: 'refund',
        amountCents: 1_000,
        occurredAt: new Date(),
      },
    );
  });

  const campaignOf = (s: PerformanceStory) =>
    use()
      .db.selectFrom('campaigns')
      .select('id')
      .where((eb) => eb.or([eb('owner_id', '=', s.zetaId), eb('partner_id', '=', s.zetaId)]))
      .executeTakeFirstOrThrow();

  const report = async (side: Side, query = `from=${from}&to=${to}`) => {
    const response = await story.alpha.get(`/dashboard/api/performance/${side}?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };

  /** What the raw tables say for one role: counters for views and clicks, the ledger for commission, per platform. */
  const fromRawTables = async (side: Side) => {
    const mine = side === 'shown' ? sql`brand_id = ${story.alphaId}` : sql`partner_id = ${story.alphaId} and brand_id <> ${story.alphaId}`;
    const counted = await sql<{ platform_id: string; views: number; clicks: number }>`
      select platform_id::text, sum(views)::int8 as views, sum(clicks)::int8 as clicks from attribution_counters
      where ${mine} and day between ${from}::date and ${to}::date group by 1 order by 1`.execute(use().db);
    const ledgerSide = side === 'shown' ? sql`l.showing_brand_id` : sql`l.receiving_brand_id`;
    const ledger = await sql<{ platform_id: string; currency: string; amount: number }>`
      select l.platform_id::text, l.currency, sum(l.amount_minor)::int8 as amount
      from commission_ledger l join attributed_orders o on o.store_domain = l.store_domain and o.order_id = l.order_id
      where ${ledgerSide} = ${story.alphaId} and l.showing_brand_id <> l.receiving_brand_id
        and o.placed_at >= ${from}::date::timestamp at time zone 'UTC' and o.placed_at < (${to}::date + 1)::timestamp at time zone 'UTC'
      group by 1, 2 order by 1, 2`.execute(use().db);
    return { counted: counted.rows, ledger: ledger.rows };
  };

  it("shows partners' offers on Alpha's pages apart from Alpha's offer on partners' pages", async () => {
    const shown = await report('shown');
    expect(shown.totals).toEqual({
      views: 10,
      clicks: 3,
      orders: 2,
      newCustomers: 1,
      money: [{ currency: 'USD', orders: 2, newCustomers: 1, revenueMinor: 14_000, commissionMinor: 500 }],
    });
    const received = await report('received');
    expect(received.totals).toEqual({
      views: 4,
      clicks: 2,
      orders: 2,
      newCustomers: 2,
      money: [
        { currency: 'EUR', orders: 1, newCustomers: 1, revenueMinor: 7_000, commissionMinor: 350 },
        { currency: 'USD', orders: 1, newCustomers: 1, revenueMinor: 1_500, commissionMinor: 75 },
      ],
    });
    expect(received.byPartner.data).toEqual([
      { companyId: story.betaId, name: 'Beta Tea Traders', views: 0, clicks: 0, orders: 0, newCustomers: 0, money: [] },
      { companyId: story.zetaId, name: 'Zeta Coffee House', ...received.totals },
    ]);
    expect(received.byDay.map((day: { orders: number }) => day.orders)).toEqual([0, 1, 0, 1]);
    expect(shown.byDay.map((day: { views: number }) => day.views)).toEqual([5, 3, 0, 2]);
  });

  it('equals the counters and the ledger on both sides, per platform and currency, before and after the days are sealed', async () => {
    const check = async () => {
      for (const side of ['shown', 'received'] as const) {
        const raw = await fromRawTables(side);
        const body = await report(side);
        const platforms: Array<{ platformId: string } & SideFigures> = body.byPlatform;
        expect(
          platforms
            .filter((row) => row.views > 0 || row.clicks > 0)
            .map((row) => ({ platform_id: row.platformId, views: row.views, clicks: row.clicks })),
          side,
        ).toEqual(raw.counted);
        expect(
          platforms.flatMap((row) =>
            row.money.map((money) => ({ platform_id: row.platformId, currency: money.currency, amount: money.commissionMinor })),
          ),
          side,
        ).toEqual(raw.ledger);
        const perCurrency = new Map<string, number>();
        for (const row of raw.ledger) perCurrency.set(row.currency, (perCurrency.get(row.currency) ?? 0) + row.amount);
        expect(
          body.totals.money.map((money: Money) => [money.currency, money.commissionMinor]),
          side,
        ).toEqual([...perCurrency.entries()]);
      }
    };
    await check();
    await sql`select seal_performance(${to}::date)`.execute(use().db);
    await check();
  });

  it('exports each side as CSV, one line per currency, and refuses bad ranges', async () => {
    const csv = await story.alpha.get(`/dashboard/api/performance/received.csv?from=${from}&to=${to}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-disposition']).toContain(`performance-received-${from}-${to}.csv`);
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('group,id,name,views,clicks,orders,newCustomers,currency,revenueMinor,revenue,commissionMinor,commission');
    expect(lines.slice(-2)).toEqual(['total,,,4,2,2,2,EUR,7000,70,350,3.5', 'total,,,,,,,USD,1500,15,75,0.75']);
    expect(lines).toContain(`partner,${story.zetaId},Zeta Coffee House,4,2,2,2,EUR,7000,70,350,3.5`);
    expect(lines).toContain(`partner,${story.betaId},Beta Tea Traders,0,0,0,0,,,,,`);
    const shownCsv = (await story.alpha.get(`/dashboard/api/performance/shown.csv?from=${from}&to=${to}`)).body;
    expect(shownCsv.trim().split('\r\n').at(-1)).toBe('total,,,10,3,2,1,USD,14000,140,500,5');

    for (const query of [`from=${from}`, 'from=yesterday&to=today', `from=${to}&to=2000-01-01`, 'from=2020-01-01&to=2022-01-01']) {
      const response = await story.alpha.get(`/dashboard/api/performance/received?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error).toBe('invalid_request');
    }
    expect((await use().app.inject({ method: 'GET', url: `/dashboard/api/performance/shown?from=${from}&to=${to}` })).statusCode).toBe(401);
  });

  it('exports a partner name of two lines with no line of any cell starting like a formula, in all four CSVs', async () => {
    // Written as a name stored before names were one line (migration 0044 cleans those).
    const hostile = 'Evil Co\n=1+1';
    await use().db.updateTable('companies').set({ business_name: hostile }).where('id', '=', story.zetaId).execute();
    try {
      const month = to.slice(0, 7);
      for (const url of [
        `/dashboard/api/performance.csv?from=${from}&to=${to}`,
        `/dashboard/api/performance/received.csv?from=${from}&to=${to}`,
        `/dashboard/api/performance/shown.csv?from=${from}&to=${to}`,
        `/dashboard/api/statement.csv?month=${month}`,
      ]) {
        const response = await story.alpha.get(url);
        expect(response.statusCode, url).toBe(200);
        const cells = (parse(response.body) as string[][]).flat();
        expect(cells, url).toContain("Evil Co\n'=1+1");
        // Amounts are written as numbers: a negative one is a number to a spreadsheet, not a formula.
        const lines = cells.flatMap((cell) => cell.split(/\r\n|[\n\r\u2028\u2029]/u)).filter((line) => !/^-\d+(\.\d+)?$/.test(line));
        expect(
          lines.filter((line) => /^[=+\-@\t]/u.test(line)),
          url,
        ).toEqual([]);
      }
    } finally {
      await use().db.updateTable('companies').set({ business_name: 'Zeta Coffee House' }).where('id', '=', story.zetaId).execute();
    }
  });

  it("keeps the store's view-through setting, off by default, and refuses a malformed one writing nothing", async () => {
    expect((await story.alpha.get('/dashboard/api/attribution-settings')).json()).toEqual({ viewThrough: false });
    const bad = await story.alpha.post('/dashboard/api/attribution-settings', { viewThrough: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('invalid_request');
    const forged = await story.alpha.post('/dashboard/api/attribution-settings', { viewThrough: true }, { csrf: null });
    expect(forged.statusCode).toBe(403);
    expect(await use().db.selectFrom('store_attribution_settings').selectAll().where('company_id', '=', story.alphaId).execute()).toEqual(
      [],
    );
    expect((await story.alpha.post('/dashboard/api/attribution-settings', { viewThrough: true })).json()).toEqual({ viewThrough: true });
    expect((await story.alpha.get('/dashboard/api/attribution-settings')).json()).toEqual({ viewThrough: true });
  });
});
