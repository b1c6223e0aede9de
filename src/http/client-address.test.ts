import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { createBrandUser } from '../accounts/users.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.js';
import { describeEachDatabase, testConfig, type TestContext } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { csrfOf, form, mergeCookies, PASSWORD } from '../../test/support/oauth-flow.js';
import { isLoopbackAddress } from './client-address.js';

/** The address of the load balancer in front of the service, in the tests that trust it. */
const LOAD_BALANCER = '10.0.0.1';
const forwardedFor = (chain: string) => ({ 'x-forwarded-for': chain });
/** A new client address in X-Forwarded-For for each request: what the hostile review rotated. */
const rotating = (i: number) => forwardedFor(`198.51.100.${i}`);

type Headers = Record<string, string>;

const click = (context: TestContext, remoteAddress: string, headers: Headers) =>
  context.app.inject({ method: 'GET', url: '/r/AAAAAAAAAAAAAAAAAAAAAA', remoteAddress, headers });

async function signInAttempt(context: TestContext, email: string, password: string, remoteAddress: string, headers: Headers = {}) {
  const page = await context.app.inject({ method: 'GET', url: '/account/sign-in', remoteAddress, headers });
  const cookies = mergeCookies('', page);
  return context.app.inject({
    method: 'POST',
    url: '/account/sign-in',
    remoteAddress,
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
    payload: form({ csrf_token: csrfOf(cookies), email, password }),
  });
}

async function resetRequest(context: TestContext, email: string, remoteAddress: string, headers: Headers = {}) {
  const session = await context.app.inject({ method: 'GET', url: '/dashboard/api/session', remoteAddress, headers });
  const cookies = mergeCookies('', session);
  return context.app.inject({
    method: 'POST',
    url: '/dashboard/api/password-reset',
    remoteAddress,
    headers: { ...headers, cookie: cookies, 'x-csrf-token': csrfOf(cookies), 'content-type': 'application/json' },
    payload: JSON.stringify({ email }),
  });
}

/** Requests until one is refused; returns how many were answered before it (the limit is 5 here). */
async function answeredBeforeRefusal(send: (i: number) => Promise<{ statusCode: number }>): Promise<number> {
  for (let i = 1; i <= 20; i += 1) if ((await send(i)).statusCode === 429) return i - 1;
  return Infinity;
}

describeEachDatabase(
  "TRUST_PROXY unset: X-Forwarded-For is nobody's word",
  (use) => {
    it('counts referral clicks per peer however the header rotates', async () => {
      expect(await answeredBeforeRefusal((i) => click(use(), '203.0.113.1', rotating(i)))).toBe(5);
      expect((await click(use(), '203.0.113.2', rotating(1))).statusCode).toBe(404);
    });

    it('counts an anonymous route (the staff sign-in page) per peer however the header rotates', async () => {
      const page = (i: number) =>
        use().app.inject({ method: 'GET', url: '/account/sign-in', remoteAddress: '203.0.113.3', headers: rotating(i) });
      expect(await answeredBeforeRefusal(page)).toBe(5);
    });
  },
  { RATE_LIMIT_PER_MINUTE: '5' },
);

describeEachDatabase('TRUST_PROXY unset: sign-in and reset budgets count the peer', (use) => {
  let companyId: string;
  beforeAll(async () => {
    ({ companyId } = await createBrand(use().support));
  });

  it(`refuses a peer its 51st failed sign-in across accounts however the header rotates, even \
with the right password; another peer signs in`, async () => {
    const email = `${uniqueId('staff')}@spray.example`;
    await createBrandUser({ db: use().db }, companyId, { email, password: PASSWORD });
    const sprayer = '203.0.113.10';
    for (let i = 1; i <= 50; i += 1) {
      expect((await signInAttempt(use(), `${uniqueId('guess')}@spray.example`, 'Spring2026!', sprayer, rotating(i))).statusCode).toBe(401);
    }
    const refused = await signInAttempt(use(), email, PASSWORD, sprayer, rotating(51));
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toMatch(/Too many failed sign-ins from your network\. Try again in 1[45] minutes\./);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(900);
    expect((await signInAttempt(use(), email, PASSWORD, '203.0.113.11')).statusCode).toBe(303);
  });

  it(`refuses a peer its 11th password reset request however the header rotates: \
429 with Retry-After, nothing written, no mail`, async () => {
    const email = `${uniqueId('staff')}@reset.example`;
    await createBrandUser({ db: use().db }, companyId, { email, password: PASSWORD });
    const requester = '203.0.113.12';
    for (let i = 1; i <= 10; i += 1) {
      expect((await resetRequest(use(), i === 1 ? email : `${uniqueId('nobody')}@reset.example`, requester, rotating(i))).statusCode).toBe(
        202,
      );
    }
    const written = async () => ({
      resets: await use().db.selectFrom('password_resets').select('token_hash').orderBy('token_hash').execute(),
      requests: await use().db.selectFrom('password_reset_requests').select('id').orderBy('id').execute(),
    });
    const before = await written();
    const refused = await resetRequest(use(), email, requester, rotating(11));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(/^Too many password reset requests from your network\. Try again in 1[45] minutes\.$/),
      requestId: expect.any(String),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
    expect(await written()).toEqual(before);
    expect((await resetRequest(use(), email, '203.0.113.13')).statusCode).toBe(202);
  });
});

describeEachDatabase(
  'TRUST_PROXY naming the load balancer',
  (use) => {
    it(`counts each client the load balancer names on its own, from the right end of the \
chain, and ignores the header from any other peer`, async () => {
      expect(await answeredBeforeRefusal((i) => click(use(), LOAD_BALANCER, forwardedFor(`192.0.2.${i}, 198.51.100.20`)))).toBe(5);
      expect((await click(use(), LOAD_BALANCER, forwardedFor('198.51.100.21'))).statusCode).toBe(404);
      // Straight to the instance, past the load balancer: the header names nobody.
      expect(await answeredBeforeRefusal((i) => click(use(), '203.0.113.30', rotating(i)))).toBe(5);
    });
  },
  { TRUST_PROXY: LOAD_BALANCER, RATE_LIMIT_PER_MINUTE: '5' },
);

describeEachDatabase(
  'TRUST_PROXY as a number of proxies',
  (use) => {
    it('takes the client that many hops back, whatever was written before it', async () => {
      const viaTwoProxies = (client: string, i: number) => forwardedFor(`192.0.2.${i}, ${client}, 10.0.0.7`);
      expect(await answeredBeforeRefusal((i) => click(use(), LOAD_BALANCER, viaTwoProxies('198.51.100.40', i)))).toBe(5);
      expect((await click(use(), LOAD_BALANCER, viaTwoProxies('198.51.100.41', 1))).statusCode).toBe(404);
    });
  },
  { TRUST_PROXY: '2', RATE_LIMIT_PER_MINUTE: '5' },
);

describe('the client address in the request log', () => {
  let database: TestDatabase;
  const lines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database.close();
  });

  async function loggedAddresses(env: Record<string, string>, remoteAddress: string, headers: Headers): Promise<string[]> {
    lines.length = 0;
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp({ config: testConfig({ LOG_LEVEL: 'info', ...env }), database, logStream });
    try {
      await app.ready();
      await app.inject({ method: 'GET', url: '/healthz', remoteAddress, headers });
    } finally {
      await app.close();
    }
    return lines.flatMap((line) => {
      const address = (JSON.parse(line) as { req?: { remoteAddress?: string } }).req?.remoteAddress;
      return address === undefined ? [] : [address];
    });
  }

  it("is the peer's when TRUST_PROXY is unset, and the one the trusted load balancer names when it is set", async () => {
    expect(await loggedAddresses({}, '203.0.113.50', forwardedFor('198.51.100.50'))).toEqual(['203.0.113.50']);
    expect(await loggedAddresses({ TRUST_PROXY: '203.0.113.50' }, '203.0.113.50', forwardedFor('192.0.2.1, 198.51.100.50'))).toEqual([
      '198.51.100.50',
    ]);
  });
});

describe('isLoopbackAddress', () => {
  it('knows 127.0.0.0/8 and ::1, also IPv4-mapped, and nothing else', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.2'])
      expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of [undefined, '', '10.0.0.1', '128.0.0.1', '::ffff:10.0.0.1', '::2', 'localhost', '0.0.0.0', '::'])
      expect(isLoopbackAddress(address), String(address)).toBe(false);
  });
});
