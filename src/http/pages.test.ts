import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { pagePolicy, policyHeader } from './csp.js';
import { JsonScript, renderPage } from './page.js';
import { pageHelmetOptions } from './security-headers.js';

describe('page security headers', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await startTestApp('postgres');
  });
  afterAll(async () => {
    if (context) await stopTestApp(context);
  });
  const get = (url: string, headers: Record<string, string> = {}) => context.app.inject({ method: 'GET', url, headers });

  it('gives every page, and the files and forms around them, the same headers from one configuration', async () => {
    const assets = [...(await get('/dashboard')).body.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets).toHaveLength(2);
    const pages = [
      ...['/account/sign-in', '/v1/oauth/authorize', '/dashboard', '/dashboard/api/session', '/plugin/legal/terms', '/sandbox'],
      ...['/sandbox/shop/cozy-candles.example', '/r/not-a-token', '/docs', ...assets],
    ];
    for (const url of pages) {
      const response = await get(url);
      expect(response.statusCode, url).toBeLessThan(500);
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      expect(response.headers['cross-origin-resource-policy'], url).toBe('same-origin');
      expect(response.headers['content-security-policy'], url).toMatch(/^default-src 'none';.*base-uri 'none';frame-ancestors 'none'$/);
      expect(response.headers['referrer-policy'], url).toBe(url === '/docs' ? 'no-referrer' : 'same-origin');
      // A plain-http host is never pinned to https.
      expect(response.headers['strict-transport-security'], url).toBeUndefined();
    }
    // The sign-in and consent pages may be opened in an app's popup; the others are isolated.
    expect((await get('/account/sign-in')).headers['cross-origin-opener-policy']).toBeUndefined();
    expect((await get('/dashboard')).headers['cross-origin-opener-policy']).toBe('same-origin');
  });

  it('lets any site load the loader and store images, and frame the embed page as its policy says', async () => {
    for (const url of ['/plugin/v2.0.0/loader.js', '/plugin/v2.0.0/loader.js.sri', '/sandbox/images/cozy-candles.example/logo.svg']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cross-origin-resource-policy'], url).toBe('cross-origin');
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
    }
    const embed = await get(`/plugin/v2/embed?platformId=${crypto.randomUUID()}&domain=shop.example`, {
      referer: 'https://host.example/page',
      'sec-fetch-dest': 'iframe',
    });
    expect(embed.statusCode).toBe(200);
    expect(embed.headers['x-frame-options']).toBeUndefined();
    expect(embed.headers['content-security-policy']).toMatch(/frame-ancestors https:\/\/host\.example$/);
  });

  it('leaves the JSON API as it was: none of the page headers on the offers hot path', async () => {
    const response = await get('/v1/campaigns/offers?type=post-purchase');
    expect(response.statusCode).toBe(401);
    for (const header of ['content-security-policy', 'x-frame-options', 'x-content-type-options', 'cross-origin-resource-policy']) {
      expect(response.headers[header], header).toBeUndefined();
    }
  });

  it('escapes what a visitor typed wherever a page shows it', async () => {
    const hostile = '"><script>alert(1)</script>';
    const notAStore = await get(`/sandbox/stores/${encodeURIComponent(hostile)}`);
    expect(notAStore.statusCode).toBe(404);
    expect(notAStore.body).toContain('“&quot;>&lt;script>alert(1)&lt;/script>” is not a store domain');
    expect(notAStore.body).not.toContain('<script>alert');
    const shop = await get(`/sandbox/shop/cozy-candles.example?discount=${encodeURIComponent(hostile)}`);
    expect(shop.body).toContain('name="discount" value="&quot;>&lt;script>alert(1)&lt;/script>"');
    expect(shop.body).not.toContain('<script>alert');
  });

  it('sends HSTS for a year on an https host', () => {
    expect(pageHelmetOptions('https://svc.example').strictTransportSecurity).toEqual({ maxAge: 31_536_000, includeSubDomains: false });
    expect(pageHelmetOptions('http://svc.example').strictTransportSecurity).toBe(false);
  });
});

describe('the CSP builder', () => {
  it("adds a page's sources to the base, replaces a 'none', removes a directive for null, and writes frame-ancestors last", () => {
    const policy = pagePolicy({
      'script-src': ["'self'"],
      'form-action': ['https://app.example'],
      'frame-ancestors': ['https://a.example', 'https://b.example'],
    });
    expect(policyHeader(policy)).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self' https://app.example; base-uri 'none'; " +
        'frame-ancestors https://a.example https://b.example',
    );
    expect(pagePolicy({ 'frame-ancestors': [] })['frame-ancestors']).toEqual(["'none'"]);
    expect(pagePolicy({ 'form-action': null })).not.toHaveProperty('form-action');
  });
});

describe('JsonScript', () => {
  it('writes data that can never close its element or end a line of script', () => {
    const html = renderPage(JsonScript({ id: 'boot', value: { text: '</script><script>alert(1)</script>\u2028\u2029' } }));
    expect(html).toBe(
      '<!doctype html><script type="application/json" id="boot">' +
        '{"text":"\\u003c/script>\\u003cscript>alert(1)\\u003c/script>\\u2028\\u2029"}</script>',
    );
  });
});
