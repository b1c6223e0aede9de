import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import * as client from 'openid-client';
import { axeViolations } from '../../test/support/axe.js';
import type { Browser } from 'playwright-core';
import { ADMIN_TOKEN, type TestContext } from '../../test/support/harness.js';
import { seedPartnerOffer } from '../../test/durability/seed.js';
import { createBrandUser } from '../accounts/users.js';
import { registerOAuthClient } from './clients.js';
import { createBrand, createPlatform, uniqueId } from '../../test/support/factories.js';
import { PASSWORD } from '../../test/support/oauth-flow.js';

/**
 * The whole flow as a third-party app lives it: openid-client (which nobody here wrote) discovers
 * the server from its metadata, and a real Chromium signs in and consents.
 */
describe('OAuth end to end with openid-client and Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;
  const redirectUri = 'http://127.0.0.1:1/callback';

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres'));
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  it('discovers, authorizes with PKCE in a browser, calls brand routes, refreshes, detects reuse and revokes', async () => {
    const brand = await createBrand(context.support, { businessName: 'Sunrise Coffee' });
    const email = `${uniqueId('owner')}@sunrise.example`;
    await createBrandUser({ db: context.db }, brand.companyId, { email, password: PASSWORD });
    // An active campaign with a live partner offer, so the platform-bound token is shown real offers.
    const partner = await seedPartnerOffer(context.support, brand.companyId, { title: 'Half-price pour-over kit' });
    const platform = await createPlatform(context.support);
    const otherPlatform = await createPlatform(context.support);
    const registered = await registerOAuthClient(
      { db: context.db, serviceEnv: context.config.serviceEnv },
      { name: 'Thankyou Page Pro', redirectUris: [redirectUri], confidential: false },
    );

    const config = await client.discovery(new URL(baseUrl), registered.clientId, undefined, client.None(), {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });
    expect(config.serverMetadata().token_endpoint).toBe(`${baseUrl}/v1/oauth/token`);

    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const authorizationUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'brand',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      platform_id: platform.platformId,
    });

    const browserContext = await browser.newContext();
    const page = await browserContext.newPage();
    await page.goto(authorizationUrl.href);
    await expect(page.getByRole('heading', { name: 'Sign in to your brand' }).isVisible()).resolves.toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { name: 'Allow Thankyou Page Pro to access Sunrise Coffee?' }).waitFor();
    const platformName = (
      await context.db.selectFrom('platforms').select('name').where('id', '=', platform.platformId).executeTakeFirstOrThrow()
    ).name;
    await expect(page.locator('dl').innerText()).resolves.toContain(platformName);
    expect(await axeViolations(page)).toEqual([]);
    // The browser is sent on to the app's redirect URI with the code; nothing listens there.
    const sentBack = page.waitForRequest((request) => request.url().startsWith(`${redirectUri}?`));
    await page.getByRole('button', { name: 'Allow' }).click();
    const callback = (await sentBack).url();
    await browserContext.close();

    const first = await client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state });
    expect(first.token_type).toBe('bearer');
    expect(first.expires_in).toBe(3600);
    expect(first.scope).toBe('brand');

    const call = (path: string, token: string, headers: Record<string, string> = {}) =>
      fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    expect((await call('/v1/partners', first.access_token)).status).toBe(200);
    const offers = await call('/v1/campaigns/offers?type=post-purchase', first.access_token);
    expect(offers.status).toBe(200);
    const { offers: shown } = (await offers.json()) as { offers: Array<{ title: string; referralUrl: string; imageUrl: string }> };
    expect(shown).toEqual([
      {
        title: partner.title,
        subtitle: expect.any(String),
        imageUrl: expect.stringMatching(/^https:\/\//),
        referralUrl: expect.stringMatching(new RegExp(`^${baseUrl}/r/`)),
      },
    ]);
    // The view is credited to the platform the token carries.
    const stats = await context.app.inject({
      method: 'GET',
      url: `/admin/platforms/${platform.platformId}/stats`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(stats.json()).toMatchObject({ views: 1 });
    expect(
      (await call('/v1/campaigns/offers?type=post-purchase', first.access_token, { 'x-platform-id': platform.platformId })).status,
    ).toBe(200);
    const mismatch = await call('/v1/campaigns/offers?type=post-purchase', first.access_token, {
      'x-platform-id': otherPlatform.platformId,
    });
    expect(mismatch.status).toBe(400);
    expect((await mismatch.json()).error).toBe('platform_mismatch');

    const second = await client.refreshTokenGrant(config, first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await call('/v1/partners', second.access_token)).status).toBe(200);

    await client.tokenRevocation(config, second.access_token);
    expect((await call('/v1/partners', second.access_token)).status).toBe(401);

    // The old refresh token comes back after the grace window: the whole family goes.
    await context.db
      .updateTable('oauth_refresh_tokens')
      .set({ rotated_at: new Date(Date.now() - 60_000) })
      .where('rotated_at', 'is not', null)
      .execute();
    await expect(client.refreshTokenGrant(config, first.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(config, second.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await call('/v1/partners', first.access_token)).status).toBe(401);
  });
});
