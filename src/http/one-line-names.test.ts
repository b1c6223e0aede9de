import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachDatabase } from '../../test/support/harness.js';
import { createBrand, createPlatform, uniqueId } from '../../test/support/factories.js';
import { tableContents } from '../../test/support/snapshot.js';
import { DashboardClient } from '../../test/support/dashboard-client.js';

/** The finding's name: its second line is a formula to a spreadsheet that opens the CSV it lands in. */
const HOSTILE = 'Evil Co\n=1+1';
/** Every kind of character that breaks a line or is no text at all: C0 (tab, CR, LF), DEL, C1 (NEL), U+2028, U+2029. */
const BREAKERS = ['\n', '\r', '\r\n', '\t', '\u0001', '\u007f', '\u0085', '\u009b', '\u2028', '\u2029'];

describeEachDatabase('names are one line', (use) => {
  let signedIn: DashboardClient;
  let other: { companyId: string };
  let platformKey: string;

  beforeAll(async () => {
    signedIn = new DashboardClient(use().app);
    await signedIn.signUpBrand('Careful Co', `${uniqueId('careful')}.example`, `${uniqueId('c')}@careful.example`);
    other = await createBrand(use().support);
    platformKey = (await createPlatform(use().support)).key;
  });

  const admin = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
    use().app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const syncBrands = (businessName: string) =>
    use().app.inject({
      method: 'POST',
      url: '/v1/platform/brands',
      headers: { 'x-api-key': platformKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ brands: [{ domain: `${uniqueId('synced')}.example`, businessName }] }),
    });
  const offer = { title: 'Half off', imageUrl: 'https://cdn.example/offer.png' };
  const redirectUris = ['https://app.example/callback'];

  const refusals: Array<[string, () => Promise<LightMyRequestResponse>, RegExp]> = [
    [
      'sign-up brand name',
      async () =>
        (await new DashboardClient(use().app).start()).post('/dashboard/api/sign-up', {
          email: `${uniqueId('s')}@evil.example`,
          brand: { businessName: HOSTILE, domain: `${uniqueId('evil')}.example` },
        }),
      /^brand\.businessName /,
    ],
    [
      'claimed brand name',
      () => signedIn.post('/dashboard/api/claim', { brand: { businessName: HOSTILE, domain: `${uniqueId('evil')}.example` } }),
      /^brand\.businessName /,
    ],
    ['platform sync brand name', () => syncBrands(HOSTILE), /^brands\[0\]\.businessName /],
    [
      'admin company name',
      () => admin('POST', '/admin/companies', { companyId: uniqueId('evil'), domain: 'evil.example', businessName: HOSTILE }),
      /^businessName /,
    ],
    ['admin company rename', () => admin('PATCH', `/admin/companies/${other.companyId}`, { businessName: HOSTILE }), /^businessName /],
    ['admin platform name', () => admin('POST', '/admin/platforms', { name: HOSTILE }), /^name /],
    ['admin API key label', () => admin('POST', `/admin/companies/${other.companyId}/keys`, { name: HOSTILE }), /^name /],
    [
      'admin staff display name',
      () =>
        admin('POST', `/admin/companies/${other.companyId}/users`, {
          email: `${uniqueId('u')}@evil.example`,
          password: 'correct horse battery staple',
          displayName: HOSTILE,
        }),
      /^displayName /,
    ],
    [
      'admin OAuth client name',
      () => admin('POST', '/admin/oauth-clients', { name: HOSTILE, redirectUris, confidential: false }),
      /^name /,
    ],
    ['OAuth app name', () => signedIn.post('/dashboard/api/oauth-apps', { name: HOSTILE, redirectUris, confidential: false }), /^name /],
    ['API key name', () => signedIn.post('/dashboard/api/keys', { name: HOSTILE }), /^name /],
    ['campaign name', () => signedIn.post('/dashboard/api/campaigns', { partnerId: other.companyId, name: HOSTILE }), /^name /],
    ['offer title', () => signedIn.post('/dashboard/api/offer', { ...offer, title: HOSTILE }), /^title /],
    ['offer subtitle', () => signedIn.post('/dashboard/api/offer', { ...offer, subtitle: HOSTILE }), /^subtitle /],
  ];

  for (const [name, send, field] of refusals) {
    it(`refuses two lines in the ${name}: 400 naming the field, writing nothing`, async () => {
      const before = await tableContents(use().db);
      const response = await send();
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({
        error: 'invalid_request',
        message: expect.stringMatching(new RegExp(`${field.source}must be one line: no line breaks, tabs or other control characters$`)),
      });
      expect(await tableContents(use().db)).toEqual(before);
    });
  }

  it('refuses every control character and line separator in a name, and takes one-line names of any script', async () => {
    const before = await tableContents(use().db);
    for (const breaker of BREAKERS) {
      const response = await syncBrands(`Evil${breaker}Co`);
      expect(response.statusCode, JSON.stringify(breaker)).toBe(400);
    }
    expect(await tableContents(use().db)).toEqual(before);
    for (const name of ['Harbor & Vine – Coffee', 'Café Ümlaut', 'Пекарня «Хлеб»', '東京ティー', '= not a formula here']) {
      expect((await syncBrands(name)).statusCode, name).toBe(200);
    }
  });
});
