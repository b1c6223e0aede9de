import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_OPTIONS } from './browser.js';

/**
 * The browser tier's globalSetup: one Chromium for the whole run, which each file connects to instead of starting its own.
 *
 * It starts at most one renderer process per browser worker: beyond that, a new context's pages
 * join a renderer that is already running instead of starting one of their own (about 0.3 CPU-s
 * each). With three workers the tier took 105–110 s against 113–115 s without a limit on the fast
 * kind of machine; on the slow kind the gain was within the spread of its runs. One renderer for
 * all took as long as none, its one main thread serving three workers' pages (docs/decisions.md,
 * "Renderers shared between contexts" and the thirteenth round).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const rendererLimit = `--renderer-process-limit=${project.config.maxWorkers}`;
  const server = await chromium.launchServer({ ...CHROMIUM_OPTIONS, args: [...(CHROMIUM_OPTIONS.args ?? []), rendererLimit] });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
