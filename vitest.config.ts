import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/sequencer.js';

/** Tests that touch no database, no port and no process: pure functions and in-memory stand-ins. */
const UNIT = [
  'src/admin/data-dir-lock.test.ts',
  'src/attribution/group-commit.test.ts',
  'src/campaigns/status.test.ts',
  'src/commerce/sandbox/generator.test.ts',
  'src/commerce/shopify/documents.test.ts',
  'src/commerce/shopify/referral.test.ts',
  'src/config.test.ts',
  'src/http/logging.test.ts',
  'src/offers/cache.test.ts',
  'src/recommendations/scoring.test.ts',
  'src/shared/*.test.ts',
  'test/architecture/configuration-doc.test.ts',
  'test/architecture/domain-tiers.test.ts',
  'test/architecture/sequencer-list.test.ts',
  'test/architecture/shopify-app-toml.test.ts',
  'test/architecture/table-owners.test.ts',
  'test/shopify-standin/*.test.ts',
];
/** Tests that drive Chromium. */
const BROWSER = ['**/*browser.test.ts', 'src/oauth/e2e.test.ts', 'src/site/landing.test.ts', 'src/http/reference-page.test.ts'];
/** The production build and the container image's steps: a copy of the checkout built, a clean production install started. */
const BUILD = ['test/build/*.test.ts'];
/** Tests of the service as its own process: starts, signals, faults, bounds it keeps. */
const RESILIENCE = ['test/resilience/*.test.ts', 'test/server/*.test.ts', 'test/durability/*.test.ts'];

/**
 * A test's own deadlines say what is correct (a bound the service promises, a change seen before a
 * cache would expire); vitest's timeouts only catch a hang. They are generous because the suite
 * shares two cores with everything else: beside a CPU burner, two starts of the service on PGlite
 * took 96 s (18 s on a quiet machine).
 *
 * Five tiers (README, "Tests"), in three steps (`groupOrder`): unit and integration side by side
 * (`npm run test:quick`), then the browser and build tiers, then the resilience tier on its own, so
 * the bounds it proves are not measured beside the rest of the suite. The build tier (a clean
 * production install, a copy of the checkout built) is mostly npm and esbuild: beside the browser
 * tier it keeps the everyday loop from paying for it. Overlapping the browser tier with the integration tier (a
 * second vitest process) saved 4% on two cores, 866 s against 901 s, and was not kept (docs/decisions.md,
 * "issue 24, overlap measured"). Unit, integration and browser files run three at a time on two
 * cores: each waits on something else part of the time (PostgreSQL, Chromium, a page's own timers),
 * and a third worker filled that (integration 154 s → 141 s, browser 161 s → 141 s; a fourth browser
 * worker bought nothing; the resilience tier's four long files run at once on four). The browser tier's workers connect to one shared Chromium (each file opens
 * its own contexts on its own app). Files in one worker share the module graph (isolate: false): no
 * test leaves state behind in a module (each builds its own app and database), and importing the
 * service once per worker instead of once per file is most of what setup costs. The longest files
 * start first (test/support/sequencer.ts), so the run does not end on one of them.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // expect.poll waits for something the page or the service does by itself: 1 s by default.
    expect: { poll: { timeout: 30_000 } },
    maxWorkers: 2,
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, exclude: BROWSER, pool: 'threads', isolate: false, maxWorkers: 3 } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...UNIT, ...BROWSER, ...BUILD, ...RESILIENCE],
          pool: 'forks',
          isolate: false,
          maxWorkers: 3,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: BROWSER,
          globalSetup: ['test/support/global-setup.ts', 'test/support/browser-server.ts'],
          pool: 'forks',
          isolate: false,
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      { extends: true, test: { name: 'build', include: BUILD, pool: 'forks', maxWorkers: 3, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'resilience', include: RESILIENCE, pool: 'forks', maxWorkers: 4, sequence: { groupOrder: 2 } } },
    ],
  },
});
