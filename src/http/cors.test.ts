import { expect, it } from 'vitest';
import { describeEachDatabase } from '../../test/support/harness.js';
import { registeredRoutes } from '../../test/support/routes.js';

const EVIL = { origin: 'https://evil.example' };

/**
 * The routes other sites' scripts may read: the public API (the OAuth authorize page, which people
 * use, excepted), the OAuth metadata a browser app discovers it with, and the plugin loader's files.
 */
function openToOtherSites(path: string): boolean {
  if (path.startsWith('/v1/')) return !path.startsWith('/v1/oauth/authorize');
  return path === '/.well-known/oauth-authorization-server' || /^\/plugin\/v\d+\.\d+\.\d+\//.test(path);
}

/** A concrete path for a route pattern: each parameter and wildcard filled in. */
const concrete = (pattern: string) => pattern.replace(/:[A-Za-z0-9_]+/g, 'example').replace(/\*$/, 'anything');

describeEachDatabase('CORS', (use) => {
  it(`lets other sites read the public API and the loader files only: every other route \
answers a cross-origin request without CORS headers`, async () => {
    const routes = registeredRoutes(use().app).filter((route) => !route.startsWith('OPTIONS '));
    expect(routes.length).toBeGreaterThan(80);
    const readable: string[] = [];
    for (const route of routes) {
      const [method, pattern] = route.split(' ') as [string, string];
      const response = await use().app.inject({
        method: method as 'GET',
        url: concrete(pattern),
        headers: { ...EVIL, ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
        ...(method === 'GET' ? {} : { payload: '{}' }),
      });
      const allowOrigin = response.headers['access-control-allow-origin'];
      if (allowOrigin !== undefined) {
        expect(allowOrigin, route).toBe('*');
        readable.push(route);
      }
    }
    expect(readable.sort()).toEqual(routes.filter((route) => openToOtherSites(route.split(' ')[1]!)).sort());
    // What the hostile review read: the mailbox, the staff pages, the dashboard API and pages.
    for (const closed of [
      'GET /account/dev-mailbox',
      'GET /account/sign-in',
      'GET /dashboard/api/session',
      'POST /dashboard/api/password-reset',
      'GET /dashboard',
      'GET /v1/oauth/authorize',
    ]) {
      expect(routes, closed).toContain(closed);
      expect(readable, closed).not.toContain(closed);
    }
    for (const open of ['GET /v1/campaigns/offers', 'POST /v1/oauth/token', 'GET /plugin/v2.0.0/loader.js'])
      expect(readable, open).toContain(open);
  });

  it('answers preflights for the open routes only; another path gets 403 and no grant', async () => {
    const preflight = (url: string) =>
      use().app.inject({
        method: 'OPTIONS',
        url,
        headers: { ...EVIL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    for (const url of ['/v1/oauth/token', '/v1/platform/brands', '/v1/campaigns/offers?type=post-purchase']) {
      const response = await preflight(url);
      expect(response.statusCode, url).toBe(204);
      expect(response.headers['access-control-allow-origin'], url).toBe('*');
      expect(response.headers['access-control-allow-methods'], url).toBe('GET, POST, OPTIONS');
    }
    for (const url of [
      '/account/dev-mailbox',
      '/account/sign-in',
      '/dashboard/api/password-reset',
      '/dashboard/api/sign-in',
      '/v1/oauth/authorize',
      '/sandbox/stores/shop.example/sign-in',
      '/admin/companies',
      '/healthz',
      '/v1/no-such-route',
    ]) {
      const response = await preflight(url);
      expect(response.statusCode, url).toBe(403);
      expect(response.json(), url).toMatchObject({ error: 'forbidden', message: expect.stringContaining('own pages only') });
      expect(response.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(response.headers['access-control-allow-methods'], url).toBeUndefined();
    }
  });

  it('lets browser callers of the public API read its refusals and unknown paths, and nobody read those of other paths', async () => {
    for (const [url, readable] of [
      ['/v1/campaigns/offers?type=post-purchase', true],
      ['/v1/no-such-thing', true],
      ['/no-such-thing', false],
      ['/account/no-such-page', false],
    ] as const) {
      const response = await use().app.inject({ method: 'GET', url, headers: EVIL });
      expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(response.headers['access-control-allow-origin'], url).toBe(readable ? '*' : undefined);
    }
  });
});
