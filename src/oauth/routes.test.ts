import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.js';
import { openDatabase } from '../db/database.js';
import { registerOAuthClient, type RegisteredClient } from './clients.js';
import { createOAuthModel } from './model.js';
import { hashSecret } from '../shared/keys.js';
import { createTestDatabase, TEST_DATABASE_BOUNDS, TEST_POSTGRES_URL, type TestDatabase } from '../../test/support/databases.js';
import { createBrand } from '../../test/support/factories.js';
import { describeEachDatabase, startTestApp, stopTestApp, testConfig, type TestContext } from '../../test/support/harness.js';
import { TcpProxy } from '../../test/resilience/support.js';
import {
  authorizeFields,
  consent,
  csrfOf,
  form,
  issueTokens,
  oauthWorld,
  pkce,
  REDIRECT_URI,
  signIn,
  tokenRequest,
} from '../../test/support/oauth-flow.js';

type World = Awaited<ReturnType<typeof oauthWorld>>;

async function counts(context: TestContext) {
  const count = async (table: 'oauth_grants' | 'oauth_authorization_codes' | 'oauth_access_tokens' | 'oauth_refresh_tokens') =>
    Number(
      (
        await context.db
          .selectFrom(table)
          .select(({ fn }) => fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    grants: await count('oauth_grants'),
    codes: await count('oauth_authorization_codes'),
    access: await count('oauth_access_tokens'),
    refresh: await count('oauth_refresh_tokens'),
  };
}

describeEachDatabase('OAuth endpoints', (use) => {
  let world: World;
  let cookies: string;

  beforeAll(async () => {
    world = await oauthWorld(use());
    cookies = await signIn(use().app, world.email);
  });

  const authorizeUrl = (fields: Record<string, string>) => `/v1/oauth/authorize?${form(fields)}`;

  describe('metadata (RFC 8414)', () => {
    it('describes the endpoints with the configured base URL as issuer', async () => {
      const response = await use().app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        issuer: 'http://svc.test',
        authorization_endpoint: 'http://svc.test/v1/oauth/authorize',
        token_endpoint: 'http://svc.test/v1/oauth/token',
        revocation_endpoint: 'http://svc.test/v1/oauth/revoke',
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
      });
    });
  });

  describe('authorize', () => {
    it('shows a sign-in page, then a consent page naming the app, the brand and the platform, unframeable', async () => {
      const { challenge } = pkce();
      const url = authorizeUrl(
        authorizeFields({ clientId: world.publicClient.clientId, challenge, platformId: world.platform.platformId }),
      );
      const anonymous = await use().app.inject({ method: 'GET', url });
      expect(anonymous.statusCode).toBe(200);
      expect(anonymous.body).toContain('Sign in to let Checkout App access your brand.');
      expect(anonymous.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(anonymous.headers['x-frame-options']).toBe('DENY');

      const page = await use().app.inject({ method: 'GET', url, headers: { cookie: cookies } });
      expect(page.statusCode).toBe(200);
      const platformName = (
        await use().db.selectFrom('platforms').select('name').where('id', '=', world.platform.platformId).executeTakeFirstOrThrow()
      ).name;
      expect(page.body).toContain('Checkout App');
      expect(page.body).toContain(`Brand ${world.brand.companyId}`);
      expect(page.body).toContain(platformName);
      expect(page.headers['content-security-policy']).toContain("form-action 'self' https://app.example");
    });

    it('redirects with a single-use code and the state on approval, and with access_denied on denial', async () => {
      const { challenge } = pkce();
      const before = await counts(use());
      const approved = await consent(use().app, cookies, { clientId: world.publicClient.clientId, challenge, state: 'xyz' });
      expect(approved.origin + approved.pathname).toBe(REDIRECT_URI);
      expect(approved.searchParams.get('code')).toMatch(/^[A-Za-z0-9]{43}$/);
      expect(approved.searchParams.get('state')).toBe('xyz');
      expect(approved.searchParams.get('iss')).toBe('http://svc.test');
      expect((await counts(use())).codes).toBe(before.codes + 1);

      const denied = await consent(use().app, cookies, {
        clientId: world.publicClient.clientId,
        challenge,
        state: 'abc',
        decision: 'deny',
      });
      expect(denied.searchParams.get('error')).toBe('access_denied');
      expect(denied.searchParams.get('state')).toBe('abc');
      expect(denied.searchParams.get('code')).toBeNull();
      expect((await counts(use())).codes).toBe(before.codes + 1);
    });

    const pageErrors: Array<[string, (w: World) => Record<string, string>, RegExp]> = [
      ['unknown client', () => ({ ...authorizeFields({ clientId: 'no-such-client', challenge: pkce().challenge }) }), /not registered/],
      [
        'missing client_id',
        (w) => {
          const { client_id: _c, ...rest } = authorizeFields({ clientId: w.publicClient.clientId, challenge: pkce().challenge });
          return rest;
        },
        /client_id is missing/,
      ],
      [
        'wrong redirect URI',
        (w) => authorizeFields({ clientId: w.publicClient.clientId, challenge: pkce().challenge, redirectUri: 'https://evil.example/cb' }),
        /redirect_uri does not match/,
      ],
      [
        'redirect URI differing only by a trailing slash',
        (w) => authorizeFields({ clientId: w.publicClient.clientId, challenge: pkce().challenge, redirectUri: `${REDIRECT_URI}/` }),
        /redirect_uri does not match/,
      ],
      [
        'missing redirect URI',
        (w) => {
          const { redirect_uri: _r, ...rest } = authorizeFields({ clientId: w.publicClient.clientId, challenge: pkce().challenge });
          return rest;
        },
        /redirect_uri is missing/,
      ],
    ];
    for (const [check, fields, message] of pageErrors) {
      it(`shows an error page and does not redirect for ${check}`, async () => {
        const before = await counts(use());
        const response = await use().app.inject({ method: 'GET', url: authorizeUrl(fields(world)), headers: { cookie: cookies } });
        expect(response.statusCode).toBe(400);
        expect(response.headers.location).toBeUndefined();
        expect(response.headers['content-type']).toMatch(/text\/html/);
        expect(response.body).toMatch(message);
        expect(await counts(use())).toEqual(before);
      });
    }

    const redirectErrors: Array<[string, (w: World) => Record<string, string>, string, RegExp]> = [
      [
        'unsupported response type',
        (w) => ({ ...authorizeFields({ clientId: w.publicClient.clientId, challenge: pkce().challenge }), response_type: 'token' }),
        'unsupported_response_type',
        /response_type=code/,
      ],
      [
        'missing code_challenge',
        (w) => {
          const { code_challenge: _c, ...rest } = authorizeFields({ clientId: w.publicClient.clientId, challenge: 'x' });
          return rest;
        },
        'invalid_request',
        /PKCE is required/,
      ],
      [
        'plain PKCE',
        (w) => ({ ...authorizeFields({ clientId: w.publicClient.clientId, challenge: pkce().challenge }), code_challenge_method: 'plain' }),
        'invalid_request',
        /S256/,
      ],
      [
        'unknown scope',
        (w) => ({ ...authorizeFields({ clientId: w.publicClient.clientId, challenge: pkce().challenge }), scope: 'admin' }),
        'invalid_scope',
        /brand/,
      ],
      [
        'inactive platform_id',
        (w) =>
          authorizeFields({ clientId: w.publicClient.clientId, challenge: pkce().challenge, platformId: w.inactivePlatform.platformId }),
        'invalid_request',
        /not an active platform/,
      ],
      [
        'unknown platform_id',
        (w) =>
          authorizeFields({
            clientId: w.publicClient.clientId,
            challenge: pkce().challenge,
            platformId: '00000000-0000-4000-8000-000000000000',
          }),
        'invalid_request',
        /not an active platform/,
      ],
      [
        'platform_id not a UUID',
        (w) => authorizeFields({ clientId: w.publicClient.clientId, challenge: pkce().challenge, platformId: '42' }),
        'invalid_request',
        /UUID/,
      ],
    ];
    for (const [check, fields, error, description] of redirectErrors) {
      it(`redirects back with ${error} for ${check}, on the page and on the consent form`, async () => {
        const before = await counts(use());
        const shown = await use().app.inject({ method: 'GET', url: authorizeUrl(fields(world)), headers: { cookie: cookies } });
        const submitted = await use().app.inject({
          method: 'POST',
          url: '/v1/oauth/authorize',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
          payload: form({ ...fields(world), csrf_token: csrfOf(cookies), decision: 'approve' }),
        });
        for (const response of [shown, submitted]) {
          expect(response.statusCode).toBe(303);
          const location = new URL(response.headers.location as string);
          expect(location.origin + location.pathname).toBe(REDIRECT_URI);
          expect(location.searchParams.get('error')).toBe(error);
          expect(location.searchParams.get('error_description')).toMatch(description);
          expect(location.searchParams.get('state')).toBe('state-123');
        }
        expect(await counts(use())).toEqual(before);
      });
    }

    it('refuses a consent form without the CSRF token, writing nothing', async () => {
      const before = await counts(use());
      const response = await use().app.inject({
        method: 'POST',
        url: '/v1/oauth/authorize',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
        payload: form({
          ...authorizeFields({ clientId: world.publicClient.clientId, challenge: pkce().challenge }),
          csrf_token: 'forged',
          decision: 'approve',
        }),
      });
      expect(response.statusCode).toBe(403);
      expect(response.headers.location).toBeUndefined();
      expect(await counts(use())).toEqual(before);
    });
  });

  describe('loopback redirect URIs (RFC 8252 7.3)', () => {
    let desktop: RegisteredClient;
    beforeAll(async () => {
      desktop = await registerOAuthClient(
        { db: use().db, serviceEnv: use().config.serviceEnv },
        {
          name: 'Desktop App',
          redirectUris: ['http://127.0.0.1/callback', 'http://[::1]/callback', 'http://localhost:8765/callback'],
          confidential: false,
        },
      );
    });

    const ACCEPTED = [
      'http://127.0.0.1:53682/callback',
      'http://127.0.0.1:1/callback',
      'http://127.0.0.1/callback',
      'http://[::1]:61000/callback',
      'http://localhost:8765/callback',
    ];
    for (const redirectUri of ACCEPTED) {
      it(`accepts ${redirectUri}, and its code only with that exact URI`, async () => {
        const { verifier, challenge } = pkce();
        const page = await use().app.inject({
          method: 'GET',
          url: authorizeUrl(authorizeFields({ clientId: desktop.clientId, challenge, redirectUri })),
          headers: { cookie: cookies },
        });
        expect(page.statusCode).toBe(200);
        expect(page.headers['content-security-policy']).toContain(`form-action 'self' ${new URL(redirectUri).origin}`);
        const approved = await consent(use().app, cookies, { clientId: desktop.clientId, challenge, redirectUri });
        expect(`${approved.origin}${approved.pathname}`).toBe(redirectUri);
        const code = approved.searchParams.get('code')!;
        const exchange = (uri: string) =>
          tokenRequest(use().app, {
            grant_type: 'authorization_code',
            code,
            redirect_uri: uri,
            code_verifier: verifier,
            client_id: desktop.clientId,
          });
        const otherPort = new URL(redirectUri);
        otherPort.port = '40000';
        const refused = await exchange(otherPort.toString());
        expect(refused.statusCode).toBe(400);
        expect(refused.json().error).toBe('invalid_grant');
      });
    }

    it('exchanges a loopback code sent back with the port it was issued for', async () => {
      const { verifier, challenge } = pkce();
      const redirectUri = 'http://127.0.0.1:53682/callback';
      const approved = await consent(use().app, cookies, { clientId: desktop.clientId, challenge, redirectUri });
      const response = await tokenRequest(use().app, {
        grant_type: 'authorization_code',
        code: approved.searchParams.get('code')!,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: desktop.clientId,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().access_token).toMatch(/^svc_at_/);
    });

    const REFUSED: Array<[string, () => string, string]> = [
      ['another path on a loopback address', () => desktop.clientId, 'http://127.0.0.1:53682/other'],
      ['a trailing slash on a loopback address', () => desktop.clientId, 'http://127.0.0.1:53682/callback/'],
      ['a query on a loopback address', () => desktop.clientId, 'http://127.0.0.1:53682/callback?x=1'],
      ['https for a registered http loopback URI', () => desktop.clientId, 'https://127.0.0.1:53682/callback'],
      ['another loopback address', () => desktop.clientId, 'http://127.0.0.2:53682/callback'],
      ['127.0.0.1 spelled as a number', () => desktop.clientId, 'http://2130706433:53682/callback'],
      ['user information before another host', () => desktop.clientId, 'http://127.0.0.1:53682@evil.example/callback'],
      ['an empty port', () => desktop.clientId, 'http://127.0.0.1:/callback'],
      ['a port out of range', () => desktop.clientId, 'http://127.0.0.1:99999/callback'],
      ['a port with a leading zero', () => desktop.clientId, 'http://127.0.0.1:08080/callback'],
      ['a fragment', () => desktop.clientId, 'http://[::1]:53682/callback#x'],
      ['localhost with another port than registered', () => desktop.clientId, 'http://localhost:8766/callback'],
      ['localhost without the registered port', () => desktop.clientId, 'http://localhost/callback'],
      ['a non-loopback URI with a port', () => world.publicClient.clientId, 'https://app.example:8443/oauth/callback'],
      ['a non-loopback URI with its default port written out', () => world.publicClient.clientId, 'https://app.example:443/oauth/callback'],
    ];
    for (const [check, clientId, redirectUri] of REFUSED) {
      it(`refuses ${check} (${redirectUri}) on the page and the consent form, writing nothing`, async () => {
        const before = await counts(use());
        const fields = authorizeFields({ clientId: clientId(), challenge: pkce().challenge, redirectUri });
        const shown = await use().app.inject({ method: 'GET', url: authorizeUrl(fields), headers: { cookie: cookies } });
        const submitted = await use().app.inject({
          method: 'POST',
          url: '/v1/oauth/authorize',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
          payload: form({ ...fields, csrf_token: csrfOf(cookies), decision: 'approve' }),
        });
        for (const response of [shown, submitted]) {
          expect(response.statusCode).toBe(400);
          expect(response.headers.location).toBeUndefined();
          expect(response.body).toMatch(/redirect_uri does not match/);
        }
        expect(await counts(use())).toEqual(before);
      });
    }
  });

  describe('token', () => {
    async function freshCode(options: { platformId?: string } = {}) {
      const { verifier, challenge } = pkce();
      const redirect = await consent(use().app, cookies, { clientId: world.publicClient.clientId, challenge, ...options });
      return { code: redirect.searchParams.get('code')!, verifier };
    }
    const exchange = (code: string, verifier: string | undefined, extra: Record<string, string> = {}) =>
      tokenRequest(use().app, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        client_id: world.publicClient.clientId,
        ...(verifier === undefined ? {} : { code_verifier: verifier }),
        ...extra,
      });

    it('exchanges a code for a Bearer pair that works on brand routes', async () => {
      const { code, verifier } = await freshCode();
      const response = await exchange(code, verifier);
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = response.json();
      expect(body).toEqual({
        access_token: expect.stringMatching(/^svc_at_/),
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: expect.stringMatching(/^svc_rt_/),
        scope: 'brand',
      });
      const stored = await use().db.selectFrom('oauth_access_tokens').select('token_hash').execute();
      expect(stored.map((row) => row.token_hash)).not.toContain(body.access_token);
      const partners = await use().app.inject({
        method: 'GET',
        url: '/v1/partners',
        headers: { authorization: `Bearer ${body.access_token}` },
      });
      expect(partners.statusCode).toBe(200);
    });

    const expectGrantError = async (response: Awaited<ReturnType<typeof exchange>>, status: number, error: string, description: RegExp) => {
      expect(response.statusCode).toBe(status);
      expect(response.json()).toEqual({ error, error_description: expect.stringMatching(description) });
    };

    it('refuses a wrong code_verifier without spending the code: the app holding the verifier still redeems it', async () => {
      const { code, verifier } = await freshCode();
      const before = await counts(use());
      // Whoever intercepted the code sends it with a verifier of their own, and with another redirect URI.
      await expectGrantError(await exchange(code, pkce().verifier), 400, 'invalid_grant', /code verifier is invalid/);
      await expectGrantError(
        await exchange(code, pkce().verifier, { redirect_uri: 'https://evil.example/cb' }),
        400,
        'invalid_grant',
        /invalid/,
      );
      const after = await counts(use());
      expect([after.access, after.refresh]).toEqual([before.access, before.refresh]);
      const redeemed = await exchange(code, verifier);
      expect(redeemed.statusCode, redeemed.body).toBe(200);
      await expectGrantError(await exchange(code, verifier), 400, 'invalid_grant', /already used/);
    });

    it('refuses a missing code_verifier', async () => {
      const { code } = await freshCode();
      const before = await counts(use());
      await expectGrantError(await exchange(code, undefined), 400, 'invalid_grant', /code_verifier/);
      expect((await counts(use())).access).toBe(before.access);
    });

    it('refuses a replayed code and revokes the tokens it bought', async () => {
      const { code, verifier } = await freshCode();
      const first = (await exchange(code, verifier)).json();
      const before = await counts(use());
      await expectGrantError(await exchange(code, verifier), 400, 'invalid_grant', /already used/);
      expect((await counts(use())).access).toBe(before.access);
      const partners = await use().app.inject({
        method: 'GET',
        url: '/v1/partners',
        headers: { authorization: `Bearer ${first.access_token}` },
      });
      expect(partners.statusCode).toBe(401);
      expect(partners.json().error).toBe('unauthorized');
    });

    it('refuses an expired code', async () => {
      const { code, verifier } = await freshCode();
      await use()
        .db.updateTable('oauth_authorization_codes')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('used_at', 'is', null)
        .execute();
      const before = await counts(use());
      await expectGrantError(await exchange(code, verifier), 400, 'invalid_grant', /expired/);
      expect((await counts(use())).access).toBe(before.access);
    });

    it('refuses a code sent with another redirect URI as invalid_grant (RFC 6749 5.2), and one without it as invalid_request', async () => {
      const before = await counts(use());
      const other = await freshCode();
      await expectGrantError(
        await exchange(other.code, other.verifier, { redirect_uri: 'https://app.example/other' }),
        400,
        'invalid_grant',
        /redirect_uri.*differs/,
      );
      const missing = await freshCode();
      await expectGrantError(
        await exchange(missing.code, missing.verifier, { redirect_uri: '' }),
        400,
        'invalid_request',
        /Missing parameter: `redirect_uri`/,
      );
      const after = await counts(use());
      expect([after.access, after.refresh]).toEqual([before.access, before.refresh]);
    });

    it('refuses a code issued to client A when client B presents it, and it still works for A', async () => {
      const { code, verifier } = await freshCode();
      const { clientId, clientSecret } = world.confidentialClient;
      const before = await counts(use());
      await expectGrantError(
        await exchange(code, verifier, { client_id: clientId, client_secret: clientSecret! }),
        400,
        'invalid_grant',
        /authorization code is invalid/,
      );
      expect(await counts(use())).toEqual(before);
      expect((await exchange(code, verifier)).statusCode).toBe(200);
    });

    it('refuses an unknown client, a wrong client secret and a confidential client without its secret', async () => {
      const { code, verifier } = await freshCode();
      const before = await counts(use());
      await expectGrantError(await exchange(code, verifier, { client_id: 'no-such-client' }), 400, 'invalid_client', /client is invalid/);
      const confidential = world.confidentialClient;
      await expectGrantError(
        await tokenRequest(use().app, {
          grant_type: 'client_credentials',
          client_id: confidential.clientId,
          client_secret: 'svc_cs_wrong',
        }),
        400,
        'invalid_client',
        /client is invalid/,
      );
      const basic = Buffer.from(`${confidential.clientId}:wrong-secret`).toString('base64');
      const viaBasic = await tokenRequest(use().app, { grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` });
      await expectGrantError(viaBasic, 401, 'invalid_client', /client is invalid/);
      expect(viaBasic.headers['www-authenticate']).toMatch(/^Basic/);
      await expectGrantError(
        await tokenRequest(use().app, { grant_type: 'refresh_token', refresh_token: 'svc_rt_x', client_id: confidential.clientId }),
        400,
        'invalid_client',
        /client is invalid/,
      );
      expect(await counts(use())).toEqual(before);
    });

    it('refuses unsupported grant types, client credentials for public clients, and non-form bodies', async () => {
      const before = await counts(use());
      await expectGrantError(
        await tokenRequest(use().app, { grant_type: 'password', username: 'a', password: 'b', client_id: world.publicClient.clientId }),
        400,
        'unsupported_grant_type',
        /grant_type/,
      );
      await expectGrantError(
        await tokenRequest(use().app, { grant_type: 'urn:example:custom', client_id: world.publicClient.clientId }),
        400,
        'unsupported_grant_type',
        /grant_type/,
      );
      await expectGrantError(
        await tokenRequest(use().app, { grant_type: 'client_credentials', client_id: world.publicClient.clientId }),
        400,
        'invalid_client',
        /credentials/,
      );
      const json = await use().app.inject({
        method: 'POST',
        url: '/v1/oauth/token',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ grant_type: 'client_credentials' }),
      });
      await expectGrantError(json, 400, 'invalid_request', /x-www-form-urlencoded/);
      const repeated = await use().app.inject({
        method: 'POST',
        url: '/v1/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=authorization_code&grant_type=refresh_token',
      });
      await expectGrantError(repeated, 400, 'invalid_request', /grant_type must be sent once/);
      expect(await counts(use())).toEqual(before);
    });

    it('issues client-credentials tokens to a confidential client bound to a brand, with Basic credentials form-encoded', async () => {
      const { clientId, clientSecret } = world.confidentialClient;
      const encode = (value: string) =>
        encodeURIComponent(value).replace(/[-_.!~*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
      const basic = Buffer.from(`${encode(clientId)}:${encode(clientSecret!)}`).toString('base64');
      const response = await tokenRequest(use().app, { grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.refresh_token).toBeUndefined();
      const partners = await use().app.inject({
        method: 'GET',
        url: '/v1/partners',
        headers: { authorization: `Bearer ${body.access_token}` },
      });
      expect(partners.statusCode).toBe(200);
    });
  });

  describe('refresh, reuse and revocation', () => {
    const refresh = (refreshToken: string) =>
      tokenRequest(use().app, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: world.publicClient.clientId });
    const partnersWith = (token: string) =>
      use().app.inject({ method: 'GET', url: '/v1/partners', headers: { authorization: `Bearer ${token}` } });

    it('rotates, answers concurrent refreshes with one pair, and revokes the family when a rotated token comes back later', async () => {
      const first = await issueTokens(use().app, world);
      const [a, b] = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)]);
      expect(a.statusCode).toBe(200);
      expect(b.statusCode).toBe(200);
      expect(a.json().refresh_token).toBe(b.json().refresh_token);
      expect(a.json().access_token).toBe(b.json().access_token);
      const second = a.json();
      expect(second.refresh_token).not.toBe(first.refresh_token);

      // Past the grace window the rotated token is a stolen one.
      await use()
        .db.updateTable('oauth_refresh_tokens')
        .set({ rotated_at: new Date(Date.now() - 31_000) })
        .where('rotated_at', 'is not', null)
        .execute();
      const reused = await refresh(first.refresh_token);
      expect(reused.statusCode).toBe(400);
      expect(reused.json()).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/already used/) });
      expect((await partnersWith(second.access_token)).statusCode).toBe(401);
      expect((await refresh(second.refresh_token)).json().error).toBe('invalid_grant');
    });

    it('revokes an access token alone, and a refresh token with its whole grant (RFC 7009)', async () => {
      const pair = await issueTokens(use().app, world);
      expect((await partnersWith(pair.access_token)).statusCode).toBe(200);
      const revoke = (token: string, clientId = world.publicClient.clientId) =>
        use().app.inject({
          method: 'POST',
          url: '/v1/oauth/revoke',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: form({ token, client_id: clientId }),
        });

      // RFC 7009 2.1: a token issued to another client is refused, and stays valid.
      for (const token of [pair.access_token, pair.refresh_token]) {
        const byOther = await use().app.inject({
          method: 'POST',
          url: '/v1/oauth/revoke',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: form({ token, client_id: world.confidentialClient.clientId, client_secret: world.confidentialClient.clientSecret! }),
        });
        expect(byOther.statusCode).toBe(400);
        expect(byOther.json()).toEqual({ error: 'invalid_grant', error_description: 'the token was issued to another client' });
      }
      expect((await partnersWith(pair.access_token)).statusCode).toBe(200);

      expect((await revoke(pair.access_token)).statusCode).toBe(200);
      expect((await partnersWith(pair.access_token)).statusCode).toBe(401);
      const rotated = (await refresh(pair.refresh_token)).json();
      expect((await partnersWith(rotated.access_token)).statusCode).toBe(200);

      expect((await revoke(rotated.refresh_token)).statusCode).toBe(200);
      expect((await partnersWith(rotated.access_token)).statusCode).toBe(401);
      expect((await refresh(rotated.refresh_token)).json().error).toBe('invalid_grant');
      expect((await revoke('svc_rt_unknown')).statusCode).toBe(200);
      const unauthenticated = await revoke(pair.access_token, 'no-such-client');
      expect(unauthenticated.statusCode).toBe(401);
      expect(unauthenticated.json().error).toBe('invalid_client');
    });
  });

  describe('bearer tokens on brand routes', () => {
    it('gives 401 for unknown, malformed and expired tokens, and on the sync endpoint', async () => {
      const pair = await issueTokens(use().app, world);
      for (const token of [`svc_at_${'A'.repeat(43)}`, 'nonsense']) {
        const response = await use().app.inject({ method: 'GET', url: '/v1/partners', headers: { authorization: `Bearer ${token}` } });
        expect(response.statusCode).toBe(401);
        expect(response.json().error).toBe('unauthorized');
      }
      const sync = await use().app.inject({
        method: 'POST',
        url: '/v1/platform/brands',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${pair.access_token}` },
        payload: JSON.stringify({ brands: [] }),
      });
      expect(sync.statusCode).toBe(401);

      const fresh = await issueTokens(use().app, world);
      await use()
        .db.updateTable('oauth_access_tokens')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .execute();
      const expired = await use().app.inject({
        method: 'GET',
        url: '/v1/partners',
        headers: { authorization: `Bearer ${fresh.access_token}` },
      });
      expect(expired.statusCode).toBe(401);
    });

    describe('WWW-Authenticate challenge (RFC 6750 3)', () => {
      const BRAND_ROUTES = [
        '/v1/partners',
        '/v1/campaigns',
        '/v1/discover/partner/recommendations',
        '/v1/campaigns/offers?type=post-purchase',
      ];
      const CHALLENGE = 'Bearer realm="brand API"';
      const refusal = { error: 'unauthorized', message: expect.any(String), requestId: expect.any(String) };
      const call = (url: string, headers: Record<string, string> = {}) => use().app.inject({ method: 'GET', url, headers });

      it('challenges without an error attribute when no credentials were sent, on every brand route, keeping the JSON error', async () => {
        for (const url of BRAND_ROUTES) {
          const response = await call(url);
          expect(response.statusCode, url).toBe(401);
          expect(response.headers['www-authenticate'], url).toBe(CHALLENGE);
          expect(response.json(), url).toEqual(refusal);
        }
      });

      it('says invalid_token for an unknown, malformed, expired or revoked access token', async () => {
        const revoked = await issueTokens(use().app, world);
        await use().app.inject({
          method: 'POST',
          url: '/v1/oauth/revoke',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: form({ token: revoked.access_token, client_id: world.publicClient.clientId }),
        });
        const expired = await issueTokens(use().app, world);
        await use()
          .db.updateTable('oauth_access_tokens')
          .set({ expires_at: new Date(Date.now() - 1000) })
          .where('expires_at', '>', new Date())
          .execute();
        for (const authorization of [
          `Bearer svc_at_${'A'.repeat(43)}`,
          'Bearer nonsense',
          'Bearer !!',
          'bearer',
          `Bearer ${revoked.access_token}`,
          `Bearer ${expired.access_token}`,
        ]) {
          for (const url of BRAND_ROUTES) {
            const response = await call(url, { authorization });
            expect(response.statusCode, authorization).toBe(401);
            expect(response.headers['www-authenticate'], authorization).toMatch(
              /^Bearer realm="brand API", error="invalid_token", error_description="[^"\\]+"$/,
            );
            expect(response.json(), authorization).toEqual(refusal);
          }
        }
      });

      it('says invalid_request for credentials in the query or two credentials at once', async () => {
        const pair = await issueTokens(use().app, world);
        for (const [url, headers] of [
          [`/v1/partners?access_token=${pair.access_token}`, {}],
          ['/v1/partners', { authorization: `Bearer ${pair.access_token}`, 'x-api-key': world.brand.key }],
        ] as Array<[string, Record<string, string>]>) {
          const response = await call(url, headers);
          expect(response.statusCode).toBe(401);
          expect(response.headers['www-authenticate']).toMatch(
            /^Bearer realm="brand API", error="invalid_request", error_description="[^"\\]+"$/,
          );
          expect(response.json()).toEqual(refusal);
        }
      });

      it('challenges for Bearer without an error attribute when an X-Api-Key or another scheme failed (docs/oauth.md)', async () => {
        for (const headers of [
          { 'x-api-key': `svc_test_${'A'.repeat(43)}` } as Record<string, string>,
          { 'x-api-key': 'svc_live_whatever' },
          { 'x-api-key': world.platform.key },
          { authorization: `Basic ${Buffer.from('user:password').toString('base64')}` },
        ]) {
          const response = await call('/v1/partners', headers);
          expect(response.statusCode).toBe(401);
          expect(response.headers['www-authenticate']).toBe(CHALLENGE);
          expect(response.json()).toEqual(refusal);
        }
      });

      it('sends no challenge when the credentials are good', async () => {
        const pair = await issueTokens(use().app, world);
        for (const headers of [{ authorization: `Bearer ${pair.access_token}` }, { 'x-api-key': world.brand.key }] as Array<
          Record<string, string>
        >) {
          const response = await call('/v1/partners', headers);
          expect(response.statusCode).toBe(200);
          expect(response.headers['www-authenticate']).toBeUndefined();
        }
      });
    });
  });
});

describeEachDatabase(
  'OAuth refresh grace window of 5 s (OAUTH_REFRESH_GRACE_SECONDS)',
  (use) => {
    let world: World;
    beforeAll(async () => {
      world = await oauthWorld(use());
    });
    const refresh = (refreshToken: string) =>
      tokenRequest(use().app, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: world.publicClient.clientId });
    const rotatedAgo = (refreshToken: string, ms: number) =>
      use()
        .db.updateTable('oauth_refresh_tokens')
        .set({ rotated_at: new Date(Date.now() - ms) })
        .where('token_hash', '=', hashSecret(refreshToken))
        .execute();
    const partnersWith = (token: string) =>
      use().app.inject({ method: 'GET', url: '/v1/partners', headers: { authorization: `Bearer ${token}` } });

    it('answers a rotated token with the same pair within 5 s, and revokes the grant once 5 s have passed', async () => {
      const first = await issueTokens(use().app, world);
      const second = (await refresh(first.refresh_token)).json();
      // Half the window, so the refresh below comes within it however late a loaded machine sends it.
      await rotatedAgo(first.refresh_token, 2_500);
      const within = await refresh(first.refresh_token);
      expect(within.statusCode).toBe(200);
      expect(within.json().refresh_token).toBe(second.refresh_token);

      await rotatedAgo(first.refresh_token, 5_000);
      const after = await refresh(first.refresh_token);
      expect(after.statusCode).toBe(400);
      expect(after.json()).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/already used/) });
      expect((await partnersWith(second.access_token)).statusCode).toBe(401);
    });

    it('with 0, treats any second use of a rotated token as theft', async () => {
      const first = await issueTokens(use().app, world);
      const second = (await refresh(first.refresh_token)).json();
      const model = createOAuthModel({ db: use().db, onRevoked: async () => {}, refreshGraceSeconds: 0 });
      await expect(model.getRefreshToken(first.refresh_token)).rejects.toThrow(/already used/);
      expect((await refresh(second.refresh_token)).json().error).toBe('invalid_grant');
    });
  },
  { OAUTH_REFRESH_GRACE_SECONDS: '5' },
);

describe('OAuth endpoints over the rate limit', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await startTestApp('postgres', { RATE_LIMIT_PER_MINUTE: '2' });
  });
  afterAll(async () => {
    await stopTestApp(context);
  });

  it('answers 429 with Retry-After and an RFC 6749 shaped body, not 400', async () => {
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof tokenRequest>> | undefined;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await tokenRequest(context.app, {
        grant_type: 'client_credentials',
        client_id: 'no-such-client',
        client_secret: 'x',
      });
      statuses.push(response.statusCode);
      limited = response;
    }
    expect(statuses).toEqual([400, 400, 429]);
    expect(limited!.json()).toEqual({
      error: 'rate_limited',
      error_description: expect.stringMatching(/rate limit of 2 requests per minute exceeded/),
    });
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited!.headers['ratelimit-limit']).toBe('2');
    expect(limited!.headers['ratelimit-remaining']).toBe('0');

    const revoke = await context.app.inject({
      method: 'POST',
      url: '/v1/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ token: 'svc_at_x', client_id: 'no-such-client' }),
    });
    expect(revoke.statusCode).toBe(429);
    expect(revoke.json().error).toBe('rate_limited');
    expect(revoke.headers['retry-after']).toBeDefined();
  });
});

describe('OAuth endpoints while PostgreSQL is unreachable', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    proxy = await TcpProxy.start({ host: new URL(TEST_POSTGRES_URL).hostname, port: Number(new URL(TEST_POSTGRES_URL).port || 5432) });
    const proxiedUrl = new URL(database.url!);
    proxiedUrl.hostname = '127.0.0.1';
    proxiedUrl.port = String(proxy.port);
    const proxied = await openDatabase({ databaseUrl: proxiedUrl.toString(), poolSize: 2, bounds: TEST_DATABASE_BOUNDS });
    app = await buildApp({ config: testConfig({ DATABASE_URL: proxiedUrl.toString() }), database: proxied });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.cut();
    await database?.close();
  });

  it('answers 503 temporarily_unavailable with Retry-After on the token and revocation endpoints, RFC 6749 shaped', async () => {
    const client = await registerOAuthClient(
      { db: database.db, serviceEnv: 'test' },
      {
        name: 'Outage App',
        redirectUris: [REDIRECT_URI],
        confidential: true,
        companyId: (await createBrand({ db: database.db, bus: app.runtime.bus, serviceEnv: 'test' })).companyId,
      },
    );
    const credentials = { client_id: client.clientId, client_secret: client.clientSecret! };
    expect((await tokenRequest(app, { grant_type: 'client_credentials', ...credentials })).statusCode).toBe(200);

    await proxy.cut();
    const token = await tokenRequest(app, { grant_type: 'client_credentials', ...credentials });
    expect(token.statusCode).toBe(503);
    expect(token.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    expect(token.headers['retry-after']).toBe('5');
    expect(token.headers['cache-control']).toBe('no-store');

    const revoke = await app.inject({
      method: 'POST',
      url: '/v1/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ token: 'svc_at_x', ...credentials }),
    });
    expect(revoke.statusCode).toBe(503);
    expect(revoke.json().error).toBe('temporarily_unavailable');
    expect(revoke.headers['retry-after']).toBe('5');
  });
});
