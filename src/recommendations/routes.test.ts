import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { describeBrandReadGuards } from '../../test/support/brand-read-guards.js';
import { describeEachDatabase } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { insertCompanies, insertPartnerships, settleScores } from '../../test/support/bulk-seeds.js';
import { matchRate, type BrandProfile } from './scoring.js';

const coffee: BrandProfile = {
  categories: ['Coffee', 'Tea'],
  country: 'Germany',
  businessSize: 'Medium',
  productCount: 120,
  commercePlatform: 'Shopify',
};
const partial: BrandProfile = {
  categories: ['Tea', 'Snacks'],
  country: 'Germany',
  businessSize: 'Large',
  productCount: 1200,
  commercePlatform: 'WooCommerce',
};
const far: BrandProfile = { categories: ['Pets'], country: 'France', businessSize: 'Small', productCount: 10, commercePlatform: 'Shopify' };

const asFactoryProfile = (profile: BrandProfile) => ({
  categories: [...profile.categories],
  country: profile.country ?? undefined,
  businessSize: profile.businessSize ?? undefined,
  productCount: profile.productCount ?? undefined,
  commercePlatform: profile.commercePlatform ?? undefined,
});

describeEachDatabase('GET /v1/discover/partner/recommendations', (use) => {
  let me: { companyId: string; key: string };
  const domains: Record<string, string> = {};

  beforeAll(async () => {
    me = await createBrand(use().support, asFactoryProfile(coffee));
    const add = async (label: string, profile: BrandProfile, extra: { description?: string; logoImageUrl?: string } = {}) => {
      const brand = await createBrand(use().support, {
        ...asFactoryProfile(profile),
        ...extra,
        domain: `${label}-${uniqueId('d')}.example`,
      });
      domains[label] = (await use().db.selectFrom('companies').select('domain').where('id', '=', brand.companyId).executeTakeFirstOrThrow())
        .domain!;
      return brand.companyId;
    };
    await add('twin', coffee, { description: 'Roasts beans', logoImageUrl: 'https://cdn.example/twin.png' });
    await add('partial', partial);
    const pending = await add('pending', coffee);
    const active = await add('active', coffee);
    const declined = await add('declined', far);
    const removed = await add('removed', far);
    await insertPartnerships(use().db, [
      { requesterId: me.companyId, recipientId: pending, status: 'pending', createdAt: new Date() },
      { requesterId: active, recipientId: me.companyId, status: 'active', createdAt: new Date() },
      { requesterId: declined, recipientId: me.companyId, status: 'declined', createdAt: new Date() },
      { requesterId: me.companyId, recipientId: removed, status: 'removed', createdAt: new Date() },
    ]);
    await settleScores(use().db);
  });

  const recommendations = (query = '', headers: Record<string, string> = {}, key: string | null = me.key) =>
    use().app.inject({
      method: 'GET',
      url: `/v1/discover/partner/recommendations${query}`,
      headers: { ...(key === null ? {} : { 'x-api-key': key }), ...headers },
    });

  it('recommends brands with no partnership record, best first, with optional fields omitted when unknown', async () => {
    const response = await recommendations();
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.totalRows).toBe(body.data.length);
    expect(matchRate(coffee, partial)).toBeGreaterThan(matchRate(coffee, far));
    expect(body.data.slice(0, 2).map((item: { domain: string }) => item.domain)).toEqual([domains.twin, domains.partial]);
    expect(body.data).toHaveLength(2);
    expect(body.data[0]).toEqual({
      domain: domains.twin,
      businessName: expect.any(String),
      logoImageUrl: 'https://cdn.example/twin.png',
      description: 'Roasts beans',
      matchRate: 100,
      businessSize: 'Medium',
      country: 'Germany',
      categories: ['Coffee', 'Tea'],
      productCount: 120,
      platform: 'Shopify',
    });
    expect(body.data[1]).toMatchObject({ domain: domains.partial, matchRate: matchRate(coffee, partial) });
    // A brand with any partnership record, declined or removed included, is not suggested again.
    expect(body.data.map((item: { domain: string }) => item.domain)).not.toContain(domains.declined);
    expect(body.data.map((item: { domain: string }) => item.domain)).not.toContain(domains.removed);
  });

  it('always sends categories, and omits every unknown field', async () => {
    const bare = uniqueId('bare');
    await insertCompanies(use().db, [{ id: bare, businessName: null, domain: null }]);
    await settleScores(use().db);
    const body = (await recommendations()).json();
    expect(body.data).toContainEqual({ categories: [], matchRate: 0 });
  });

  it('lists a brand not scored yet after the scored ones, without matchRate', async () => {
    const fresh = uniqueId('fresh');
    await insertCompanies(use().db, [{ id: fresh, domain: `${fresh}.example` }]);
    await settleScores(use().db);
    await sql`delete from recommendation_scores where company_id = ${me.companyId} and candidate_id = ${fresh}`.execute(use().db);
    const body = (await recommendations()).json();
    const last = body.data.at(-1);
    expect(last).toEqual({ domain: `${fresh}.example`, businessName: `Brand ${fresh}`, categories: [] });
    expect(body.data.slice(0, -1).every((item: { matchRate?: number }) => typeof item.matchRate === 'number')).toBe(true);
  });

  it('re-scores when a profile changes and drops a brand as soon as a request is open', async () => {
    const { companyId: changing } = await createBrand(use().support, {
      ...asFactoryProfile(far),
      domain: `${uniqueId('changing')}.example`,
    });
    await settleScores(use().db);
    const rateOf = async () => {
      const body = (await recommendations()).json();
      const domain = (await use().db.selectFrom('companies').select('domain').where('id', '=', changing).executeTakeFirstOrThrow()).domain;
      return body.data.find((item: { domain: string }) => item.domain === domain)?.matchRate;
    };
    expect(await rateOf()).toBe(matchRate(coffee, far));
    await use()
      .db.updateTable('companies')
      .set({ categories: ['Coffee', 'Tea'], country: 'Germany' })
      .where('id', '=', changing)
      .execute();
    await settleScores(use().db);
    expect(await rateOf()).toBe(matchRate(coffee, { ...far, categories: ['Coffee', 'Tea'], country: 'Germany' }));

    const [partnershipId] = await insertPartnerships(use().db, [
      { requesterId: changing, recipientId: me.companyId, status: 'pending', createdAt: new Date() },
    ]);
    expect(await rateOf()).toBeUndefined();
    await use().db.updateTable('partnerships').set({ status: 'declined' }).where('id', '=', partnershipId!).execute();
    expect(await rateOf()).toBeUndefined();
  });

  it('returns at most 50, best first', async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ id: uniqueId(`many${i}`) }));
    await insertCompanies(use().db, many);
    await sql`update companies set categories = ${['Coffee']}::text[], product_count = ${5}
              where id = any(${many.slice(0, 30).map((c) => c.id)}::text[])`.execute(use().db);
    await settleScores(use().db);
    const body = (await recommendations()).json();
    expect(body.totalRows).toBe(50);
    expect(body.data).toHaveLength(50);
    const rates = body.data.map((item: { matchRate: number }) => item.matchRate);
    expect(rates).toEqual([...rates].sort((a, b) => b - a));
  });

  describeBrandReadGuards(use, () => me, recommendations, [
    ['pageIndex sent', '?pageIndex=1', /query parameter pageIndex is not supported/],
    ['pageSize sent', '?pageSize=10', /query parameter pageSize is not supported/],
  ]);

  it('answers 500 internal_error in the spec shape when recommendations cannot be loaded', async () => {
    const { db } = use();
    await sql`alter table recommendation_scores rename to recommendation_scores_unavailable`.execute(db);
    try {
      const response = await recommendations();
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({
        error: 'internal_error',
        message: expect.any(String),
        requestId: response.headers['x-request-id'],
      });
    } finally {
      await sql`alter table recommendation_scores_unavailable rename to recommendation_scores`.execute(db);
    }
  });
});
