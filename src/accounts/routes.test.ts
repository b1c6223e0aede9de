import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachDatabase, startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { csrfOf, form, mergeCookies, PASSWORD, signIn } from '../../test/support/oauth-flow.js';
import { createBrandUser } from './users.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describeEachDatabase('brand staff accounts', (use) => {
  let companyId: string;
  let email: string;

  beforeAll(async () => {
    ({ companyId } = await createBrand(use().support, { businessName: 'Acme Socks' }));
    email = `${uniqueId('staff')}@acme.example`;
    await createBrandUser({ db: use().db }, companyId, { email, password: PASSWORD });
  });

  const users = () => use().db.selectFrom('brand_users').selectAll().orderBy('email').execute();
  const createUser = (body: unknown, company = companyId) =>
    use().app.inject({
      method: 'POST',
      url: `/admin/companies/${company}/users`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  describe('admin API', () => {
    it('creates a user with an Argon2id hash and never returns or stores the password', async () => {
      const response = await createUser({ email: '  New.Person@Acme.example ', password: 'a long enough secret' });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({ userId: expect.any(String), companyId, email: 'new.person@acme.example' });
      const row = (await users()).find((user) => user.email === 'new.person@acme.example');
      expect(row?.password_hash).toMatch(/^\$argon2id\$/);
      expect(row?.password_hash).not.toContain('a long enough secret');
      const list = await use().app.inject({ method: 'GET', url: `/admin/companies/${companyId}/users`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(list.json().data.map((user: { email: string }) => user.email)).toContain('new.person@acme.example');
    });

    const refusals: Array<[string, unknown, string | undefined, number, string, RegExp]> = [
      ['a short password', { email: 'short@acme.example', password: 'short' }, undefined, 400, 'invalid_request', /password/],
      ['a bad email', { email: 'not-an-email', password: 'a long enough secret' }, undefined, 400, 'invalid_request', /email/],
      ['an unknown field', { email: 'x@acme.example', password: 'a long enough secret', admin: true }, undefined, 400, 'invalid_request', /unknown field admin/],
      ['an unknown company', { email: 'ghost@acme.example', password: 'a long enough secret' }, 'no-such-company', 404, 'not_found', /no company/],
    ];
    for (const [check, body, company, status, error, message] of refusals) {
      it(`refuses ${check}, writing nothing`, async () => {
        const before = await users();
        const response = await createUser(body, company);
        expect(response.statusCode).toBe(status);
        expect(response.json()).toMatchObject({ error, message: expect.stringMatching(message) });
        expect(await users()).toEqual(before);
      });
    }

    it('refuses an email already in use with 409, writing nothing', async () => {
      const before = await users();
      const response = await createUser({ email: email.toUpperCase(), password: 'a long enough secret' });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ error: 'email_taken' });
      expect(await users()).toEqual(before);
    });

    it('needs the admin token', async () => {
      const before = await users();
      const response = await use().app.inject({
        method: 'POST',
        url: `/admin/companies/${companyId}/users`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ email: 'nope@acme.example', password: 'a long enough secret' }),
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('unauthorized');
      expect(await users()).toEqual(before);
    });
  });

  describe('sign-in', () => {
    it('sets an httpOnly SameSite=Lax session cookie (not Secure over http) and shows who is signed in', async () => {
      const page = await use().app.inject({ method: 'GET', url: '/account/sign-in' });
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.body).toContain('<label for="password">Password</label>');
      const cookies = mergeCookies('', page);
      const response = await use().app.inject({
        method: 'POST',
        url: '/account/sign-in',
        headers: { ...FORM, cookie: cookies },
        payload: form({ csrf_token: csrfOf(cookies), email, password: PASSWORD, return_to: '/account' }),
      });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/account');
      const session = response.cookies.find((cookie) => cookie.name === 'svc_session')!;
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      expect(session.secure).toBeFalsy();
      const stored = await use().db.selectFrom('user_sessions').select('token_hash').execute();
      expect(stored.map((row) => row.token_hash)).not.toContain(session.value);
      const account = await use().app.inject({ method: 'GET', url: '/account', headers: { cookie: mergeCookies(cookies, response) } });
      expect(account.body).toContain(email);
      expect(account.body).toContain('Acme Socks');
    });

    it('signs out, ending the session', async () => {
      const cookies = await signIn(use().app, email);
      const out = await use().app.inject({ method: 'POST', url: '/account/sign-out', headers: { ...FORM, cookie: cookies }, payload: form({ csrf_token: csrfOf(cookies) }) });
      expect(out.statusCode).toBe(303);
      const account = await use().app.inject({ method: 'GET', url: '/account', headers: { cookie: cookies } });
      expect(account.statusCode).toBe(303);
      expect(account.headers.location).toBe('/account/sign-in');
    });

    it('refuses a wrong password without saying whether the email exists, and never redirects off-site', async () => {
      const page = await use().app.inject({ method: 'GET', url: '/account/sign-in' });
      const cookies = mergeCookies('', page);
      const attempt = (who: string, returnTo: string) =>
        use().app.inject({
          method: 'POST',
          url: '/account/sign-in',
          headers: { ...FORM, cookie: cookies },
          payload: form({ csrf_token: csrfOf(cookies), email: who, password: 'wrong password!', return_to: returnTo }),
        });
      const sessionsBefore = await use().db.selectFrom('user_sessions').select('id').execute();
      const known = await attempt(`other-${email}`, 'https://evil.example/');
      const unknown = await attempt(`nobody-${uniqueId('x')}@acme.example`, '//evil.example/');
      for (const response of [known, unknown]) {
        expect(response.statusCode).toBe(401);
        expect(response.body).toContain('The email or password is not correct.');
        expect(response.body).toContain('name="return_to" value="/account"');
      }
      expect(await use().db.selectFrom('user_sessions').select('id').execute()).toEqual(sessionsBefore);
    });

    it('refuses a form without its CSRF token or from another origin', async () => {
      const page = await use().app.inject({ method: 'GET', url: '/account/sign-in' });
      const cookies = mergeCookies('', page);
      const sessionsBefore = await use().db.selectFrom('user_sessions').select('id').execute();
      const forged = await use().app.inject({
        method: 'POST',
        url: '/account/sign-in',
        headers: { ...FORM, cookie: cookies },
        payload: form({ csrf_token: 'forged', email, password: PASSWORD }),
      });
      const crossSite = await use().app.inject({
        method: 'POST',
        url: '/account/sign-in',
        headers: { ...FORM, cookie: cookies, origin: 'https://evil.example' },
        payload: form({ csrf_token: csrfOf(cookies), email, password: PASSWORD }),
      });
      expect(forged.statusCode).toBe(403);
      expect(crossSite.statusCode).toBe(403);
      expect(await use().db.selectFrom('user_sessions').select('id').execute()).toEqual(sessionsBefore);
    });

    it('locks an email out after 5 failures with 429 and Retry-After, even with the right password', async () => {
      const victim = `${uniqueId('victim')}@acme.example`;
      await createBrandUser({ db: use().db }, companyId, { email: victim, password: PASSWORD });
      const page = await use().app.inject({ method: 'GET', url: '/account/sign-in' });
      const cookies = mergeCookies('', page);
      const attempt = (password: string) =>
        use().app.inject({
          method: 'POST',
          url: '/account/sign-in',
          headers: { ...FORM, cookie: cookies },
          payload: form({ csrf_token: csrfOf(cookies), email: victim, password }),
        });
      for (let i = 0; i < 5; i++) expect((await attempt(`wrong guess ${i}`)).statusCode).toBe(401);
      const locked = await attempt(PASSWORD);
      expect(locked.statusCode).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
      expect(locked.body).toContain('Too many failed sign-ins');
      expect(locked.cookies.find((cookie) => cookie.name === 'svc_session')).toBeUndefined();
    });
  });
});

describe('session cookies over HTTPS', () => {
  it('are Secure when BASE_URL is https', async () => {
    let context: TestContext | undefined;
    try {
      context = await startTestApp('pglite', { BASE_URL: 'https://svc.example' });
      const { companyId } = await createBrand(context.support);
      const email = `${uniqueId('secure')}@acme.example`;
      await createBrandUser({ db: context.db }, companyId, { email, password: PASSWORD });
      const page = await context.app.inject({ method: 'GET', url: '/account/sign-in' });
      expect(page.cookies.find((cookie) => cookie.name === 'svc_csrf')?.secure).toBe(true);
      const cookies = mergeCookies('', page);
      const response = await context.app.inject({
        method: 'POST',
        url: '/account/sign-in',
        headers: { ...FORM, cookie: cookies, origin: 'https://svc.example' },
        payload: form({ csrf_token: csrfOf(cookies), email, password: PASSWORD }),
      });
      expect(response.statusCode).toBe(303);
      expect(response.cookies.find((cookie) => cookie.name === 'svc_session')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });
    } finally {
      if (context) await stopTestApp(context);
    }
  }, 90_000);
});
