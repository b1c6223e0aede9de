import type { Browser } from 'playwright-core';
import type { DatabaseKind } from './databases.js';
import { launchBrowser } from './browser.js';
import { startTestApp, stopTestApp, type TestContext } from './harness.js';
import { freePort } from './service-process.js';

/** What a browser test drives: the app listening on a port of its own (BASE_URL is that address), and Chromium. */
export interface BrowserApp {
  context: TestContext;
  baseUrl: string;
  browser: Browser;
}

/** Starts the app on `kind` with `env` (BASE_URL set to where it listens) and launches Chromium. */
export async function startBrowserApp(kind: DatabaseKind, env: Record<string, string> = {}): Promise<BrowserApp> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const context = await startTestApp(kind, { BASE_URL: baseUrl, ...env });
  try {
    await context.app.listen({ port, host: '127.0.0.1' });
    return { context, baseUrl, browser: await launchBrowser() };
  } catch (error) {
    await stopTestApp(context);
    throw error;
  }
}

/** Closes what startBrowserApp started; whatever did not start (a failed beforeAll) is skipped. */
export async function stopBrowserApp(app: Partial<BrowserApp>): Promise<void> {
  await app.browser?.close();
  if (app.context) await stopTestApp(app.context);
}
