import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { describeBrandReadGuards } from '../../test/support/brand-read-guards.js';
import { describeEachDatabase } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { insertCampaigns, insertCompanies, type CampaignSeed } from '../../test/support/bulk-seeds.js';

const DAY = 24 * 60 * 60 * 1000;
const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));

describeEachDatabase('GET /v1/campaigns', (use) => {
  let me: { companyId: string; key: string };
  let partnerId: string;
  const past = new Date(Date.now() - 30 * DAY);
  const future = new Date(Date.now() + 30 * DAY);
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    me = await createBrand(use().support);
    partnerId = uniqueId('partner');
    const stranger = uniqueId('stranger');
    await insertCompanies(use().db, [{ id: partnerId }, { id: stranger }]);
    const seeds: Array<[string, Partial<CampaignSeed>]> = [
      ['draft', { status: 'draft', name: 'Spring draft' }],
      ['scheduledLater', { status: 'scheduled', startDate: future, endDate: null }],
      ['scheduledStarted', { status: 'scheduled', startDate: past, endDate: future, ownerId: partnerId, partnerId: me.companyId }],
      ['active', { status: 'active', startDate: past, endDate: null, name: 'Summer swap' }],
      ['activeEnded', { status: 'active', startDate: past, endDate: past, ownerId: partnerId, partnerId: me.companyId }],
      ['draftExpired', { status: 'draft', endDate: past }],
      ['closed', { status: 'closed', startDate: past, endDate: future }],
    ];
    const rows = seeds.map(([label, seed], i): CampaignSeed => {
      ids[label] = uniqueId(`cmp-${label}`);
      return {
        id: ids[label]!,
        ownerId: me.companyId,
        partnerId,
        name: null,
        status: 'draft',
        startDate: null,
        endDate: null,
        createdAt: at(i),
        ...seed,
      };
    });
    rows.push({
      id: uniqueId('cmp-not-mine'),
      ownerId: partnerId,
      partnerId: stranger,
      name: 'Not mine',
      status: 'active',
      startDate: null,
      endDate: null,
      createdAt: at(99),
    });
    await insertCampaigns(use().db, rows);
  });

  const list = (query = '', headers: Record<string, string> = {}, key: string | null = me.key) =>
    use().app.inject({
      method: 'GET',
      url: `/v1/campaigns${query}`,
      headers: { ...(key === null ? {} : { 'x-api-key': key }), ...headers },
    });

  it('lists the campaigns the brand owns or joins as partner, newest first, with their status now', async () => {
    const response = await list();
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.totalRows).toBe(7);
    expect(body.data.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      [ids.closed, 'closed'],
      [ids.draftExpired, 'closed'],
      [ids.activeEnded, 'closed'],
      [ids.active, 'active'],
      [ids.scheduledStarted, 'active'],
      [ids.scheduledLater, 'draft'],
      [ids.draft, 'draft'],
    ]);
  });

  it('sends ISO 8601 dates or null, and omits a missing name', async () => {
    const body = (await list()).json();
    const byId = new Map(body.data.map((c: { id: string }) => [c.id, c]));
    expect(byId.get(ids.active)).toEqual({
      id: ids.active,
      name: 'Summer swap',
      status: 'active',
      startDate: past.toISOString(),
      endDate: null,
    });
    expect(byId.get(ids.scheduledLater)).toEqual({
      id: ids.scheduledLater,
      status: 'draft',
      startDate: future.toISOString(),
      endDate: null,
    });
  });

  it('filters on the status now, counting only matching campaigns', async () => {
    const expected: Record<string, string[]> = {
      draft: [ids.scheduledLater!, ids.draft!],
      active: [ids.active!, ids.scheduledStarted!],
      closed: [ids.closed!, ids.draftExpired!, ids.activeEnded!],
    };
    for (const [status, campaignIds] of Object.entries(expected)) {
      const body = (await list(`?status=${status}`)).json();
      expect(body.totalRows).toBe(campaignIds.length);
      expect(body.data.map((c: { id: string }) => c.id)).toEqual(campaignIds);
      expect(body.data.every((c: { status: string }) => c.status === status)).toBe(true);
    }
  });

  it('pages from 1 with pageSize, counting every page, the same from either end', async () => {
    const paged = await createBrand(use().support);
    const campaignIds = Array.from({ length: 57 }, (_, i) => `paged-${paged.companyId}-${String(i).padStart(2, '0')}`);
    await insertCampaigns(
      use().db,
      campaignIds.map((id, i) => ({
        id,
        ownerId: i % 2 ? paged.companyId : partnerId,
        partnerId: i % 2 ? partnerId : paged.companyId,
        name: null,
        status: i % 3 ? 'active' : 'closed',
        startDate: null,
        endDate: null,
        createdAt: at(i),
      })),
    );
    const newestFirst = [...campaignIds].reverse();
    const pageOf = async (query: string, total = 57) => {
      const response = await list(query, {}, paged.key);
      expect(response.statusCode).toBe(200);
      expect(response.json().totalRows).toBe(total);
      return response.json().data.map((c: { id: string }) => c.id);
    };
    expect(await pageOf('')).toEqual(newestFirst.slice(0, 50));
    expect(await pageOf('?pageIndex=2')).toEqual(newestFirst.slice(50));
    const pages: string[] = [];
    for (let pageIndex = 1; pageIndex <= 6; pageIndex++) pages.push(...(await pageOf(`?pageSize=10&pageIndex=${pageIndex}`)));
    expect(pages).toEqual(newestFirst);
    expect(await pageOf('?pageSize=10&pageIndex=7')).toEqual([]);
    const closed = newestFirst.filter((id) => Number(id.slice(-2)) % 3 === 0);
    const closedPages: string[] = [];
    for (let pageIndex = 1; pageIndex <= 4; pageIndex++)
      closedPages.push(...(await pageOf(`?status=closed&pageSize=5&pageIndex=${pageIndex}`, closed.length)));
    expect(closedPages).toEqual(closed);
  });

  describeBrandReadGuards(use, () => me, list, [
    ['unknown status', '?status=scheduled', /query parameter status must be one of draft, active, closed/],
    ['pageIndex 0', '?pageIndex=0', /query parameter pageIndex must be >= 1/],
    ['negative pageIndex', '?pageIndex=-3', /query parameter pageIndex must be >= 1/],
    ['fractional pageIndex', '?pageIndex=2.5', /query parameter pageIndex must be integer/],
    ['non-numeric pageIndex', '?pageIndex=last', /query parameter pageIndex must be integer/],
    ['huge pageIndex', '?pageIndex=1000000000000', /query parameter pageIndex must be <= 1000000/],
    ['pageSize 0', '?pageSize=0', /query parameter pageSize must be >= 1/],
    ['pageSize 101', '?pageSize=101', /query parameter pageSize must be <= 100/],
  ]);

  it('answers 500 internal_error in the spec shape when the list cannot be loaded', async () => {
    const { db } = use();
    await sql`alter table campaigns rename to campaigns_unavailable`.execute(db);
    try {
      const response = await list('?status=active');
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({
        error: 'internal_error',
        message: expect.any(String),
        requestId: response.headers['x-request-id'],
      });
      expect(response.json().message).not.toMatch(/campaigns|select|relation/i);
    } finally {
      await sql`alter table campaigns_unavailable rename to campaigns`.execute(db);
    }
  });
});
