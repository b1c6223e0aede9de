import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, describeEachDatabase, startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { csrfOf, form, mergeCookies, PASSWORD, signIn } from '../../test/support/oauth-flow.js';
import { hashSecret, randomToken } from '../shared/keys.js';
import { insertPasswordReset } from './dal.js';
import { completePasswordReset } from './password-reset.js';
import { createBrandUser } from './users.js';
import { tableContents } from '../../test/support/snapshot.js';

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
      const list = await use().app.inject({
        method: 'GET',
        url: `/admin/companies/${companyId}/users`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(list.json().data.map((user: { email: string }) => user.email)).toContain('new.person@acme.example');
    });

    const refusals: Array<[string, unknown, string | undefined, number, string, RegExp]> = [
      ['a short password', { email: 'short@acme.example', password: 'short' }, undefined, 400, 'invalid_request', /password/],
      ['a bad email', { email: 'not-an-email', password: 'a long enough secret' }, undefined, 400, 'invalid_request', /email/],
      [
        'an unknown field',
        { email: 'x@acme.example', password: 'a long enough secret', admin: true },
        undefined,
        400,
        'invalid_request',
        /unknown field admin/,
      ],
      [
        'an unknown company',
        { email: 'ghost@acme.example', password: 'a long enough secret' },
        'no-such-company',
        404,
        'not_found',
        /no company/,
      ],
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
      const out = await use().app.inject({
        method: 'POST',
        url: '/account/sign-out',
        headers: { ...FORM, cookie: cookies },
        payload: form({ csrf_token: csrfOf(cookies) }),
      });
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
  });

  describe('sign-in throttling', () => {
    // The clock is frozen and moved by hand, so every wait is exact and no test depends on how fast
    // the machine is; each test uses its own accounts and addresses.
    let start = Date.now();
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['Date'] });
      start = Date.now();
      vi.setSystemTime(start);
    });
    afterEach(() => {
      vi.useRealTimers();
    });
    const advanceSeconds = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

    async function staffMember(): Promise<string> {
      const address = `${uniqueId('staff')}@acme.example`;
      await createBrandUser({ db: use().db }, companyId, { email: address, password: PASSWORD });
      return address;
    }

    async function attempt(who: string, password: string, remoteAddress: string, deviceCookie?: string) {
      const page = await use().app.inject({ method: 'GET', url: '/account/sign-in', remoteAddress });
      const cookies = mergeCookies(deviceCookie === undefined ? '' : `svc_device=${deviceCookie}`, page);
      return use().app.inject({
        method: 'POST',
        url: '/account/sign-in',
        remoteAddress,
        headers: { ...FORM, cookie: cookies },
        payload: form({ csrf_token: csrfOf(cookies), email: who, password }),
      });
    }

    const sessionCookie = (response: { cookies: Array<{ name: string }> }) =>
      response.cookies.find((cookie) => cookie.name === 'svc_session');

    it(`makes an account wait 1 s, 2 s, 4 s … at most 30 s after three failures (429 with Retry-After), \
then lets the right password in and starts over`, async () => {
      const victim = await staffMember();
      const from = '192.0.2.10';
      for (let i = 0; i < 3; i += 1) expect((await attempt(victim, `wrong guess ${i}`, from)).statusCode).toBe(401);
      const waiting = await attempt(victim, PASSWORD, from);
      expect(waiting.statusCode).toBe(429);
      expect(waiting.headers['retry-after']).toBe('1');
      expect(waiting.body).toContain('Too many failed sign-ins to this account. Try again in 1 second.');
      expect(sessionCookie(waiting)).toBeUndefined();

      // The dashboard's API tells the same wait in the API's error shape.
      const session = await use().app.inject({ method: 'GET', url: '/dashboard/api/session', remoteAddress: from });
      const cookies = mergeCookies('', session);
      const api = await use().app.inject({
        method: 'POST',
        url: '/dashboard/api/sign-in',
        remoteAddress: from,
        headers: { cookie: cookies, 'x-csrf-token': csrfOf(cookies), 'content-type': 'application/json' },
        payload: JSON.stringify({ email: victim, password: PASSWORD }),
      });
      expect(api.statusCode).toBe(429);
      expect(api.headers['retry-after']).toBe('1');
      expect(api.json()).toEqual({
        error: 'rate_limited',
        message: 'Too many failed sign-ins to this account. Try again in 1 second.',
        requestId: expect.any(String),
      });

      const waits: number[] = [];
      for (let i = 0; i < 6; i += 1) {
        advanceSeconds(Number((await attempt(victim, PASSWORD, from)).headers['retry-after']));
        expect((await attempt(victim, `wrong again ${i}`, from)).statusCode).toBe(401);
        waits.push(Number((await attempt(victim, PASSWORD, from)).headers['retry-after']));
      }
      expect(waits).toEqual([2, 4, 8, 16, 30, 30]);

      advanceSeconds(30);
      const owner = await attempt(victim, PASSWORD, from);
      expect(owner.statusCode).toBe(303);
      expect(sessionCookie(owner)).toBeDefined();
      // The success cleared the failures: three typos cost nothing again.
      for (let i = 0; i < 3; i += 1) expect((await attempt(victim, `typo ${i}`, from)).statusCode).toBe(401);
      expect((await attempt(victim, PASSWORD, from)).statusCode).toBe(429);
    });

    it('lets the owner in at once from their own address while an attacker keeps failing from many addresses', async () => {
      const victim = await staffMember();
      let failures = 0;
      for (let i = 1; failures < 20; i += 1) {
        const response = await attempt(victim, `spray ${i}`, `203.0.113.${i}`);
        expect(response.statusCode).toBe(401);
        failures += 1;
      }
      const signedIn = await attempt(victim, PASSWORD, '192.0.2.20');
      expect(signedIn.statusCode).toBe(303);
      expect(sessionCookie(signedIn)).toBeDefined();
    });

    it('the attacker’s rhythm of the review (two wrong passwords a minute, 40 in 17 minutes) never keeps the owner out', async () => {
      const victim = await staffMember();
      const attacker = '198.51.100.66';
      const owner = '192.0.2.21';
      const attackerAnswers: number[] = [];
      const ownerAnswers: number[] = [];
      // Every 25.5 s a wrong password from the attacker's address; every minute, right after one, the owner signs in
      // from theirs, and is never told to wait (before issue 23 the attacker's failure made them wait every time).
      for (let second = 0, sent = 0; sent < 40; second += 25.5, sent += 1) {
        vi.setSystemTime(start + second * 1000);
        attackerAnswers.push((await attempt(victim, `guess ${sent}`, attacker)).statusCode);
        if (sent % 2 === 1) {
          ownerAnswers.push((await attempt(victim, PASSWORD, owner)).statusCode);
        }
      }
      expect(ownerAnswers).toEqual(Array<number>(20).fill(303));
      // The attacker's own address is held back all the same.
      expect(attackerAnswers.filter((status) => status === 429).length).toBeGreaterThan(0);
      expect(attackerAnswers.every((status) => status === 401 || status === 429)).toBe(true);
    });

    it('a password reset clears the account’s waits at every address', async () => {
      const victim = await staffMember();
      const from = '192.0.2.40';
      for (let i = 0; i < 3; i += 1) expect((await attempt(victim, `wrong guess ${i}`, from)).statusCode).toBe(401);
      expect((await attempt(victim, PASSWORD, from)).statusCode).toBe(429);
      // The owner resets the password with the token mailed to them (made here as the request makes it).
      const token = randomToken(43);
      const user = await use().db.selectFrom('brand_users').select('id').where('email', '=', victim).executeTakeFirstOrThrow();
      await insertPasswordReset(use().db, { tokenHash: hashSecret(token), userId: user.id, expiresAt: new Date(Date.now() + 60_000) });
      await completePasswordReset({ db: use().db }, token, 'a brand new passphrase 42');
      const signedIn = await attempt(victim, 'a brand new passphrase 42', from);
      expect(signedIn.statusCode).toBe(303);
    });

    const deviceCookieOf = (response: { cookies: Array<{ name: string; value: string }> }) =>
      response.cookies.find((cookie) => cookie.name === 'svc_device');

    it(`bounds guesses at one account from 20 addresses (issue 44): untrusted clients share one budget, then wait \
(429, nothing written), while the owner's browser with its device cookie still signs in; a forged or altered cookie gives \
no budget`, async () => {
      const victim = await staffMember();
      // The owner signed in from this browser before: it holds a device cookie naming the account.
      const earlier = await attempt(victim, PASSWORD, '192.0.2.50');
      expect(earlier.statusCode).toBe(303);
      const device = earlier.cookies.find((cookie) => cookie.name === 'svc_device')!;
      expect(device).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
      expect(device.secure).toBeFalsy();
      expect(device.value).not.toContain(victim);

      // The review's attack: 20 addresses, three wrong passwords each (each address's free failures), 60 guesses.
      const answers: number[] = [];
      for (let round = 0; round < 3; round += 1) {
        for (let i = 1; i <= 20; i += 1) answers.push((await attempt(victim, `spray ${round}-${i}`, `198.51.100.${100 + i}`)).statusCode);
      }
      expect(answers).toEqual([...Array<number>(30).fill(401), ...Array<number>(30).fill(429)]);

      const before = await tableContents(use().db);
      const waiting = await attempt(victim, PASSWORD, '198.51.100.200');
      expect(waiting.statusCode).toBe(429);
      expect(Number(waiting.headers['retry-after'])).toBeGreaterThan(3000);
      expect(waiting.body).toContain('Too many failed sign-ins to this account from browsers it has not signed in with.');
      const [nonce, signature] = device.value.split('.') as [string, string];
      const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
      const forgeries = [
        `${randomToken(22)}.${'A'.repeat(43)}`,
        `${nonce}.${flipped}`,
        `${randomToken(22)}.${signature}`,
        `${nonce}.${signature}x`,
      ];
      for (const forged of forgeries) {
        const refused = await attempt(victim, PASSWORD, '198.51.100.201', forged);
        expect(refused.statusCode, forged).toBe(429);
        expect(sessionCookie(refused)).toBeUndefined();
        expect(deviceCookieOf(refused)).toBeUndefined();
      }
      // The dashboard's API refuses in its error shape.
      const session = await use().app.inject({ method: 'GET', url: '/dashboard/api/session', remoteAddress: '198.51.100.202' });
      const cookies = mergeCookies('', session);
      const api = await use().app.inject({
        method: 'POST',
        url: '/dashboard/api/sign-in',
        remoteAddress: '198.51.100.202',
        headers: { cookie: cookies, 'x-csrf-token': csrfOf(cookies), 'content-type': 'application/json' },
        payload: JSON.stringify({ email: victim, password: PASSWORD }),
      });
      expect(api.statusCode).toBe(429);
      expect(api.json()).toMatchObject({ error: 'rate_limited' });
      expect(Number(api.headers['retry-after'])).toBeGreaterThan(3000);
      expect(await tableContents(use().db)).toEqual(before);

      // The owner's browser keeps its own budget, wherever it is: a typo is only a typo, and the right password gets in.
      expect((await attempt(victim, 'a typo', '192.0.2.51', device.value)).statusCode).toBe(401);
      const owner = await attempt(victim, PASSWORD, '192.0.2.51', device.value);
      expect(owner.statusCode).toBe(303);
      expect(sessionCookie(owner)).toBeDefined();
      expect(deviceCookieOf(owner)?.value).toBe(device.value);
    });

    it('gives a burst of guesses sent at once from one address a single turn between them', async () => {
      const victim = await staffMember();
      const from = '192.0.2.30';
      for (let i = 0; i < 3; i += 1) expect((await attempt(victim, `wrong guess ${i}`, from)).statusCode).toBe(401);
      advanceSeconds(1);
      const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(victim, `burst ${i}`, from)));
      expect(burst.map((response) => response.statusCode).sort()).toEqual([401, ...Array<number>(9).fill(429)]);
    });
  });
});

describe('session cookies over HTTPS', () => {
  it('are Secure when BASE_URL is https', async () => {
    let context: TestContext | undefined;
    try {
      context = await startTestApp('postgres', { BASE_URL: 'https://svc.example' });
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
      expect(response.cookies.find((cookie) => cookie.name === 'svc_session')).toMatchObject({
        secure: true,
        httpOnly: true,
        sameSite: 'Lax',
      });
    } finally {
      if (context) await stopTestApp(context);
    }
  });
});
