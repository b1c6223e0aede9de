import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUSINESS_SIZES,
  catalogSimilarity,
  categoryOverlap,
  matchRate,
  scoresToRefresh,
  sizeSimilarity,
  type BrandProfile,
} from './scoring.js';

const blank: BrandProfile = { categories: [], country: null, businessSize: null, productCount: null, commercePlatform: null };
const coffee: BrandProfile = {
  categories: ['Coffee', 'Tea'],
  country: 'Germany',
  businessSize: 'Medium',
  productCount: 120,
  commercePlatform: 'Shopify',
};

const profile = fc.record({
  categories: fc.array(fc.constantFrom('Coffee', 'Tea', 'Snacks', 'Beauty', 'Pets', 'Outdoor', 'coffee '), { maxLength: 5 }),
  country: fc.option(fc.constantFrom('Germany', 'France', 'United States', 'germany'), { nil: null }),
  businessSize: fc.option(fc.constantFrom(...BUSINESS_SIZES, 'Medium', 'Huge'), { nil: null }),
  productCount: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null }),
  commercePlatform: fc.option(fc.constantFrom('Shopify', 'WooCommerce', 'shopify'), { nil: null }),
});

describe('matchRate', () => {
  it('is an integer from 0 to 100, the same in both directions', () => {
    fc.assert(
      fc.property(profile, profile, (a, b) => {
        const rate = matchRate(a, b);
        expect(Number.isInteger(rate)).toBe(true);
        expect(rate).toBeGreaterThanOrEqual(0);
        expect(rate).toBeLessThanOrEqual(100);
        expect(matchRate(b, a)).toBe(rate);
      }),
    );
  });

  it('gives 100 to two identical complete profiles, case and spacing aside', () => {
    expect(matchRate(coffee, { ...coffee, categories: [' tea', 'COFFEE'], country: 'germany', commercePlatform: 'shopify' })).toBe(100);
  });

  it('gives half credit for every factor one side has not filled in', () => {
    expect(matchRate(coffee, blank)).toBe(50);
    expect(matchRate(blank, blank)).toBe(50);
  });

  it('gives 0 to brands that differ on every factor', () => {
    expect(
      matchRate(coffee, {
        categories: ['Pets'],
        country: 'France',
        businessSize: 'Enterprise',
        productCount: 100_000,
        commercePlatform: 'WooCommerce',
      }),
    ).toBe(0);
  });

  it('never falls when a shared category is added to both brands', () => {
    fc.assert(
      fc.property(profile, profile, (a, b) => {
        const shared = 'Shared category';
        expect(
          matchRate({ ...a, categories: [...a.categories, shared] }, { ...b, categories: [...b.categories, shared] }),
        ).toBeGreaterThanOrEqual(a.categories.length && b.categories.length ? matchRate(a, b) : 0);
      }),
    );
  });

  it('weighs the factors 40 / 25 / 15 / 10 / 10', () => {
    const only = (change: Partial<BrandProfile>) => matchRate(coffee, { ...coffee, ...change });
    expect(only({ categories: ['Pets'] })).toBe(60);
    expect(only({ country: 'France' })).toBe(75);
    expect(only({ businessSize: 'Enterprise' })).toBe(85);
    expect(only({ productCount: 120_000 })).toBe(90);
    expect(only({ commercePlatform: 'WooCommerce' })).toBe(90);
  });
});

describe('factor similarities', () => {
  it('measures category overlap against the smaller set', () => {
    expect(categoryOverlap(['Coffee'], ['coffee', 'Tea', 'Snacks'])).toBe(1);
    expect(categoryOverlap(['Coffee', 'Tea'], ['Tea', 'Snacks'])).toBe(0.5);
    expect(categoryOverlap([], ['Tea'])).toBeUndefined();
  });
  it('ranks sizes on a scale and ignores unknown labels', () => {
    expect(sizeSimilarity('Small', 'medium')).toBe(0.5);
    expect(sizeSimilarity('Micro', 'Large')).toBe(0);
    expect(sizeSimilarity('Huge', 'Large')).toBeUndefined();
  });
  it('compares catalogs by order of magnitude', () => {
    expect(catalogSimilarity(100, 100)).toBe(1);
    expect(catalogSimilarity(9, 99)).toBeCloseTo(0.5);
    expect(catalogSimilarity(0, 10_000)).toBe(0);
    expect(catalogSimilarity(null, 3)).toBeUndefined();
  });
});

describe('scoresToRefresh', () => {
  it('rescores a changed brand in both directions, once per pair, in one lock order', () => {
    const profiles = new Map([
      ['a', coffee],
      ['b', blank],
      ['c', { ...coffee, country: 'France' }],
    ]);
    const pairs = scoresToRefresh(['a', 'b', 'gone'], profiles);
    expect(pairs.map((p) => `${p.companyId}>${p.candidateId}`)).toEqual(['a>b', 'a>c', 'b>a', 'b>c', 'c>a', 'c>b']);
    expect(pairs.find((p) => p.companyId === 'c' && p.candidateId === 'a')?.matchRate).toBe(75);
  });
});
