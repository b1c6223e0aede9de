import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeOnBothEngines } from '../../test/support/harness.js';
import { createBrand } from '../../test/support/factories.js';
import { registerOAuthClient } from './clients.js';
import { authenticateClient, createOAuthModel } from './model.js';
import { newPair, openPair, sealPair } from './tokens.js';

describe('sealed successor pairs', () => {
  it('open only with the refresh token they were sealed with', () => {
    const pair = newPair(['brand'], new Date());
    const sealed = sealPair(pair, 'svc_rt_old');
    expect(openPair(sealed, 'svc_rt_old')).toEqual(pair);
    expect(openPair(sealed, 'svc_rt_other')).toBeUndefined();
    expect(sealed).not.toContain(pair.accessToken);
  });
});

describeOnBothEngines('OAuth model and client registry', (use) => {
  let companyId: string;
  beforeAll(async () => {
    ({ companyId } = await createBrand(use().support));
  });

  it('demands the secret of a confidential client and refuses one from a public client', async () => {
    const ctx = { db: use().db, serviceEnv: use().config.serviceEnv };
    const confidential = await registerOAuthClient(ctx, {
      name: 'Backend',
      redirectUris: ['https://b.example/cb'],
      confidential: true,
      companyId,
    });
    const publicClient = await registerOAuthClient(ctx, { name: 'SPA', redirectUris: ['http://localhost:5173/cb'], confidential: false });
    expect(await authenticateClient(use().db, confidential.clientId, confidential.clientSecret)).toMatchObject({
      grants: ['authorization_code', 'refresh_token', 'client_credentials'],
      companyId,
    });
    expect(await authenticateClient(use().db, confidential.clientId, undefined)).toBeUndefined();
    expect(await authenticateClient(use().db, confidential.clientId, 'svc_cs_wrong')).toBeUndefined();
    expect(await authenticateClient(use().db, publicClient.clientId, undefined)).toMatchObject({
      grants: ['authorization_code', 'refresh_token'],
    });
    expect(await authenticateClient(use().db, publicClient.clientId, 'anything')).toBeUndefined();
    const stored = await use()
      .db.selectFrom('oauth_clients')
      .select('secret_hash')
      .where('client_id', '=', confidential.clientId)
      .executeTakeFirstOrThrow();
    expect(stored.secret_hash).not.toBe(confidential.clientSecret);
  });

  it('gives client-credentials tokens to the brand of the client, and refuses unknown scopes', async () => {
    const model = createOAuthModel({ db: use().db, onRevoked: async () => {}, refreshGraceSeconds: 30 });
    const client = { id: 'x', grants: [], companyId } as never;
    expect(await model.getUserFromClient(client)).toEqual({ userId: null, companyId, platformId: null });
    expect(await model.validateScope!({}, client, undefined)).toEqual(['brand']);
    expect(await model.validateScope!({}, client, ['brand', 'admin'])).toBe(false);
  });

  describe('admin API', () => {
    const register = (body: unknown, token = ADMIN_TOKEN) =>
      use().app.inject({
        method: 'POST',
        url: '/admin/oauth-clients',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const clients = () => use().db.selectFrom('oauth_clients').selectAll().orderBy('client_id').execute();

    it('registers a confidential client, showing the secret once and listing it without', async () => {
      const response = await register({
        clientId: 'partner-app',
        name: 'Partner App',
        redirectUris: ['https://partner.example/cb'],
        confidential: true,
      });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toMatchObject({
        clientId: 'partner-app',
        confidential: true,
        clientSecret: expect.stringMatching(/^svc_cs_/),
      });
      const list = await use().app.inject({
        method: 'GET',
        url: '/admin/oauth-clients',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const listed = list.json().data.find((c: { clientId: string }) => c.clientId === 'partner-app');
      expect(listed).toMatchObject({ confidential: true, redirectUris: ['https://partner.example/cb'] });
      expect(JSON.stringify(list.json())).not.toContain(response.json().clientSecret);
    });

    const refusals: Array<[string, unknown, number, string, RegExp]> = [
      [
        'an http redirect URI off loopback',
        { name: 'A', redirectUris: ['http://app.example/cb'], confidential: false },
        400,
        'invalid_request',
        /https/,
      ],
      [
        'a redirect URI with a fragment',
        { name: 'A', redirectUris: ['https://app.example/cb#x'], confidential: false },
        400,
        'invalid_request',
        /fragment/,
      ],
      ['no redirect URIs', { name: 'A', redirectUris: [], confidential: false }, 400, 'invalid_request', /redirectUris/],
      [
        'a brand on a public client',
        { name: 'A', redirectUris: ['https://a.example/cb'], confidential: false, companyId: 'x' },
        400,
        'invalid_request',
        /confidential/,
      ],
      [
        'an unknown brand',
        { name: 'A', redirectUris: ['https://a.example/cb'], confidential: true, companyId: 'no-such-brand' },
        404,
        'not_found',
        /no company/,
      ],
      [
        'a taken client id',
        { clientId: 'partner-app', name: 'Again', redirectUris: ['https://a.example/cb'], confidential: false },
        409,
        'client_exists',
        /already exists/,
      ],
    ];
    for (const [check, body, status, error, message] of refusals) {
      it(`refuses ${check}, writing nothing`, async () => {
        const before = await clients();
        const response = await register(body);
        expect(response.statusCode).toBe(status);
        expect(response.json()).toMatchObject({ error, message: expect.stringMatching(message) });
        expect(await clients()).toEqual(before);
      });
    }

    it('needs the admin token', async () => {
      const before = await clients();
      const response = await register({ name: 'A', redirectUris: ['https://a.example/cb'], confidential: false }, 'wrong-token-0123456789');
      expect(response.statusCode).toBe(401);
      expect(await clients()).toEqual(before);
    });
  });
});
