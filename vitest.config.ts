import { defineConfig } from 'vitest/config';

/**
 * A test's own deadlines say what is correct (a bound the service promises, a change seen before a
 * cache would expire); vitest's timeouts only catch a hang. They are generous because the suite
 * shares two cores with everything else: beside a CPU burner, two starts of the service on PGlite
 * took 96 s (18 s on a quiet machine).
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // expect.poll waits for something the page or the service does by itself: 1 s by default.
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
    maxWorkers: 2,
  },
});
