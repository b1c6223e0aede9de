import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { readFixtureFile } from '../../src/demo/loader.js';
import type { FixtureFile } from '../../src/demo/schemas.js';
import { DEMO_FIXTURE_PATH, prepareStartupData } from '../../src/demo/startup.js';
import type { EmbedState } from '../../src/embed/embed-view.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { testConfig } from '../support/harness.js';
import { injectTransport, merchantToken, StoreOwner } from '../support/sandbox-owner.js';

/**
 * The embedded default stays proven end to end: HTTP-level suites run on PostgreSQL (HTTP_ENGINES),
 * so this walks a newcomer's first minutes on PGlite, from a migrated database as `npm start` leaves
 * it (then the demo data), through the demo platform's offers and the dashboard sign-in the banner
 * prints, to a store's plugin turned live. The migrations on an empty PGlite are walked by the README
 * walk (test/server/readme-walk.test.ts) and the CLI's migrate test (src/cli.test.ts).
 */
describe('a newcomer on PGlite, the embedded default', () => {
  let database: TestDatabase;
  let app: App;
  let demo: FixtureFile;
  let banner: string;

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    // Setup's timings made short, as in the plugin's own tests: a store's import takes 0.3 s.
    const config = testConfig({ SERVICE_ENV: 'dev', SETUP_POLL_MS: '30', SANDBOX_IMPORT_MS: '300' });
    app = await buildApp({ config, database });
    await app.ready();
    banner = (await prepareStartupData(app.runtime, app.log)).banner.join('\n');
    demo = await readFixtureFile(DEMO_FIXTURE_PATH);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('starts on PGlite, loads the demo data, shows offers, signs staff in, and takes a store to live', async () => {
    const ready = await app.inject('/readyz');
    expect(ready.json()).toEqual({ status: 'ready', database: 'pglite' });
    const demoBrand = demo.brands![0]!;
    const demoPlatform = demo.platforms![0]!;
    const staff = demoBrand.staff![0]!;
    expect(banner).toContain(demoPlatform.keys![0]!.key);
    expect(banner).toContain(`email ${staff.email}  password ${staff.password}`);

    const offers = await app.inject({
      method: 'GET',
      url: '/v1/campaigns/offers?type=post-purchase',
      headers: { 'x-api-key': demoBrand.apiKeys![0]!, 'x-platform-id': demoPlatform.id },
    });
    expect(offers.statusCode, offers.body).toBe(200);
    expect(offers.json().offers.length).toBeGreaterThan(0);

    const dashboard = await new DashboardClient(app).start();
    const signedIn = await dashboard.post('/dashboard/api/sign-in', { email: staff.email, password: staff.password });
    expect(signedIn.json()).toEqual({ signedIn: true });
    const partners = await dashboard.get('/dashboard/api/partners?status=active');
    expect(partners.statusCode).toBe(200);
    expect(partners.json().totalRows).toBeGreaterThan(0);

    // The embed app for a store new to the service, on the demo platform: install, approve, consent, live.
    const domain = `shop-${crypto.randomBytes(4).toString('hex')}.example`;
    const state = async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/plugin/v2/state',
        headers: { origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
        payload: JSON.stringify({ platformId: demoPlatform.id, domain }),
      });
      expect(response.statusCode).toBe(200);
      return response.json() as EmbedState;
    };
    expect(await state()).toMatchObject({ kind: 'stage', stage: 'install' });
    const owner = await StoreOwner.signIn(injectTransport(app), domain);
    expect((await owner.post('install')).status).toBe(200);
    expect((await owner.post('plan')).status).toBe(200);
    await expect.poll(state, { interval: 40 }).toMatchObject({ kind: 'stage', stage: 'consent' });
    const token = await merchantToken(injectTransport(app), owner, demoPlatform.id);
    const live = await app.inject({
      method: 'POST',
      url: '/plugin/v2/consent',
      headers: { origin: 'http://localhost:80', 'content-type': 'application/json', authorization: `Bearer ${token}` },
      payload: JSON.stringify({ platformId: demoPlatform.id, domain, discountPercent: 20, acceptTerms: true }),
    });
    expect(live.statusCode, live.body).toBe(200);
    expect(live.json()).toMatchObject({ kind: 'stage', stage: 'live', offer: { discountPercent: 20 } });
  });
});
