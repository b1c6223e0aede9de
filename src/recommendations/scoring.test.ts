import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUSINESS_SIZES,
  catalogSimilarity,
  categoryOverlap,
  matchRate,
  matchTerms,
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

  it('gives nothing for a factor either side has not filled in', () => {
    expect(matchRate(coffee, blank)).toBe(0);
    expect(matchRate(blank, blank)).toBe(0);
    expect(matchRate(coffee, { ...blank, country: 'Germany' })).toBe(25);
  });

  it('gives an unrelated brand a low rate however little it has filled in', () => {
    const unrelated = { ...blank, categories: ['Pets'], country: 'France' };
    expect(matchRate(coffee, unrelated)).toBe(0);
    expect(matchRate(coffee, { ...unrelated, commercePlatform: 'Shopify' })).toBe(10);
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

describe('matchTerms', () => {
  it('adds up to the match rate, one term per factor, each within its weight', () => {
    fc.assert(
      fc.property(profile, profile, (a, b) => {
        const terms = matchTerms(a, b);
        expect(terms.map((term) => term.factor)).toEqual(['categories', 'country', 'businessSize', 'catalogSize', 'commercePlatform']);
        expect(terms.reduce((sum, term) => sum + term.points, 0)).toBe(matchRate(a, b));
        for (const term of terms) {
          expect(Number.isInteger(term.points) && term.points >= 0 && term.points <= term.weight).toBe(true);
          if (term.missing) expect(term.points).toBe(0);
        }
      }),
    );
  });

  it('names what is shared and whose profile lacks a fact', () => {
    const other: BrandProfile = {
      categories: ['tea', 'Snacks'],
      country: 'germany',
      businessSize: null,
      productCount: 100,
      commercePlatform: null,
    };
    expect(matchTerms(coffee, other)).toEqual([
      { factor: 'categories', weight: 40, points: 20, shared: ['Tea'] },
      { factor: 'country', weight: 25, points: 25, same: 'Germany' },
      { factor: 'businessSize', weight: 15, points: 0, missing: 'them' },
      { factor: 'catalogSize', weight: 10, points: 10 },
      { factor: 'commercePlatform', weight: 10, points: 0, missing: 'them' },
    ]);
    expect(matchTerms(blank, other)[0]).toEqual({ factor: 'categories', weight: 40, points: 0, missing: 'you' });
    expect(matchTerms(blank, blank)[1]).toEqual({ factor: 'country', weight: 25, points: 0, missing: 'both' });
  });
});

/** Brand `b` moved one fact closer to brand `a`: what it did not share before, it shares now. */
const closer = fc.constantFrom(
  (a: BrandProfile, b: BrandProfile): BrandProfile => ({ ...b, categories: [...b.categories, ...a.categories.slice(0, 1)] }),
  (a: BrandProfile, b: BrandProfile): BrandProfile => ({ ...b, country: a.country }),
  (a: BrandProfile, b: BrandProfile): BrandProfile => ({ ...b, businessSize: a.businessSize }),
  (a: BrandProfile, b: BrandProfile): BrandProfile => ({ ...b, productCount: a.productCount }),
  (a: BrandProfile, b: BrandProfile): BrandProfile => ({ ...b, commercePlatform: a.commercePlatform }),
);

describe('more in common', () => {
  it("never scores lower: taking one more of the other brand's facts keeps or raises the rate", () => {
    fc.assert(
      fc.property(profile, profile, fc.array(closer, { minLength: 1, maxLength: 5 }), (a, b, steps) => {
        let current: BrandProfile = b;
        for (const step of steps) {
          const next = step(a, current);
          expect(matchRate(a, next)).toBeGreaterThanOrEqual(matchRate(a, current));
          current = next;
        }
      }),
    );
  });

  it('never scores lower for a fact filled in on both sides alike than for the fact unknown', () => {
    fc.assert(
      fc.property(profile, profile, fc.constantFrom('Germany', 'France'), (a, b, country) => {
        expect(matchRate({ ...a, country }, { ...b, country })).toBeGreaterThanOrEqual(matchRate({ ...a, country: null }, b));
      }),
    );
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
    expect(pairs.find((p) => p.companyId === 'b' && p.candidateId === 'a')?.matchRate).toBe(0);
  });
});
