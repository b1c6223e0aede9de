/**
 * The embedded plugin's size and speed (issue 5): the loader's gzipped size (budget 6 KB), the
 * embed app's first load gzipped (page + script + stylesheet; budget 60 KB), and the time from
 * EmbedPlugin.init to the first embed.stage event on the demo host page in headless Chromium,
 * median of 20 cold loads (a new browser context each, so nothing is cached).
 *
 * Then the plugin's store-domain lookup (a domain the plugin is given → its store, and the store's
 * domains for the return flow): the service's work of POST /plugin/v2/state for a returning
 * merchant, CALLS times, with the lookup as two indexed reads (the baseline) and from the
 * in-process cache (StoreDomainCache), alternating in rounds in the same process on the same database.
 *
 *   npm run bench:plugin          (LOADS=20, CALLS=4000 by default; PGlite in memory)
 */
import type net from 'node:net';
import { freePort, median, percentile } from './support.js';
import zlib from 'node:zlib';
import { launchBrowser } from '../test/support/browser.js';
import { startTestApp, stopTestApp } from '../test/support/harness.js';
import { createPlatform } from '../test/support/factories.js';
import { demoHost } from '../src/embed/demo-host.js';
import { domainsOfStore, linkStoreDomains, storeDomainOf } from '../src/companies/service.js';
import { Onboarding } from '../src/embed/onboarding.js';
import type { TestContext } from '../test/support/harness.js';

const LOADS = Number(process.env.LOADS ?? 20);
const CALLS = Number(process.env.CALLS ?? 4000);
const ROUNDS = 20;
const gzip = (body: Buffer | string) => zlib.gzipSync(body, { level: 9 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

async function main() {
  const port = await freePort();
  const service = `http://127.0.0.1:${port}`;
  const context = await startTestApp('pglite', { BASE_URL: service });
  await context.app.listen({ port, host: '127.0.0.1' });
  let platformId = '';
  const host = demoHost({ serviceUrl: service, platformId: async () => platformId });
  await host.listen({ port: 0, host: '127.0.0.1' });
  const demo = `http://127.0.0.1:${(host.server.address() as net.AddressInfo).port}`;
  ({ platformId } = await createPlatform(context.support, { approvedOrigins: [demo] }));

  const loader = Buffer.from(await (await fetch(`${service}/plugin/v2.0.0/loader.js`)).arrayBuffer());
  // As the browser asks for it from the demo page: the host origin as Referer, into a frame.
  const embedPage = await (
    await fetch(`${service}/plugin/v2/embed?platformId=${platformId}&domain=bench-shop.example`, {
      headers: { referer: `${demo}/`, 'sec-fetch-dest': 'iframe' },
    })
  ).text();
  const assets = [...embedPage.matchAll(/(?:src|href)="(\/(?:plugin\/)?assets\/[^"]+)"/g)].map((match) => match[1]!);
  const assetBodies = await Promise.all(assets.map(async (path) => Buffer.from(await (await fetch(`${service}${path}`)).arrayBuffer())));
  const embedRaw = Buffer.byteLength(embedPage) + assetBodies.reduce((sum, body) => sum + body.length, 0);
  const embedGzip = gzip(embedPage) + assetBodies.reduce((sum, body) => sum + gzip(body), 0);

  const browser = await launchBrowser();
  const times: number[] = [];
  for (let load = 0; load < LOADS + 1; load += 1) {
    const browserContext = await browser.newContext();
    const page = await browserContext.newPage();
    // Wraps init as the loader publishes it, to time init → first onEvent on the real demo page.
    // Plain source text: tsx would wrap a function passed here with helpers the page does not have.
    await page.addInitScript(`
      (() => {
        let wrapped;
        const timing = { start: 0, first: 0 };
        window.pluginTiming = timing;
        Object.defineProperty(window, 'EmbedPlugin', {
          configurable: true,
          get: () => wrapped,
          set: (api) => {
            wrapped = {
              version: api.version,
              init: (options) => {
                timing.start = performance.now();
                return api.init({ ...options, onEvent: (event) => {
                  if (!timing.first) timing.first = performance.now();
                  if (options.onEvent) options.onEvent(event);
                } });
              },
            };
          },
        });
      })();
    `);
    await page.goto(`${demo}/?domain=bench-${load}.example`);
    await page.waitForFunction('window.pluginTiming.first > 0', undefined, { timeout: 20_000 });
    const timing = (await page.evaluate('window.pluginTiming')) as { start: number; first: number };
    // The first load also builds the bundles on the service; it is a warm-up, not a sample.
    if (load > 0) times.push(timing.first - timing.start);
    await browserContext.close();
  }
  await browser.close();
  const lookup = await storeDomainLookups(context, demo);
  await host.close();
  await stopTestApp(context);

  const lines = [
    `loader.js:               ${kb(loader.length)} raw, ${kb(gzip(loader))} gzipped (budget 6 KB)`,
    `embed app first load:    ${kb(embedRaw)} raw, ${kb(embedGzip)} gzipped (page + ${assets.length} assets; budget 60 KB)`,
    `init → first embed.stage over ${times.length} cold loads: median ${percentile(times, 50).toFixed(1)} ms, ` +
      `p95 ${percentile(times, 95).toFixed(1)} ms, min ${Math.min(...times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`,
    ...lookup,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * The plugin's calls for a returning merchant at the install stage (both lookups run: the store a
 * domain names, and its domains for the return flow, since the platform has a plugin page): a
 * Shopify-like store known by a linked host. Each call does what POST /plugin/v2/state does for the
 * store (storeOf, the platform, the state), on two Onboardings alike but for the lookup.
 */
async function storeDomainLookups(context: TestContext, demo: string): Promise<string[]> {
  const { runtime, db } = context;
  const { platformId } = await createPlatform(context.support, { approvedOrigins: [demo], pluginPageUrl: `${demo}/` });
  await linkStoreDomains({ db, bus: runtime.bus }, 'bench-linked-store.example', { primary: 'bench-linked.example' });
  const deps = { db, adapter: runtime.commerce.primary, bus: runtime.bus, settings: runtime.config.plugin, nudgeWorker: () => {} };
  const variants = {
    'two reads (baseline)': new Onboarding({
      ...deps,
      storeDomains: { storeOf: (domain) => storeDomainOf({ db }, domain), domainsOf: (store) => domainsOfStore({ db }, store) },
    }),
    'cached (StoreDomainCache)': new Onboarding(deps),
  };
  const call = async (onboarding: Onboarding) => {
    const store = await onboarding.storeOf('bench-linked.example');
    const platform = await onboarding.platform(platformId);
    const state = await onboarding.state(platform, store, null);
    if (state.kind !== 'stage' || state.stage !== 'install') throw new Error(`the bench store is at ${JSON.stringify(state)}`);
  };
  // The sandbox makes the store on its first call; then every variant is warm.
  for (const onboarding of Object.values(variants)) for (let i = 0; i < 50; i += 1) await call(onboarding);
  const spent = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, onboarding] of Object.entries(variants)) {
      const started = performance.now();
      for (let i = 0; i < CALLS / ROUNDS; i += 1) await call(onboarding);
      spent.set(name, [...(spent.get(name) ?? []), (performance.now() - started) / (CALLS / ROUNDS)]);
    }
  }
  const perCall = (name: string) => spent.get(name)!.reduce((sum, each) => sum + each, 0) / ROUNDS;
  const [baseline, cached] = Object.keys(variants).map(perCall) as [number, number];
  return [
    `plugin state for a store known by a linked host, ${CALLS} calls in ${ROUNDS} alternating rounds (service work, no HTTP):`,
    ...Object.keys(variants).map((name) => {
      const µs = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
      const rounds = spent.get(name)!;
      const spread = `rounds: median ${µs(median(rounds))}, p95 ${µs(percentile(rounds, 95))}`;
      return `  ${name.padEnd(26)} mean ${µs(perCall(name))} a call (${spread})`;
    }),
    `  cached / baseline: ${(cached / baseline).toFixed(3)} of the time a call (${((1 - cached / baseline) * 100).toFixed(1)}% less)`,
  ];
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
