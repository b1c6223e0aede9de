/**
 * The embedded plugin's size and speed (issue 5): the loader's gzipped size (budget 6 KB), the
 * embed app's first load gzipped (page + script + stylesheet; budget 60 KB), and the time from
 * EmbedPlugin.init to the first embed.stage event on the demo host page in headless Chromium,
 * median of 20 cold loads (a new browser context each, so nothing is cached).
 *
 *   npm run bench:plugin          (LOADS=20 by default; PGlite in memory)
 */
import type net from 'node:net';
import { freePort, percentile } from './support.js';
import zlib from 'node:zlib';
import { launchBrowser } from '../test/support/browser.js';
import { startTestApp, stopTestApp } from '../test/support/harness.js';
import { createPlatform } from '../test/support/factories.js';
import { demoHost } from '../src/embed/demo-host.js';

const LOADS = Number(process.env.LOADS ?? 20);
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
  const assets = [...embedPage.matchAll(/(?:src|href)="(\/plugin\/assets\/[^"]+)"/g)].map((match) => match[1]!);
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
  await host.close();
  await stopTestApp(context);

  const lines = [
    `loader.js:               ${kb(loader.length)} raw, ${kb(gzip(loader))} gzipped (budget 6 KB)`,
    `embed app first load:    ${kb(embedRaw)} raw, ${kb(embedGzip)} gzipped (page + ${assets.length} assets; budget 60 KB)`,
    `init → first embed.stage over ${times.length} cold loads: median ${percentile(times, 50).toFixed(1)} ms, ` +
      `p95 ${percentile(times, 95).toFixed(1)} ms, min ${Math.min(...times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
