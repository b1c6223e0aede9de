import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first within their step (per-file wall time of a whole run on
 * a fast machine of this kind, every file of 3 s or more; docs/decisions.md "issue 24, ninth
 * round"). A fresh clone has no vitest cache, so vitest orders by file size, and a small file such as
 * the clean production install would start last and become its step's tail; started first, it runs
 * beside the many short files instead of after them. One exception: the browser files that mostly
 * wait (the delayed stage, the loader's timeout, the merchant's return) do not start together: three
 * of them at once left the two cores only 28–69% busy for 30 s.
 */
export const LONGEST_FILES = [
  // unit and integration
  'test/fuzz/hostile-input.test.ts',
  'src/cli.test.ts',
  'src/embed/routes.test.ts',
  'src/commerce/shopify/shopify.test.ts',
  'src/db/database.test.ts',
  'src/offers/routes.test.ts',
  'src/demo/startup.test.ts',
  'src/dashboard/newcomer-routes.test.ts',
  'src/dashboard/routes.test.ts',
  'src/attribution/counter-writer.test.ts',
  'src/platforms/domain-entry-points.test.ts',
  'src/commerce/shopify/adapter.test.ts',
  // browser and build
  'src/embed/plugin-stages-browser.test.ts',
  'src/dashboard/all-pages-browser.test.ts',
  'src/dashboard/browser.test.ts',
  'src/embed/plugin-unreachable-browser.test.ts',
  'test/build/container.test.ts',
  'src/embed/plugin-messages-browser.test.ts',
  'src/embed/plugin-return-browser.test.ts',
  'src/commerce/shopify/home-browser.test.ts',
  'src/dashboard/newcomer-browser.test.ts',
  'src/dashboard/words-browser.test.ts',
  'src/commerce/shopify/browser.test.ts',
  'src/dashboard/forms-browser.test.ts',
  'src/embed/plugin-loader-browser.test.ts',
  'src/http/reference-page.test.ts',
  'src/embed/demo-browser.test.ts',
  'src/site/landing.test.ts',
  'src/dashboard/money-browser.test.ts',
  'src/dashboard/performance-browser.test.ts',
  'src/commerce/shopify/lures-browser.test.ts',
  'src/dashboard/keyboard-browser.test.ts',
  'src/commerce/sandbox/store-admin-browser.test.ts',
  // resilience
  'test/resilience/faults-processes.test.ts',
  'test/resilience/faults-database.test.ts',
  'test/server/lifecycle.test.ts',
  'test/durability/offers-durability.test.ts',
  'test/resilience/scale-out.test.ts',
  'test/server/readme-walk.test.ts',
];

/**
 * vitest's order (step, then the cache's durations or file size), with the files above moved to the
 * front of their step: the tiers of one step (browser and build) share its workers, so a long file of
 * the later tier starts beside the other's long files, not after them.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const index = LONGEST_FILES.indexOf(path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join('/'));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    const stepOf = (spec: TestSpecification): number => spec.project.config.sequence.groupOrder;
    const position = new Map(sorted.map((spec, index) => [spec, index]));
    const firstOfStep = new Map<number, number>();
    for (const [index, spec] of sorted.entries()) if (!firstOfStep.has(stepOf(spec))) firstOfStep.set(stepOf(spec), index);
    return [...sorted].sort(
      (a, b) =>
        (firstOfStep.get(stepOf(a)) ?? 0) - (firstOfStep.get(stepOf(b)) ?? 0) ||
        rank(a) - rank(b) ||
        (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
  }
}
