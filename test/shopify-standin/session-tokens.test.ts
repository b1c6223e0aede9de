import { InvalidJwtError } from '@shopify/shopify-api';
import { describe, expect, it } from 'vitest';
import { SESSION_TOKEN_LIFETIME_SECONDS, verifySessionToken } from './session-tokens.js';
import { shopifyLibraryFor } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';

const SHOP = 'juniper-row.myshopify.com';

/**
 * The stand-in's session tokens are Shopify's: the official library's `session.decodeSessionToken`
 * (jose, HS256, the app's secret, its audience) takes the one the admin would give now and refuses
 * each variant a test uses to prove an app refuses them too.
 */
describe('Shopify stand-in: session tokens signed as Shopify signs them', () => {
  const standIn = new ShopifyStandIn();
  const shopify = shopifyLibraryFor(standIn, { hostName: 'app.test', scopes: ['read_products'] });
  standIn.createShop({ name: 'juniper-row', products: 1 });
  const clerk = standIn.addStaff(SHOP, { email: 'clerk@juniper-row.example', firstName: 'Casey', lastName: 'Clerk' });

  it('carries the store, the app, the staff member and one minute of life, and the library takes it', async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = standIn.sessionToken(SHOP, { staff: clerk, sessionId: 'admin-session-1' });
    const payload = await shopify.session.decodeSessionToken(token);
    expect(payload).toMatchObject({
      iss: `https://${SHOP}/admin`,
      dest: `https://${SHOP}`,
      aud: standIn.app.apiKey,
      sub: String(clerk.id),
      sid: 'admin-session-1',
    });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.nbf).toBe(payload.iat);
    expect(payload.exp).toBe(payload.iat + SESSION_TOKEN_LIFETIME_SECONDS);
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect((payload as unknown as { sig: string }).sig).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    // The library reads the session id an embedded app keys online sessions by from `dest` and `sub`.
    expect(shopify.session.getJwtSessionId(new URL(payload.dest).hostname, payload.sub)).toBe(`${SHOP}_${clerk.id}`);
  });

  it('names the store owner when a test names no staff member, and every token is unique', async () => {
    const owner = standIn.staffMember(SHOP);
    expect(owner.email).toBe('owner@juniper-row.example');
    const [first, second] = [standIn.sessionToken(SHOP), standIn.sessionToken(SHOP)];
    const payloads = await Promise.all([first, second].map((token) => shopify.session.decodeSessionToken(token)));
    expect(payloads.map((payload) => payload.sub)).toEqual([String(owner.id), String(owner.id)]);
    expect(payloads[0]!.jti).not.toBe(payloads[1]!.jti);
  });

  it.each([
    ['expired a minute ago', { expired: true }, /"exp" claim timestamp check failed/],
    ['signed with another secret', { secret: 'not-the-app-secret' }, /signature verification failed/],
    ['issued to another app', { audience: 'another-app-client-id' }, /invalid API key/],
  ])('makes a token the library refuses: %s', async (_name, variant, message) => {
    const token = standIn.sessionToken(SHOP, variant);
    const refusal = await shopify.session.decodeSessionToken(token).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InvalidJwtError);
    expect((refusal as Error).message).toMatch(message);
    expect(verifySessionToken(standIn.app, token, new Date())).toBeNull();
  });

  it('refuses, on its own side, a token whose payload was altered after signing', () => {
    const [header, body, signature] = standIn.sessionToken(SHOP).split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    expect(verifySessionToken(standIn.app, `${header}.${body}.${signature}`, new Date())).toMatchObject({ dest: `https://${SHOP}` });
    const altered = Buffer.from(JSON.stringify({ ...payload, dest: 'https://other.myshopify.com' })).toString('base64url');
    expect(verifySessionToken(standIn.app, `${header}.${altered}.${signature}`, new Date())).toBeNull();
  });
});
