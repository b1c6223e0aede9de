import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_OPTIONS } from './browser.js';

/** The browser tier's globalSetup: one Chromium for the whole run, which each file connects to instead of starting its own. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer(CHROMIUM_OPTIONS);
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
