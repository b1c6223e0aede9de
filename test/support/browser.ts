import { chromium, type Browser, type LaunchOptions } from 'playwright-core';
import { inject } from 'vitest';

/**
 * Debian's Chromium in its headless shell (package chromium-headless-shell: the same Blink and V8,
 * built from the same source as `chromium`, without the desktop browser's windows and WebUI), with
 * the flags this machine's closed network needs. The full browser's headless mode took 2.3 times the
 * CPU on the same tests (docs/decisions.md, "The headless shell"); CHROMIUM_PATH=/usr/bin/chromium
 * runs the suite in it.
 *
 * Playwright's own switches stay as they are: a `--disable-features` of ours would replace its list
 * (Chromium keeps the last switch of a name), turning back on what it turns off for tests (storage
 * partitioning, paint holding, HTTPS upgrades). Switches to turn off site isolation were tried and
 * bought nothing measurable (docs/decisions.md, "Playwright's switches kept").
 *
 * Chromium keeps its shared memory in /dev/shm (a tmpfs of 24 GB on this machine kind):
 * `--disable-dev-shm-usage`, meant for containers with a small /dev/shm, moved it to /tmp, which is on
 * the disk here, and the kernel's writeback of those files cost 31 CPU-s of a browser tier's run
 * (docs/decisions.md, "issue 24, seventh round").
 */
export const CHROMIUM_OPTIONS: LaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by test/support/browser-server.ts: the run's one Chromium, shared by every browser test file. */
    chromiumEndpoint: string | undefined;
  }
}

/**
 * Chromium for one test file: a connection to the run's shared Chromium where the browser tier
 * started one (test/support/browser-server.ts), else a Chromium of its own. close() on a connection
 * closes the file's contexts and disconnects; the shared Chromium stays up for the next file.
 */
export async function launchBrowser(): Promise<Browser> {
  const endpoint = sharedChromiumEndpoint();
  if (endpoint) return chromium.connect(endpoint);
  return chromium.launch(CHROMIUM_OPTIONS);
}

/** Outside vitest (the benches) there is no run to share a Chromium with: inject() throws there. */
function sharedChromiumEndpoint(): string | undefined {
  try {
    return inject('chromiumEndpoint');
  } catch {
    return undefined;
  }
}
