import { describe, expect, it } from 'vitest';
import { readFixtureFile } from '../../demo/loader.js';
import { DEMO_FIXTURE_PATH } from '../../demo/startup.js';
import { loadConfig } from '../../config.js';
import { retryDelayMs } from '../../shared/retry.js';
import { slowStoreFailures } from './adapter.js';
import { generateStore } from './generator.js';

const NOW = new Date('2026-01-15T12:00:00Z');

describe('sandbox stores match their brands', async () => {
  const demo = await readFixtureFile(DEMO_FIXTURE_PATH);
  const expected: Record<string, { category: string; sells: string }> = {
    'northwind-outfitters': { category: 'Outdoor', sells: 'Rain Shell' },
    'harbor-vine-coffee': { category: 'Coffee', sells: 'House Espresso' },
    'lumen-skincare': { category: 'Skincare', sells: 'Daily Cleanser' },
    'trailpeak-gear': { category: 'Outdoor', sells: 'Day Pack' },
    'pawsome-pet-supply': { category: 'Pets', sells: 'Rope Toy' },
    'kinfolk-home': { category: 'Home', sells: 'Stoneware Mug' },
    'solstice-swim': { category: 'Swimwear', sells: 'One-Piece Swimsuit' },
    'greenleaf-tea': { category: 'Tea', sells: 'Sencha' },
    'atlas-travel': { category: 'Travel', sells: 'Carry-On Roller' },
    'brightside-kids': { category: 'Kids', sells: 'Wooden Blocks' },
    'ember-oak-candles': { category: 'Candles', sells: 'Cedar & Smoke Candle' },
    'peakform-nutrition': { category: 'Nutrition', sells: 'Whey Protein' },
    'verde-botanicals': { category: 'Skincare', sells: 'Vitamin C Serum' },
    'ironline-fitness': { category: 'Fitness', sells: 'Kettlebell' },
  };

  it('gives each demo brand a store with its name, its country and a catalog of its kind', () => {
    expect(Object.keys(expected).sort()).toEqual(demo.brands!.map((brand) => brand.companyId).sort());
    for (const brand of demo.brands!) {
      const store = generateStore(brand.domain, NOW, {
        businessName: brand.businessName,
        categories: brand.categories ?? [],
        country: brand.country ?? null,
      });
      const { category, sells } = expected[brand.companyId]!;
      expect({ brand: brand.companyId, category: store.category }).toEqual({ brand: brand.companyId, category });
      expect(store.businessName).toBe(brand.businessName);
      expect(store.country).toBe(brand.country);
      expect(store.products.map((product) => product.title)).toContain(sells);
    }
  });

  it("gives a made-up store the catalog its name tells of (the demo host page's merchants included)", () => {
    const cases: Array<[string, string]> = [
      ['cozy-candles.example', 'Candles'],
      ['slow-roasters.example', 'Coffee'],
      ['promo-outfitters.example', 'Outdoor'],
      ['new-bakery.example', 'Bakery'],
      ['noimages-goods.example', 'Home'],
      ['happy-paws.example', 'Pets'],
      // A soap maker once sold espresso: soap and bath words are skincare's.
      ['maple-soap.example', 'Skincare'],
      ['bath-bombs.example', 'Skincare'],
    ];
    for (const [domain, category] of cases) expect({ domain, category: generateStore(domain, NOW).category }).toEqual({ domain, category });
  });

  it('makes up the same store every time for the same domain, and still makes one up for a name that tells nothing', () => {
    expect(generateStore('qzx-vrt.example', NOW)).toEqual(generateStore('qzx-vrt.example', NOW));
    expect(generateStore('qzx-vrt.example', NOW).products.length).toBeGreaterThanOrEqual(6);
  });
});

describe('a slow- store outlasts the delayed threshold', () => {
  /** When setup, failing `failures` times on the worker's retry schedule, gets its first answer. */
  const answeredAfterMs = (failures: number, retryMs: number) =>
    Array.from({ length: failures }, (_, attempt) => retryDelayMs(retryMs, attempt + 1)).reduce((sum, wait) => sum + wait, 0);

  it('fails just long enough with the default settings (2 minutes, 5 s): five failures, answered after 135 s', () => {
    const { setupDelayedAfterSeconds, setupRetryMs } = loadConfig({}).plugin;
    const failures = slowStoreFailures(setupDelayedAfterSeconds * 1000, setupRetryMs);
    expect(failures).toBe(5);
    expect(answeredAfterMs(failures, setupRetryMs)).toBe(135_000);
  });

  it('is still setting up one retry past the threshold, and fails no more often than that needs', () => {
    for (const [delayedAfterMs, retryMs] of [
      [1_000, 400],
      [10_000, 400],
      [120_000, 5_000],
      [600_000, 1_000],
    ] as const) {
      const failures = slowStoreFailures(delayedAfterMs, retryMs);
      expect(answeredAfterMs(failures, retryMs)).toBeGreaterThanOrEqual(delayedAfterMs + retryMs);
      expect(answeredAfterMs(failures - 1, retryMs)).toBeLessThan(delayedAfterMs + retryMs);
    }
  });
});
