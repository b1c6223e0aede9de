import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { csrfOf, form, mergeCookies, oauthWorld } from '../../test/support/oauth-flow.js';
import { tableContents } from '../../test/support/snapshot.js';
import { DashboardClient } from '../../test/support/dashboard-client.js';
import { signOrderBody } from '../orders/signature.js';

const WEBHOOK_SECRET = 'orders-webhook-secret-0123456789';
const NUL = '\u0000';

describeEachDatabase(
  'text the database cannot store',
  (use) => {
    let signedIn: DashboardClient;
    let other: { companyId: string };
    let partnerDomain: string;
    let confidentialClient: { clientId: string; clientSecret: string };

    beforeAll(async () => {
      signedIn = new DashboardClient(use().app);
      await signedIn.signUpBrand('Careful Co', `${uniqueId('careful')}.example`, `${uniqueId('c')}@careful.example`);
      other = await createBrand(use().support);
      partnerDomain = `${other.companyId}.example`;
      const world = await oauthWorld(use());
      confidentialClient = { clientId: world.confidentialClient.clientId, clientSecret: world.confidentialClient.clientSecret! };
    });

    const anonymous = async () => new DashboardClient(use().app).start();
    const order = (overrides: Record<string, string>) => ({
      orderId: uniqueId('order'),
      storeDomain: partnerDomain,
      customerId: 'customer-1',
      totalCents: 1_000,
      currency: 'usd',
      placedAt: new Date().toISOString(),
      ...overrides,
    });
    const signedOrder = (body: unknown) => {
      const payload = JSON.stringify(body);
      const timestamp = Math.floor(Date.now() / 1000);
      return use().app.inject({
        method: 'POST',
        url: '/webhooks/commerce/orders',
        headers: {
          'content-type': 'application/json',
          'x-svc-timestamp': String(timestamp),
          'x-svc-signature': signOrderBody(WEBHOOK_SECRET, timestamp, payload),
        },
        payload,
      });
    };
    const rawJson = (url: string, bytes: Buffer) =>
      use().app.inject({
        method: 'POST',
        url,
        headers: { cookie: signedIn.cookies, 'x-csrf-token': csrfOf(signedIn.cookies), 'content-type': 'application/json' },
        payload: bytes,
      });

    /** Each request would have written something had its text been clean; the message must name the field. */
    const refusals: Array<[string, () => Promise<LightMyRequestResponse>, RegExp]> = [
      [
        'sign-in email',
        async () =>
          (await anonymous()).post('/dashboard/api/sign-in', { email: `a${NUL}b@careful.example`, password: 'whatever-password' }),
        /^email /,
      ],
      [
        'sign-up brand name',
        async () =>
          (await anonymous()).post('/dashboard/api/sign-up', {
            email: `${uniqueId('n')}@careful.example`,
            brand: { businessName: `Nul${NUL}Co`, domain: `${uniqueId('nul')}.example` },
          }),
        /^brand\.businessName /,
      ],
      [
        'sign-up brand name with a lone surrogate',
        async () =>
          (await anonymous()).post('/dashboard/api/sign-up', {
            email: `${uniqueId('s')}@careful.example`,
            brand: { businessName: 'Half \ud800 Co', domain: `${uniqueId('half')}.example` },
          }),
        /^brand\.businessName must be valid Unicode text/,
      ],
      ['dashboard search q', () => signedIn.get(`/dashboard/api/brands?q=${encodeURIComponent(`a${NUL}`)}`), /^query parameter q /],
      ['API key name', () => signedIn.post('/dashboard/api/keys', { name: `key${NUL}` }), /^name /],
      [
        'API key name sent as invalid UTF-8',
        () => rawJson('/dashboard/api/keys', Buffer.concat([Buffer.from('{"name":"key'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])),
        /not valid UTF-8/,
      ],
      [
        'a field name holding NUL',
        () => signedIn.post('/dashboard/api/keys', { name: 'key', [`x${NUL}`]: 1 }),
        /^body has a field name that must not contain/,
      ],
      [
        'connection request message',
        () => signedIn.post(`/dashboard/api/partners/${other.companyId}/request`, { message: `hello${NUL}` }),
        /^message /,
      ],
      [
        'companyId path parameter',
        () => signedIn.post(`/dashboard/api/partners/${encodeURIComponent(`${other.companyId}${NUL}`)}/request`, {}),
        /^path parameter companyId /,
      ],
      [
        'offer title',
        () => signedIn.post('/dashboard/api/offer', { title: `Half off${NUL}`, imageUrl: 'https://cdn.example/offer.png' }),
        /^title /,
      ],
      ['signed order webhook orderId', () => signedOrder(order({ orderId: `order${NUL}` })), /^orderId /],
      ['signed order webhook customerId', () => signedOrder(order({ customerId: `customer${NUL}` })), /^customerId /],
      [
        'staff sign-in form field',
        async () => {
          const page = await use().app.inject({ method: 'GET', url: '/account/sign-in' });
          const cookies = mergeCookies('', page);
          return use().app.inject({
            method: 'POST',
            url: '/account/sign-in',
            headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
            payload: form({ csrf_token: csrfOf(cookies), email: `a${NUL}@careful.example`, password: 'whatever-password' }),
          });
        },
        /^email /,
      ],
    ];

    for (const [name, send, field] of refusals) {
      it(`refuses ${name} with 400 invalid_request naming the field, writing nothing`, async () => {
        const before = await tableContents(use().db);
        const response = await send();
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(field) });
        expect(await tableContents(use().db)).toEqual(before);
      });
    }

    it('answers the OAuth token endpoint in RFC 6749 shape, writing nothing', async () => {
      const before = await tableContents(use().db);
      const response = await use().app.inject({
        method: 'POST',
        url: '/v1/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({
          grant_type: 'client_credentials',
          client_id: confidentialClient.clientId,
          client_secret: `${confidentialClient.clientSecret}${NUL}`,
        }),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: 'invalid_request',
        error_description: expect.stringMatching(/^client_secret must not contain the NUL character/),
      });
      expect(await tableContents(use().db)).toEqual(before);
    });

    it('still accepts the same requests with clean text', async () => {
      expect((await signedIn.post('/dashboard/api/keys', { name: 'key é 😀' })).statusCode).toBe(201);
      expect((await signedIn.get('/dashboard/api/brands?q=%E2%82%AC')).statusCode).toBe(200);
      expect((await signedOrder(order({}))).statusCode).toBe(200);
    });
  },
  { ORDERS_WEBHOOK_SECRET: WEBHOOK_SECRET },
);
