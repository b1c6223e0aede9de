import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbedState } from '../../src/embed/embed-view.js';
import { fetchTransport, merchantToken, StoreOwner } from '../support/sandbox-owner.js';
import { freePort, startService, type ServiceProcess } from '../support/service-process.js';

const run = promisify(execFile);

/** The value the banner prints after `label` (up to the next two spaces or the line's end). */
function printed(banner: string, pattern: RegExp): string {
  const found = pattern.exec(banner);
  if (!found?.[1]) throw new Error(`the banner prints no ${pattern}:\n${banner}`);
  return found[1];
}

/** The README's "Try the API" shell block, as a reader copies it. */
function readmeApiBlock(): string {
  const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Try the API'));
  return /```sh\n([\s\S]*?)```/.exec(section)![1]!;
}

/**
 * The README's walk-through as a newcomer follows it on a fresh data directory with ports of
 * their own (`PORT=… DEMO_PORT=… npm start`, no BASE_URL): every role it names works, and each
 * step takes its address, keys and sign-ins from what the service printed, not from the defaults.
 */
describe('the README walk on non-default ports', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-readme-walk-'));
  const adminToken = crypto.randomBytes(16).toString('hex');
  let service: ServiceProcess;
  let banner: string;
  let base: string;
  let port: number;
  let demoPort: number;

  beforeAll(async () => {
    port = await freePort();
    demoPort = await freePort();
    expect([port, demoPort]).not.toContain(3000);
    // BASE_URL left unset, as the README's command leaves it: the service derives it from PORT.
    service = await startService(
      { BASE_URL: '', DATA_DIR: dataDir, DEMO_PORT: String(demoPort), ADMIN_TOKEN: adminToken, LOG_LEVEL: 'info' },
      { port },
    );
    banner = service.output();
    base = printed(banner, /Base URL:\s+(\S+)/);
  }, 240_000);

  afterAll(async () => {
    if (service) expect(await service.stop()).toBe(0);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints every address on the ports it was given', () => {
    expect(base).toBe(`http://127.0.0.1:${port}`);
    expect(printed(banner, /Plugin demo:\s+(\S+)/)).toBe(`http://127.0.0.1:${demoPort}/`);
    expect(printed(banner, /API reference:\s+(\S+)/)).toBe(`${base}/docs`);
    expect(banner).not.toMatch(/:3000\b|:3001\b/);
    // Started on an empty DATA_DIR, as a newcomer's first `npm start` is: the database is made there.
    expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(true);
  });

  it("a tech platform syncs brands and a brand reads offers: the banner's commands and the README's, with PORT set", async () => {
    // The banner's own "Try:" commands, run as printed.
    const tries = banner
      .split('\n')
      .map((line) => /^\s+(?:Try:)?\s+(curl .+)$/.exec(line)?.[1])
      .filter((command): command is string => command !== undefined);
    expect(tries.length).toBe(2);
    for (const command of tries) {
      const { stdout } = await run('bash', ['-c', command.replace(/^curl /, 'curl -sf ')]);
      expect(JSON.parse(stdout), command).toBeTypeOf('object');
    }
    // The README's block, with only PORT exported as the reader started the service; -f so a 4xx fails the run.
    const block = readmeApiBlock().replaceAll('curl -s ', 'curl -sf ');
    const { stdout } = await run('bash', ['-e', '-c', `${block}\necho; echo "BASE=$BASE"`], {
      env: { ...process.env, PORT: String(port) },
    });
    expect(stdout).toContain(`BASE=${base}`);
    expect(stdout).toContain('"offers"');
  });

  it('signs the demo staff in to the brand dashboard with the sign-in the banner prints', async () => {
    const email = printed(banner, /Staff sign-in:.*?email (\S+)/);
    const password = printed(banner, /Staff sign-in:.*?password (\S+)/);
    const session = await fetch(`${base}/dashboard/api/session`);
    const cookies = session.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const csrf = /svc_csrf=([^;]+)/.exec(cookies)![1]!;
    const signedIn = await fetch(`${base}/dashboard/api/sign-in`, {
      method: 'POST',
      headers: { cookie: cookies, 'x-csrf-token': csrf, 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ email, password }),
    });
    expect(signedIn.status, await signedIn.clone().text()).toBe(200);
    expect(await signedIn.json()).toEqual({ signedIn: true });
  });

  it("takes a new store to live through the plugin demo's platform on DEMO_PORT", async () => {
    const demo = printed(banner, /Plugin demo:\s+(\S+)/);
    const platformId = printed(banner, /Demo platform:.*?id (\S+)/);
    const page = await fetch(demo);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`${base}/plugin/v2.0.0/loader.js`);
    const domain = `walk-${crypto.randomBytes(3).toString('hex')}.example`;
    // The embed page the demo's loader opens answers the app, not "This site is not approved".
    const query = new URLSearchParams({ platformId, domain, mode: 'page', ancestors: demo.replace(/\/$/, '') });
    const embed = await fetch(`${base}/plugin/v2/embed?${query}`, { headers: { referer: demo, 'sec-fetch-dest': 'iframe' } });
    expect(/id="embed-boot">(.*?)<\/script>/.exec(await embed.text())?.[1]).toContain('"page":"app"');

    const state = async () => {
      const response = await fetch(`${base}/plugin/v2/state`, {
        method: 'POST',
        headers: { origin: base, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
        body: JSON.stringify({ platformId, domain }),
      });
      return (await response.json()) as EmbedState;
    };
    expect(await state()).toMatchObject({ kind: 'stage', stage: 'install' });
    const transport = fetchTransport(base);
    const owner = await StoreOwner.signIn(transport, domain);
    expect((await owner.post('install')).status).toBe(200);
    expect((await owner.post('plan')).status).toBe(200);
    await expect.poll(state, { timeout: 120_000, interval: 500 }).toMatchObject({ kind: 'stage', stage: 'consent' });
    const token = await merchantToken(transport, owner, platformId);
    const live = await fetch(`${base}/plugin/v2/consent`, {
      method: 'POST',
      headers: { origin: base, 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ platformId, domain, discountPercent: 20, acceptTerms: true }),
    });
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ kind: 'stage', stage: 'live' });
  });

  it('answers support on the admin API with ADMIN_TOKEN, and serves the API reference for this address', async () => {
    expect(banner).toContain(`Admin API:       ${base}/admin (Authorization: Bearer $ADMIN_TOKEN)`);
    const platformId = printed(banner, /Demo platform:.*?id (\S+)/);
    const stats = await fetch(`${base}/admin/platforms/${platformId}/stats`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(stats.status).toBe(200);
    const reference = await fetch(printed(banner, /API reference:\s+(\S+)/));
    expect(reference.status).toBe(200);
    expect(await reference.text()).toContain('id="api-reference"');
    const document = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { servers: Array<{ url: string }> };
    expect(document.servers[0]!.url).toBe(base);
  });
});
