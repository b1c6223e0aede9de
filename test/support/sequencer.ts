import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (per-file wall time of a whole run, docs/decisions.md
 * "issue 24, overlap"). A fresh clone has no vitest cache, so vitest orders by file size, and a
 * small file such as the clean production install would start last and become the run's tail;
 * started first, it runs beside the many short files instead of after them.
 */
export const LONGEST_FILES = [
  'src/dashboard/browser.test.ts',
  'src/dashboard/all-pages-browser.test.ts',
  'src/embed/plugin-stages-browser.test.ts',
  'src/embed/plugin-messages-browser.test.ts',
  'src/commerce/sandbox/store-admin-browser.test.ts',
  'src/commerce/shopify/browser.test.ts',
  'src/http/reference-page.test.ts',
  'src/embed/plugin-unreachable-browser.test.ts',
  'src/embed/demo-browser.test.ts',
  'test/build/container.test.ts',
  'test/fuzz/hostile-input.test.ts',
  'test/smoke/newcomer-pglite.test.ts',
  'src/db/commission-ledger-migration.test.ts',
  'src/auth/usage-recorder.test.ts',
  'src/cli.test.ts',
  'src/recommendations/scorer.test.ts',
  'src/db/performance-money-migration.test.ts',
  'test/resilience/faults-processes.test.ts',
  'test/resilience/faults-database.test.ts',
  'test/durability/offers-durability.test.ts',
  'test/server/lifecycle.test.ts',
];

/** vitest's order (tier, then the cache's durations or file size), with the files above moved to the front of their tier. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const index = LONGEST_FILES.indexOf(path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join('/'));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    const tierOf = (spec: TestSpecification): string => `${spec.project.config.sequence.groupOrder}:${spec.project.name}`;
    const position = new Map(sorted.map((spec, index) => [spec, index]));
    const firstOfTier = new Map<string, number>();
    for (const [index, spec] of sorted.entries()) if (!firstOfTier.has(tierOf(spec))) firstOfTier.set(tierOf(spec), index);
    return [...sorted].sort(
      (a, b) =>
        (firstOfTier.get(tierOf(a)) ?? 0) - (firstOfTier.get(tierOf(b)) ?? 0) ||
        rank(a) - rank(b) ||
        (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
  }
}
