import { beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ADMIN_TOKEN, describeEachDatabase } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { insertPartnerships } from '../../test/support/bulk-seeds.js';
import { seedPerformanceStory, utcDay, type PerformanceStory } from '../../test/support/performance-story.js';
import * as service from './service.js';

const NOTHING = { views: 0, clicks: 0, orders: 0, newCustomers: 0, revenueCents: 0, commissionCents: 0 };

/** The story's orders are all in US dollars: the API gives their money as one line of that currency (none without orders). */
const inUsd = ({ revenueCents, commissionCents, ...counts }: typeof NOTHING) => ({
  ...counts,
  money:
    counts.orders === 0
      ? []
      : [
          {
            currency: 'USD',
            orders: counts.orders,
            newCustomers: counts.newCustomers,
            revenueMinor: revenueCents,
            commissionMinor: commissionCents,
          },
        ],
});

describeEachDatabase('performance page and admin stats', (use) => {
  let story: PerformanceStory;
  const [from, to] = [utcDay(3), utcDay(0)];

  beforeAll(async () => {
    story = await seedPerformanceStory(use());
  });

  const adminStats = (platformId: string, query = '') =>
    use().app.inject({
      method: 'GET',
      url: `/admin/platforms/${platformId}/stats${query}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
  const report = async (query: string) => {
    const response = await story.alpha.get(`/dashboard/api/performance?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };

  it('reports every figure per platform, day and partner from both sides, over several days', async () => {
    const body = await report(`from=${from}&to=${to}`);
    const p1 = { views: 9, clicks: 3, orders: 3, newCustomers: 2, revenueCents: 16_500, commissionCents: 625 };
    const p2 = { ...NOTHING, views: 5, clicks: 1 };
    expect(body.totals).toEqual(inUsd({ ...p1, views: 14, clicks: 4 }));
    expect(body.byPlatform).toEqual(
      [
        { platformId: story.platforms.p1, name: expect.any(String), ...inUsd(p1) },
        { platformId: story.platforms.p2, name: expect.any(String), ...inUsd(p2) },
      ].sort((a, b) => a.platformId.localeCompare(b.platformId)),
    );
    expect(body.byDay).toEqual([
      {
        date: utcDay(3),
        ...inUsd({ ...NOTHING, views: 5, clicks: 2, orders: 1, newCustomers: 1, revenueCents: 10_000, commissionCents: 500 }),
      },
      { date: utcDay(2), ...inUsd({ views: 7, clicks: 2, orders: 2, newCustomers: 1, revenueCents: 6_500, commissionCents: 125 }) },
      { date: utcDay(1), ...inUsd(NOTHING) },
      { date: utcDay(0), ...inUsd({ ...NOTHING, views: 2 }) },
    ]);
    expect(body.byPartner).toEqual({
      pageIndex: 1,
      pageSize: 50,
      totalRows: 2,
      data: [
        { companyId: story.betaId, name: 'Beta Tea Traders', ...inUsd({ ...NOTHING, views: 3, clicks: 1 }) },
        { companyId: story.zetaId, name: 'Zeta Coffee House', ...inUsd({ ...p1, views: 11, clicks: 3 }) },
      ],
    });
  });

  it(`equals the admin stats of each platform for the same days, for both brands, and the \
admin stats keep their totals without a range`, async () => {
    for (const [start, end] of [
      [from, to],
      [utcDay(2), utcDay(2)],
      [utcDay(1), utcDay(0)],
    ] as const) {
      const alphaReport = await report(`from=${start}&to=${end}`);
      for (const platformId of [story.platforms.p1, story.platforms.p2]) {
        const stats = (await adminStats(platformId, `?from=${start}&to=${end}`)).json();
        const shown = alphaReport.byPlatform.find((row: { platformId: string }) => row.platformId === platformId);
        const { platformId: _id, name: _name, ...figures } = shown ?? { platformId, name: null, ...inUsd(NOTHING) };
        expect(figures, `Alpha ${platformId} ${start}..${end}`).toEqual(stats);
      }
    }
    // Every p1 showing is between Alpha and Zeta, so Zeta's p1 figures are the platform's too.
    const zetaReport = await service.performance(use().support, story.zetaId, { from, to });
    const { platformId: _id, name: _name, ...zetaP1 } = zetaReport.byPlatform.find((row) => row.platformId === story.platforms.p1)!;
    expect(zetaP1).toEqual((await adminStats(story.platforms.p1, `?from=${from}&to=${to}`)).json());
    expect((await adminStats(story.platforms.p1)).json()).toEqual((await adminStats(story.platforms.p1, `?from=${from}&to=${to}`)).json());
    expect((await adminStats(story.platforms.p1, `?from=${utcDay(2)}`)).json()).toMatchObject({
      views: 4,
      orders: 2,
      money: [expect.objectContaining({ currency: 'USD', revenueMinor: 6_500 })],
    });
    expect((await adminStats(story.platforms.p1, `?to=${utcDay(3)}`)).json()).toMatchObject({
      views: 5,
      orders: 1,
      money: [expect.objectContaining({ currency: 'USD', revenueMinor: 10_000 })],
    });
    // Another pair's showings on a third platform count for that platform only.
    expect((await adminStats(story.platforms.unrelated)).json()).toMatchObject({ views: 7 });
    expect((await report(`from=${from}&to=${to}`)).byPlatform.map((row: { platformId: string }) => row.platformId)).not.toContain(
      story.platforms.unrelated,
    );
  });

  it('pages the partners by name, reading only the requested page', async () => {
    const first = (await report(`from=${from}&to=${to}&pageSize=1`)).byPartner;
    const second = (await report(`from=${from}&to=${to}&pageSize=1&pageIndex=2`)).byPartner;
    const past = (await report(`from=${from}&to=${to}&pageSize=1&pageIndex=3`)).byPartner;
    expect([first.totalRows, second.totalRows, past.totalRows]).toEqual([2, 2, 2]);
    expect(first.data.map((row: { name: string }) => row.name)).toEqual(['Beta Tea Traders']);
    expect(second.data.map((row: { name: string }) => row.name)).toEqual(['Zeta Coffee House']);
    expect(past.data).toEqual([]);
    // A partner with nothing in the range is still listed, with zeros.
    const quiet = (await report(`from=${utcDay(1)}&to=${utcDay(1)}`)).byPartner.data;
    expect(quiet.map((row: { views: number }) => row.views)).toEqual([0, 0]);
  });

  it('keeps the partner names current when a brand is renamed', async () => {
    await use().db.updateTable('companies').set({ business_name: 'Aardvark Tea Traders' }).where('id', '=', story.betaId).execute();
    await use().db.updateTable('companies').set({ business_name: 'Abacus Coffee House' }).where('id', '=', story.zetaId).execute();
    const names = (await report(`from=${from}&to=${to}`)).byPartner.data.map((row: { name: string }) => row.name);
    expect(names).toEqual(['Aardvark Tea Traders', 'Abacus Coffee House']);
    await use().db.updateTable('companies').set({ business_name: 'Beta Tea Traders' }).where('id', '=', story.betaId).execute();
    await use().db.updateTable('companies').set({ business_name: 'Zeta Coffee House' }).where('id', '=', story.zetaId).execute();
  });

  it('exports every day, platform and partner and the totals as CSV', async () => {
    const response = await story.alpha.get(`/dashboard/api/performance.csv?from=${from}&to=${to}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="performance-${from}-${to}.csv"`);
    const lines = response.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('group,id,name,views,clicks,orders,newCustomers,currency,revenueMinor,revenue,commissionMinor,commission');
    expect(lines.filter((line) => line.startsWith('day,')).map((line) => line.split(',')[1])).toEqual([
      utcDay(3),
      utcDay(2),
      utcDay(1),
      utcDay(0),
    ]);
    expect(lines.filter((line) => line.startsWith('platform,'))).toHaveLength(2);
    expect(lines.filter((line) => line.startsWith('partner,'))).toEqual([
      `partner,${story.betaId},Beta Tea Traders,3,1,0,0,,,,,`,
      `partner,${story.zetaId},Zeta Coffee House,11,3,3,2,USD,16500,165,625,6.25`,
    ]);
    expect(lines.at(-1)).toBe('total,,,14,4,3,2,USD,16500,165,625,6.25');
  });

  it('exports names that look like spreadsheet formulas as text, and quotes commas and quotes', async () => {
    const names = { [story.betaId]: '=HYPERLINK("https://evil.example","Beta")', [story.zetaId]: '-2+3, Zeta' };
    for (const [id, name] of Object.entries(names))
      await use().db.updateTable('companies').set({ business_name: name }).where('id', '=', id).execute();
    try {
      const lines = (await story.alpha.get(`/dashboard/api/performance.csv?from=${from}&to=${to}`)).body.trimEnd().split('\r\n');
      expect(lines.filter((line) => line.startsWith('partner,'))).toEqual([
        `partner,${story.zetaId},"'-2+3, Zeta",11,3,3,2,USD,16500,165,625,6.25`,
        `partner,${story.betaId},"'=HYPERLINK(""https://evil.example"",""Beta"")",3,1,0,0,,,,,`,
      ]);
    } finally {
      await use().db.updateTable('companies').set({ business_name: 'Beta Tea Traders' }).where('id', '=', story.betaId).execute();
      await use().db.updateTable('companies').set({ business_name: 'Zeta Coffee House' }).where('id', '=', story.zetaId).execute();
    }
  });

  it('reads the same figures once their days are sealed into the rollups, which equal a recomputation', async () => {
    const snapshot = async () => ({
      days: (
        await sql`
        select company_id, side, day::text, platform_id::text, views, clicks, orders, new_customers, revenue_cents, commission_cents
        from performance_days order by 1, 2, 3, 4`.execute(use().db)
      ).rows,
      pairs: (
        await sql`
        select brand_id, partner_id, day::text, views, clicks, orders, new_customers, revenue_cents, commission_cents
        from performance_pair_days order by 1, 2, 3`.execute(use().db)
      ).rows,
      names: (await sql`select company_id, other_id, other_name from performance_partners order by 1, 2`.execute(use().db)).rows,
    });
    const range = `from=${from}&to=${to}`;
    const live = await report(range);
    const liveCsv = (await story.alpha.get(`/dashboard/api/performance.csv?${range}`)).body;
    // The story's days are inside the live week: only its orders are in the rollups so far.
    expect((await snapshot()).days.every((row) => Number((row as { views: string }).views) === 0)).toBe(true);

    await sql`select seal_performance(${to}::date)`.execute(use().db);
    const sealed = await snapshot();
    expect(sealed.days.some((row) => Number((row as { views: string }).views) > 0)).toBe(true);
    expect(await report(range)).toEqual(live);
    expect((await story.alpha.get(`/dashboard/api/performance.csv?${range}`)).body).toBe(liveCsv);
    // Sealing again, or by a second worker, changes nothing.
    await sql`select seal_performance(${to}::date)`.execute(use().db);
    expect(await snapshot()).toEqual(sealed);

    await sql`select rebuild_performance()`.execute(use().db);
    await sql`select seal_performance(${to}::date)`.execute(use().db);
    expect(await snapshot()).toEqual(sealed);

    // Back to the live week for the tests that follow, which add counters for today.
    await sql`select rebuild_performance()`.execute(use().db);
    expect(await report(range)).toEqual(live);
  });

  it('takes an order changed or removed out of the rollups and the admin stats alike', async () => {
    const before = (await report(`from=${from}&to=${to}`)).totals;
    const [order] = await use()
      .db.selectFrom('attributed_orders')
      .select(['store_domain', 'order_id', 'total_cents'])
      .where('brand_id', '=', story.alphaId)
      .where('new_customer', '=', false)
      .execute();
    await use()
      .db.updateTable('attributed_orders')
      .set({ total_cents: order!.total_cents + 1 })
      .where('order_id', '=', order!.order_id)
      .execute();
    const [usd] = before.money;
    expect((await report(`from=${from}&to=${to}`)).totals).toEqual({ ...before, money: [{ ...usd, revenueMinor: usd.revenueMinor + 1 }] });
    await use().db.deleteFrom('attributed_orders').where('order_id', '=', order!.order_id).execute();
    const afterRemoval = await report(`from=${from}&to=${to}`);
    expect(afterRemoval.totals).toEqual({
      ...before,
      orders: before.orders - 1,
      money: [{ ...usd, orders: usd.orders - 1, revenueMinor: usd.revenueMinor - order!.total_cents }],
    });
    const {
      platformId: _id,
      name: _name,
      ...p1
    } = afterRemoval.byPlatform.find((row: { platformId: string }) => row.platformId === story.platforms.p1);
    expect(p1).toEqual((await adminStats(story.platforms.p1, `?from=${from}&to=${to}`)).json());
  });

  it('refuses bad ranges and pages with 400 invalid_request', async () => {
    const bad = [
      `from=${from}`,
      `from=${to}&to=${from}`,
      `from=${utcDay(366)}&to=${to}`,
      'from=yesterday&to=today',
      `from=${from}&to=${to}&pageIndex=0`,
      `from=${from}&to=${to}&pageIndex=1.5`,
      `from=${from}&to=${to}&pageIndex=abc`,
      `from=${from}&to=${to}&pageSize=101`,
      `from=${from}&to=${to}&pageSize=0`,
    ];
    for (const query of bad) {
      const response = await story.alpha.get(`/dashboard/api/performance?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toMatchObject({ error: 'invalid_request' });
    }
    expect((await story.alpha.get(`/dashboard/api/performance?from=${utcDay(365)}&to=${to}`)).json().byDay).toHaveLength(366);
    expect((await story.alpha.get(`/dashboard/api/performance.csv?from=${to}&to=${from}`)).statusCode).toBe(400);
    for (const query of ['?from=yesterday', '?to=2024-02-30', `?from=${to}&to=${from}`]) {
      const response = await adminStats(story.platforms.p1, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toMatchObject({ error: 'invalid_request' });
    }
  });

  it('answers 401 without a session', async () => {
    const response = await use().app.inject({ method: 'GET', url: `/dashboard/api/performance?from=${from}&to=${to}` });
    expect(response.statusCode).toBe(401);
  });
});

describeEachDatabase('brand search', (use) => {
  let searcher: string;
  let ids: Record<string, string>;
  const search = async (text: string) => {
    const rows = await service.searchBrands(use().support, searcher, text);
    return rows.map((row) => row.companyId);
  };

  beforeAll(async () => {
    const tag = `x${uniqueId('s').slice(2)}`;
    searcher = (await createBrand(use().support, { businessName: `Searcher ${tag}` })).companyId;
    const brands = {
      twelve: { businessName: `Partner 12 ${tag}`, domain: `twelve-${tag}.example`, categories: ['Coffee'] },
      hundredTwenty: { businessName: `Partner 120 ${tag}`, domain: `hundred-${tag}.example`, categories: ['Tea'] },
      two: { businessName: `Partner 2 ${tag}`, domain: `two-${tag}.example`, categories: ['Home'] },
      percent: { businessName: `100% Organic ${tag}`, domain: `organic-${tag}.example`, categories: ['Snacks'] },
      umlaut: { businessName: `Ölmühle ${tag}`, domain: `oel-${tag}.example`, categories: ['Öle & Essig'] },
      underscore: { businessName: `Under_score ${tag}`, domain: `under-${tag}.example`, categories: [] },
    };
    ids = {};
    for (const [key, profile] of Object.entries(brands)) ids[key] = (await createBrand(use().support, profile)).companyId;
    await insertPartnerships(use().db, [{ requesterId: searcher, recipientId: ids.twelve!, status: 'active', createdAt: new Date() }]);
  });

  it('finds a text anywhere in a name, domain or category, ignoring case', async () => {
    expect(await search('PARTNER 12')).toEqual([ids.twelve, ids.hundredTwenty]);
    expect(await search('hundred-')).toEqual([ids.hundredTwenty]);
    expect(await search('offe')).toContain(ids.twelve);
    expect(await search('ölmühle')).toEqual([ids.umlaut]);
    expect(await search('essig')).toEqual([ids.umlaut]);
  });

  it('matches one or two characters at the start of a name, domain, category or word only', async () => {
    const twelve = await search('12');
    expect(twelve).toContain(ids.twelve);
    expect(twelve).toContain(ids.hundredTwenty);
    expect(twelve).not.toContain(ids.two);
    expect(await search('tw')).toContain(ids.twelve);
    expect(await search('wo')).not.toContain(ids.two);
  });

  it('takes % and _ literally, never as wildcards, and never lists the searching brand', async () => {
    expect(await search('0% o')).toEqual([ids.percent]);
    expect(await search('1_0')).toEqual([]);
    expect(await search('2%')).toEqual([]);
    expect(await search('r_sc')).toEqual([ids.underscore]);
    expect(await search('searcher')).not.toContain(searcher);
  });

  it('carries the partnership status with each brand', async () => {
    const rows = await service.searchBrands(use().support, searcher, 'partner');
    expect(rows.find((row) => row.companyId === ids.twelve)?.status).toBe('active');
    expect(rows.find((row) => row.companyId === ids.two)?.status).toBeNull();
  });
});
