import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { buildApp, type App } from '../app.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.js';
import { describeEachDatabase, startTestApp, stopTestApp, testConfig } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { freePort, waitUntil } from '../../test/support/service-process.js';
import { DashboardClient, DASHBOARD_PASSWORD } from '../../test/support/dashboard-client.js';
import { createBrandUser } from './users.js';

const NEW_PASSWORD = 'a brand new long password';
/** The token is the mail's only line of 43 letters and digits. */
const tokenIn = (text: string) => /^([A-Za-z0-9]{43})\r?$/m.exec(text)?.[1];

/** The text as a mail client shows it: quoted-printable soft line breaks joined, escapes decoded. */
const decodeQuotedPrintable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));

const resetRows = (db: TestDatabase['db']) =>
  db.selectFrom('password_resets').select(['token_hash', 'used_at']).orderBy('token_hash').execute();

describeEachDatabase('password reset through the development mailbox', (use) => {
  let email: string;
  let account: DashboardClient;

  beforeAll(async () => {
    email = `${uniqueId('reset')}@mailbox.example`;
    account = new DashboardClient(use().app);
    await account.signUpBrand('Mailbox Co', `${uniqueId('mailbox')}.example`, email);
  });

  // The reset mails only: the address also got its sign-up's link.
  const mailTo = (recipient: string) =>
    use()
      .db.selectFrom('mail_outbox')
      .selectAll()
      .where('recipient', '=', recipient)
      .where('subject', '=', 'Reset your Partner Collaboration password')
      .orderBy('id')
      .execute();

  it('mails the token, stored hashed, never in the answer; the mailbox page shows it; the token works once', async () => {
    const visitor = await new DashboardClient(use().app).start();
    const requested = await visitor.post('/dashboard/api/password-reset', { email: email.toUpperCase() });
    expect(requested.statusCode).toBe(202);
    expect(requested.json()).toEqual({ requested: true });
    await waitUntil(async () => (await mailTo(email)).length === 1, 60_000);
    const [mail] = await mailTo(email);
    expect(mail!.subject).toBe('Reset your Partner Collaboration password');
    const token = tokenIn(mail!.body)!;
    expect(token).toHaveLength(43);
    expect(requested.body).not.toContain(token);
    expect((await resetRows(use().db)).map((row) => row.token_hash)).not.toContain(token);

    const page = await use().app.inject({ method: 'GET', url: '/account/dev-mailbox' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.body).toContain(email);
    expect(page.body).toContain(token);

    expect((await visitor.post('/dashboard/api/password-reset/confirm', { token, password: NEW_PASSWORD })).statusCode).toBe(200);
    const again = await visitor.post('/dashboard/api/password-reset/confirm', { token, password: 'yet another long password' });
    expect(again.json()).toMatchObject({ error: 'invalid_token' });
    // The reset ended the account's sessions; the new password signs in.
    expect((await account.get('/dashboard/api/session')).json().user).toBeNull();
    expect((await visitor.post('/dashboard/api/sign-in', { email, password: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('spends every reset token of the account when one of them sets the password', async () => {
    const visitor = await new DashboardClient(use().app).start();
    const earlier = (await mailTo(email)).length;
    for (let i = 0; i < 2; i += 1) expect((await visitor.post('/dashboard/api/password-reset', { email })).statusCode).toBe(202);
    await waitUntil(async () => (await mailTo(email)).length === earlier + 2, 60_000);
    const [older, newer] = (await mailTo(email)).slice(-2).map((mail) => tokenIn(mail.body)!);
    expect(
      (await visitor.post('/dashboard/api/password-reset/confirm', { token: newer, password: 'the password I chose last' })).statusCode,
    ).toBe(200);
    const stale = await visitor.post('/dashboard/api/password-reset/confirm', {
      token: older,
      password: 'an attacker holding the older mail',
    });
    expect(stale.statusCode).toBe(400);
    expect(stale.json()).toMatchObject({ error: 'invalid_token' });
    const unused = await use()
      .db.selectFrom('password_resets')
      .innerJoin('brand_users', 'brand_users.id', 'password_resets.user_id')
      .select('password_resets.token_hash')
      .where('brand_users.email', '=', email)
      .where('password_resets.used_at', 'is', null)
      .execute();
    expect(unused).toEqual([]);
    expect((await visitor.post('/dashboard/api/sign-in', { email, password: 'the password I chose last' })).statusCode).toBe(200);
  });

  it("opens the mailbox only to a browser on the machine running the service, and to no other site's script", async () => {
    const mailbox = (remoteAddress: string, headers: Record<string, string> = {}) =>
      use().app.inject({ method: 'GET', url: '/account/dev-mailbox', remoteAddress, headers });
    const refused: Array<[string, string, Record<string, string>]> = [
      ['another machine', '203.0.113.9', {}],
      ['another machine naming a loopback client in X-Forwarded-For', '203.0.113.9', { 'x-forwarded-for': '127.0.0.1' }],
      ['a proxy on this machine relaying another machine', '127.0.0.1', { 'x-forwarded-for': '203.0.113.9' }],
      ['a proxy on this machine saying so in Forwarded', '127.0.0.1', { forwarded: 'for=203.0.113.9' }],
      ['another site whose name points at this machine (DNS rebinding)', '127.0.0.1', { host: 'evil.example:3000' }],
      ['this service under its public name, as a proxy would pass it', '127.0.0.1', { host: 'svc.test' }],
    ];
    for (const [who, remoteAddress, headers] of refused) {
      const response = await mailbox(remoteAddress, headers);
      expect(response.statusCode, who).toBe(403);
      expect(response.body, who).toContain('opens only in a browser on the machine running the service');
      expect(response.body, who).not.toContain('@mailbox.example');
      const session = await use().app.inject({ method: 'GET', url: '/dashboard/api/session', remoteAddress, headers });
      expect(session.json().devMailbox, who).toBe(false);
    }
    for (const [remoteAddress, host] of [
      ['127.0.0.1', 'localhost:3000'],
      ['127.0.0.1', '127.0.0.1:3000'],
      ['::1', '[::1]:3000'],
      ['::ffff:127.0.0.1', 'localhost'],
    ]) {
      const response = await mailbox(remoteAddress!, { host: host!, origin: 'https://evil.example' });
      expect(response.statusCode, host).toBe(200);
      expect(response.body, host).toContain(email);
      // Another site's page in that browser cannot read it.
      expect(response.headers['access-control-allow-origin'], host).toBeUndefined();
      expect(
        (await use().app.inject({ method: 'GET', url: '/dashboard/api/session', remoteAddress, headers: { host: host! } })).json()
          .devMailbox,
      ).toBe(true);
    }
  });

  it('answers an unknown email the same way, sending nothing and writing nothing', async () => {
    const before = { resets: await resetRows(use().db), mail: await use().db.selectFrom('mail_outbox').select('id').execute() };
    const stranger = `${uniqueId('nobody')}@nowhere.example`;
    const response = await (await new DashboardClient(use().app).start()).post('/dashboard/api/password-reset', { email: stranger });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ requested: true });
    expect({ resets: await resetRows(use().db), mail: await use().db.selectFrom('mail_outbox').select('id').execute() }).toEqual(before);
  });

  /**
   * Issue 44: a reset is how the owner takes an account back from whoever knew its password, so
   * every session of the account ends with it, in the dashboard and on the staff sign-in pages
   * alike (one sessions table); only a sign-in with the new password opens one again.
   */
  it('ends every session of the account: old session cookies get 401, the new password signs in', async () => {
    const owner = `${uniqueId('sessions')}@mailbox.example`;
    const first = new DashboardClient(use().app);
    await first.signUpBrand('Sessions Co', `${uniqueId('sessions')}.example`, owner);
    const second = await new DashboardClient(use().app).start();
    expect((await second.post('/dashboard/api/sign-in', { email: owner, password: DASHBOARD_PASSWORD })).statusCode).toBe(200);
    for (const session of [first, second]) expect((await session.get('/dashboard/api/keys')).statusCode).toBe(200);

    const visitor = await new DashboardClient(use().app).start();
    expect((await visitor.post('/dashboard/api/password-reset', { email: owner })).statusCode).toBe(202);
    await waitUntil(async () => (await mailTo(owner)).length === 1, 60_000);
    const token = tokenIn((await mailTo(owner))[0]!.body)!;
    expect((await visitor.post('/dashboard/api/password-reset/confirm', { token, password: NEW_PASSWORD })).statusCode).toBe(200);

    for (const [which, session] of [
      ['the sign-up session', first],
      ['the sign-in session', second],
    ] as const) {
      const keys = await session.get('/dashboard/api/keys');
      expect(keys.statusCode, which).toBe(401);
      expect(keys.json(), which).toMatchObject({ error: 'unauthorized' });
      expect((await session.post('/dashboard/api/keys', { name: 'after the reset' })).statusCode, which).toBe(401);
      const page = await use().app.inject({ method: 'GET', url: '/account', headers: { cookie: session.cookies } });
      expect(page.headers.location, which).toBe('/account/sign-in');
    }
    const sessions = () =>
      use()
        .db.selectFrom('user_sessions')
        .innerJoin('brand_users', 'brand_users.id', 'user_sessions.user_id')
        .select('user_sessions.revoked_at')
        .where('brand_users.email', '=', owner)
        .execute();
    const ended = await sessions();
    expect(ended).toHaveLength(2);
    expect(ended.filter((row) => row.revoked_at === null)).toEqual([]);

    expect((await visitor.post('/dashboard/api/sign-in', { email: owner, password: NEW_PASSWORD })).statusCode).toBe(200);
    expect((await visitor.get('/dashboard/api/keys')).statusCode).toBe(200);
    expect((await sessions()).filter((row) => row.revoked_at === null)).toHaveLength(1);
  });

  const refusals: Array<[string, string, unknown, string]> = [
    ['an empty email', '/dashboard/api/password-reset', { email: '' }, 'invalid_request'],
    ['a too long email', '/dashboard/api/password-reset', { email: `${'x'.repeat(250)}@a.example` }, 'invalid_request'],
    ['an email of the wrong type', '/dashboard/api/password-reset', { email: 42 }, 'invalid_request'],
    ['an unknown token', '/dashboard/api/password-reset/confirm', { token: 'x'.repeat(43), password: NEW_PASSWORD }, 'invalid_token'],
    ['a too long token', '/dashboard/api/password-reset/confirm', { token: 'x'.repeat(101), password: NEW_PASSWORD }, 'invalid_request'],
    ['a short new password', '/dashboard/api/password-reset/confirm', { token: 'x'.repeat(43), password: 'short' }, 'invalid_request'],
  ];
  for (const [check, url, body, error] of refusals) {
    it(`refuses ${check} with 400, writing nothing`, async () => {
      const before = await resetRows(use().db);
      const response = await (await new DashboardClient(use().app).start()).post(url, body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error, message: expect.any(String) });
      expect(await resetRows(use().db)).toEqual(before);
    });
  }
});

describe('password reset mail over SMTP', () => {
  const received: Array<{ from: string; to: string[]; raw: string }> = [];
  const logs: string[] = [];
  let smtp: SMTPServer;
  let database: TestDatabase;
  let app: App;
  const SMTP_PASSWORD = 'smtp-secret-password';

  beforeAll(async () => {
    const port = await freePort();
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      onAuth: (auth, _session, callback) =>
        auth.username === 'mailer' && auth.password === SMTP_PASSWORD
          ? callback(null, { user: 'mailer' })
          : callback(new Error('bad credentials')),
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
    database = await createTestDatabase('postgres');
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    });
    const config = testConfig({
      LOG_LEVEL: 'trace',
      SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:${port}`,
      MAIL_FROM: 'Brand Desk <desk@svc.example>',
    });
    app = await buildApp({ config, database, logStream });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  it("delivers the token to a real SMTP receiver, signed in with the URL's credentials, and logs neither", async () => {
    const { companyId } = await createBrand({ db: database.db, bus: app.runtime.bus, serviceEnv: 'test' });
    const email = `${uniqueId('smtp')}@brand.example`;
    await createBrandUser({ db: database.db }, companyId, { email, password: DASHBOARD_PASSWORD });
    const visitor = await new DashboardClient(app).start();
    expect((await visitor.post('/dashboard/api/password-reset', { email })).statusCode).toBe(202);
    await waitUntil(async () => received.length === 1, 60_000);
    const [message] = received;
    expect(message!.to).toEqual([email]);
    expect(message!.from).toBe('desk@svc.example');
    expect(message!.raw).toContain('Subject: Reset your Partner Collaboration password');
    expect(message!.raw).toContain('Content-Transfer-Encoding: quoted-printable');
    const token = tokenIn(decodeQuotedPrintable(message!.raw))!;
    expect(token).toHaveLength(43);
    expect((await visitor.post('/dashboard/api/password-reset/confirm', { token, password: NEW_PASSWORD })).statusCode).toBe(200);
    expect((await visitor.post('/dashboard/api/sign-in', { email, password: NEW_PASSWORD })).statusCode).toBe(200);

    const logged = logs.join('');
    expect(logged).toContain('/dashboard/api/password-reset');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(SMTP_PASSWORD);
    // With SMTP, nothing is kept in the database and there is no mailbox page.
    expect(await database.db.selectFrom('mail_outbox').select('id').execute()).toEqual([]);
    expect((await app.inject({ method: 'GET', url: '/account/dev-mailbox' })).statusCode).toBe(404);
  });
});

describe('password reset on a prod host without SMTP', () => {
  it('answers 503 for every email and issues no token, since nothing could reach the account', async () => {
    const context = await startTestApp('postgres', { SERVICE_ENV: 'prod' });
    try {
      const { companyId } = await createBrand(context.support);
      const email = `${uniqueId('prod')}@brand.example`;
      await createBrandUser({ db: context.db }, companyId, { email, password: DASHBOARD_PASSWORD });
      const visitor = await new DashboardClient(context.app).start();
      for (const address of [email, 'nobody@nowhere.example']) {
        const response = await visitor.post('/dashboard/api/password-reset', { email: address });
        expect(response.statusCode).toBe(503);
        expect(response.json()).toMatchObject({ error: 'service_unavailable', message: expect.stringMatching(/SMTP_URL/) });
      }
      expect(await resetRows(context.db)).toEqual([]);
      expect((await context.app.inject({ method: 'GET', url: '/account/dev-mailbox' })).statusCode).toBe(404);
      expect((await visitor.get('/dashboard/api/session')).json().devMailbox).toBe(false);
    } finally {
      await stopTestApp(context);
    }
  });
});
