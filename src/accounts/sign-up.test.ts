import { expect, it } from 'vitest';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachDatabase } from '../../test/support/harness.js';
import { uniqueId } from '../../test/support/factories.js';
import { tableContents } from '../../test/support/snapshot.js';
import {
  DashboardClient,
  DASHBOARD_PASSWORD,
  mailsTo,
  newSignUpLinks,
  signUpLinkFor,
  waitForMails,
} from '../../test/support/dashboard-client.js';
import { hashSecret } from '../shared/keys.js';
import { waitUntil } from '../../test/support/service-process.js';

/**
 * What a client sees of an answer, its request id aside (each request has its own), and the rate
 * limit's count of the caller's own requests so far (the same for both addresses, one request apart).
 */
const seen = (response: LightMyRequestResponse) => {
  const { 'x-request-id': _id, date: _date, 'ratelimit-remaining': _remaining, 'ratelimit-reset': _reset, ...headers } = response.headers;
  return { status: response.statusCode, headers, body: response.body };
};

/**
 * Issue 23: sign-up told whether an address had an account (409 email_taken). Every sign-up now
 * gets the same answer; the mailbox decides what happens next.
 */
describeEachDatabase('sign-up without revealing accounts', (use) => {
  const client = () => new DashboardClient(use().app).start();
  const mailCount = async () =>
    Number(
      (
        await use()
          .db.selectFrom('mail_outbox')
          .select(({ fn }) => fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  const waitingFor = (email: string) => use().db.selectFrom('sign_up_requests').select('token_hash').where('email', '=', email).execute();
  const allWaiting = () => use().db.selectFrom('sign_up_requests').selectAll().orderBy('token_hash').execute();

  async function takenAddress() {
    const email = `${uniqueId('taken')}@owner.example`;
    await new DashboardClient(use().app).signUpBrand('Owner Goods', `${uniqueId('owner')}.example`, email);
    return email;
  }

  it('gives a taken and a free address byte-identical answers, claiming a store or joining with a code', async () => {
    const owner = new DashboardClient(use().app);
    await owner.signUpBrand('Code Co', `${uniqueId('code')}.example`, `${uniqueId('o')}@code.example`);
    const { code } = (await owner.post('/dashboard/api/invitations')).json();
    const taken = await takenAddress();
    // Same length, so not even Content-Length could differ if the address were echoed.
    const free = taken.replace(/^taken/, 'frees');
    for (const rest of [
      { brand: { businessName: 'Look Alike', domain: `${uniqueId('look')}.example` } },
      { invitationCode: code as string },
    ]) {
      const answers = [];
      for (const email of [taken, free]) {
        answers.push(seen(await (await client()).post('/dashboard/api/sign-up', { email, ...rest })));
      }
      expect(answers[0]!.status).toBe(202);
      expect(answers[1]).toEqual(answers[0]);
      expect(JSON.parse(answers[0]!.body)).toEqual({
        sent: true,
        message: expect.stringMatching(/^We sent a mail to the address you gave/),
      });
      // No session is started before the address is confirmed.
      expect(answers[0]!.headers['set-cookie']).toBeUndefined();
    }
  });

  it("mails a taken address's owner a warning and writes nothing else; the code stays unspent", async () => {
    const email = await takenAddress();
    const owner = new DashboardClient(use().app);
    await owner.signUpBrand('Join Co', `${uniqueId('join')}.example`, `${uniqueId('o')}@join.example`);
    const { code } = (await owner.post('/dashboard/api/invitations')).json();
    const mailsBefore = (await mailsTo(use().app, email)).length;
    const before = await tableContents(use().db);
    const visitor = await client();
    for (const body of [
      { email: email.toUpperCase(), brand: { businessName: 'X', domain: `${uniqueId('x')}.example` } },
      { email, invitationCode: code },
    ]) {
      expect((await visitor.post('/dashboard/api/sign-up', body)).statusCode).toBe(202);
    }
    const mails = await waitForMails(use().app, email, mailsBefore + 2);
    expect(mails).toHaveLength(mailsBefore + 2);
    expect(await tableContents(use().db)).toEqual(before);
    expect(await waitingFor(email)).toEqual([]);
    for (const text of mails.slice(0, 2)) {
      expect(text).toContain('which already has one, so nothing was created');
      expect(text).toContain('Reset password');
      expect(text).not.toMatch(/finish-sign-up/);
    }
    // The account's password is unchanged and the code still makes an account for another address.
    expect((await visitor.post('/dashboard/api/sign-in', { email, password: DASHBOARD_PASSWORD })).statusCode).toBe(200);
    const joined = await (await client()).signUp({
      email: `${uniqueId('j')}@join.example`,
      password: DASHBOARD_PASSWORD,
      invitationCode: code,
    });
    expect(joined.statusCode).toBe(201);
  });

  it('makes the account only from the link, once; a GET of the link writes nothing', async () => {
    const email = `${uniqueId('new')}@fresh.example`;
    const person = await client();
    const answer = await person.post('/dashboard/api/sign-up', {
      email,
      brand: { businessName: 'Fresh Goods', domain: `${uniqueId('fresh')}.example` },
    });
    expect(answer.statusCode).toBe(202);
    expect(await use().db.selectFrom('brand_users').select('id').where('email', '=', email).execute()).toEqual([]);
    const [mail] = await waitForMails(use().app, email, 1);
    const link = /(http:\/\/svc\.test\/dashboard#\/finish-sign-up\/[A-Za-z0-9]{43})/.exec(mail!)![1]!;
    const token = link.split('/').pop()!;
    // The token is kept as its hash only.
    const rows = await use().db.selectFrom('sign_up_requests').selectAll().where('email', '=', email).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    // Nor is a password kept: the person who opens the link chooses it (issue 44).
    expect(JSON.stringify(rows)).not.toMatch(/argon2/);

    // What a browser fetches for the link: the page (the fragment never reaches the server) and its session.
    const before = await tableContents(use().db);
    for (const url of ['/dashboard', '/dashboard/api/session', `/dashboard?token=${token}`]) {
      expect((await person.get(url)).statusCode, url).toBe(200);
    }
    expect(await tableContents(use().db)).toEqual(before);

    // The finishing POST needs the page's CSRF token and its origin.
    const waitingBefore = await allWaiting();
    expect((await person.post('/dashboard/api/sign-up/finish', { token, password: DASHBOARD_PASSWORD }, { csrf: null })).statusCode).toBe(
      403,
    );
    const crossSite = await use().app.inject({
      method: 'POST',
      url: '/dashboard/api/sign-up/finish',
      headers: {
        cookie: person.cookies,
        'x-csrf-token': /svc_csrf=([A-Za-z0-9]+)/.exec(person.cookies)![1]!,
        origin: 'https://evil.example',
        'content-type': 'application/json',
      },
      payload: JSON.stringify({ token, password: DASHBOARD_PASSWORD }),
    });
    expect(crossSite.statusCode).toBe(403);
    expect(await tableContents(use().db)).toEqual(before);
    expect(await allWaiting()).toEqual(waitingBefore);

    const finished = await person.post('/dashboard/api/sign-up/finish', { token, password: DASHBOARD_PASSWORD });
    expect(finished.statusCode).toBe(201);
    expect(finished.json()).toMatchObject({ companyId: null, claim: { status: 'pending', businessName: 'Fresh Goods' } });
    expect((await person.get('/dashboard/api/session')).json().user).toMatchObject({ email, companyId: null });

    expect(await waitingFor(email)).toEqual([]);
    const afterFirst = await tableContents(use().db);
    const again = await (await client()).post('/dashboard/api/sign-up/finish', { token, password: 'a second chosen password' });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ error: 'invalid_token' });
    expect(await tableContents(use().db)).toEqual(afterFirst);
  });

  it('refuses an expired link, an unknown one, and a link whose code or store was taken meanwhile, writing nothing', async () => {
    const email = `${uniqueId('late')}@fresh.example`;
    const person = await client();
    await person.post('/dashboard/api/sign-up', {
      email,
      brand: { businessName: 'Late', domain: `${uniqueId('late')}.example` },
    });
    const token = (await signUpLinkFor(use().app, email))!;
    await sql`update sign_up_requests set expires_at = now() - interval '1 second' where email = ${email}`.execute(use().db);
    const before = await tableContents(use().db);
    const waitingBefore = await allWaiting();
    for (const tried of [token, 'A'.repeat(43)]) {
      const refused = await person.post('/dashboard/api/sign-up/finish', { token: tried, password: DASHBOARD_PASSWORD });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ error: 'invalid_token', message: expect.stringMatching(/unknown, used or expired/) });
    }
    expect(await tableContents(use().db)).toEqual(before);
    expect(await allWaiting()).toEqual(waitingBefore);

    // The code used by someone else between the sign-up and its link.
    const owner = new DashboardClient(use().app);
    await owner.signUpBrand('Busy Co', `${uniqueId('busy')}.example`, `${uniqueId('o')}@busy.example`);
    const { code } = (await owner.post('/dashboard/api/invitations')).json();
    const slow = `${uniqueId('slow')}@busy.example`;
    expect((await person.post('/dashboard/api/sign-up', { email: slow, invitationCode: code })).statusCode).toBe(202);
    const fast = await (await client()).signUp({
      email: `${uniqueId('fast')}@busy.example`,
      password: DASHBOARD_PASSWORD,
      invitationCode: code,
    });
    expect(fast.statusCode).toBe(201);
    const slowToken = await signUpLinkFor(use().app, slow);
    const beforeSlow = await tableContents(use().db);
    const waitingBeforeSlow = await allWaiting();
    const refused = await person.post('/dashboard/api/sign-up/finish', { token: slowToken, password: DASHBOARD_PASSWORD });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_invitation' });
    expect(await tableContents(use().db)).toEqual(beforeSlow);
    expect(await allWaiting()).toEqual(waitingBeforeSlow);

    // The store's brand got staff between the sign-up and its link.
    const domain = `${uniqueId('race')}.example`;
    const second = `${uniqueId('second')}@race.example`;
    expect((await person.post('/dashboard/api/sign-up', { email: second, brand: { businessName: 'R', domain } })).statusCode).toBe(202);
    await new DashboardClient(use().app).signUpBrand('Race Co', domain, `${uniqueId('first')}@race.example`);
    const secondToken = await signUpLinkFor(use().app, second);
    const beforeSecond = await tableContents(use().db);
    const waitingBeforeSecond = await allWaiting();
    const staffed = await person.post('/dashboard/api/sign-up/finish', { token: secondToken, password: DASHBOARD_PASSWORD });
    expect(staffed.statusCode).toBe(409);
    expect(staffed.json()).toMatchObject({ error: 'brand_has_staff' });
    expect(await tableContents(use().db)).toEqual(beforeSecond);
    expect(await allWaiting()).toEqual(waitingBeforeSecond);
  });

  it('keeps an address at five waiting sign-ups, each with its own mail', async () => {
    const email = `${uniqueId('many')}@fresh.example`;
    const person = await client();
    const mailsBefore = await mailCount();
    for (let i = 0; i < 7; i += 1) {
      const body = { email, brand: { businessName: `Many ${i}`, domain: `${uniqueId('many')}.example` } };
      expect((await person.post('/dashboard/api/sign-up', body)).statusCode).toBe(202);
    }
    await waitUntil(async () => (await mailCount()) >= mailsBefore + 7, 30_000);
    expect(await mailCount()).toBe(mailsBefore + 7);
    const rows = await use().db.selectFrom('sign_up_requests').select('business_name').where('email', '=', email).execute();
    expect(rows.map((row) => row.business_name).sort()).toEqual(['Many 2', 'Many 3', 'Many 4', 'Many 5', 'Many 6']);
    // The two oldest links were dropped with their requests; a kept one makes the account.
    const tokens = await newSignUpLinks(use().app, email, 0, 7);
    const kept = new Set((await waitingFor(email)).map((row) => row.token_hash));
    const dropped = tokens.filter((token) => !kept.has(hashSecret(token)));
    expect(dropped).toHaveLength(2);
    for (const token of dropped) {
      const refused = await person.post('/dashboard/api/sign-up/finish', { token, password: DASHBOARD_PASSWORD });
      expect(refused.json()).toMatchObject({ error: 'invalid_token' });
    }
    const keptToken = tokens.find((token) => kept.has(hashSecret(token)))!;
    const finished = await person.post('/dashboard/api/sign-up/finish', { token: keptToken, password: DASHBOARD_PASSWORD });
    expect(finished.statusCode).toBe(201);
    expect(['Many 2', 'Many 3', 'Many 4', 'Many 5', 'Many 6']).toContain(finished.json().claim.businessName);
  });

  /**
   * Issue 44: sign-up kept the password given with the address, and the mailed link made the
   * account with it. An attacker signed up with the victim's address and a password of their own;
   * the victim, answering the genuine mail, made the account and confirmed the store, and the
   * attacker signed in and minted a brand key. Whoever opens the link now chooses the password.
   */
  it("leaves an attacker who signed up with the victim's address nothing to sign in with once the victim finishes", async () => {
    const victim = `${uniqueId('victim')}@victim.example`;
    const domain = `${uniqueId('victim')}.example`;
    const ATTACKER_PASSWORD = 'the attacker chose this one';
    const VICTIM_PASSWORD = 'the victim chose this one';
    const attacker = await client();
    const claim = { businessName: 'Victim Goods', domain };

    // The attacker cannot give the account a password: a sign-up carrying one is refused, writing nothing.
    const before = await tableContents(use().db);
    const withPassword = await attacker.post('/dashboard/api/sign-up', { email: victim, password: ATTACKER_PASSWORD, brand: claim });
    expect(withPassword.statusCode).toBe(400);
    expect(withPassword.json()).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/password/) });
    expect(await tableContents(use().db)).toEqual(before);

    // What the attacker can do: sign up with the victim's address, which keeps no password of anyone's.
    expect((await attacker.post('/dashboard/api/sign-up', { email: victim, brand: claim })).statusCode).toBe(202);
    const token = await signUpLinkFor(use().app, victim);
    const waiting = await use().db.selectFrom('sign_up_requests').selectAll().where('email', '=', victim).execute();
    expect(waiting).toHaveLength(1);
    expect(Object.keys(waiting[0]!).filter((column) => /pass/i.test(column))).toEqual([]);
    expect(JSON.stringify(waiting)).not.toMatch(/argon2|attacker/);

    // The victim opens the genuine mail, chooses a password, confirms the store at its platform.
    const person = await client();
    const finished = await person.post('/dashboard/api/sign-up/finish', { token, password: VICTIM_PASSWORD });
    expect(finished.statusCode).toBe(201);
    expect((await person.answerAsStoreOwner(finished.json().claim.confirmUrl, 'confirm')).statusCode).toBe(303);
    expect((await person.post('/dashboard/api/claim/check')).json().companyId).toEqual(expect.any(String));

    // The attacker's password signs in nowhere, so no brand key is minted; the victim's works.
    const beforeAttempt = await use().db.selectFrom('brand_api_keys').select('id').execute();
    const tried = await attacker.post('/dashboard/api/sign-in', { email: victim, password: ATTACKER_PASSWORD });
    expect(tried.statusCode).toBe(401);
    expect(tried.json()).toMatchObject({ error: 'unauthorized' });
    expect((await attacker.post('/dashboard/api/keys', { name: 'stolen' })).statusCode).toBe(401);
    expect(await use().db.selectFrom('brand_api_keys').select('id').execute()).toEqual(beforeAttempt);
    const owner = await client();
    expect((await owner.post('/dashboard/api/sign-in', { email: victim, password: VICTIM_PASSWORD })).statusCode).toBe(200);
    expect((await owner.post('/dashboard/api/keys', { name: 'mine' })).statusCode).toBe(201);
  });

  it('refuses a finish without a good password, CSRF token or link, writing nothing; the link then still works', async () => {
    const email = `${uniqueId('finish')}@fresh.example`;
    const person = await client();
    expect(
      (await person.post('/dashboard/api/sign-up', { email, brand: { businessName: 'Finish', domain: `${uniqueId('fin')}.example` } }))
        .statusCode,
    ).toBe(202);
    const token = await signUpLinkFor(use().app, email);
    const refusals: Array<[string, unknown, { csrf?: null }, number, string, RegExp]> = [
      ['no password', { token }, {}, 400, 'invalid_request', /password/],
      ['an empty password', { token, password: '' }, {}, 400, 'invalid_request', /password/],
      ['a short password', { token, password: 'short pass' }, {}, 400, 'invalid_request', /password must be 12 to 256 characters/],
      ['a too long password', { token, password: 'x'.repeat(257) }, {}, 400, 'invalid_request', /password/],
      ['a password of the wrong type', { token, password: 123456789012345 }, {}, 400, 'invalid_request', /password/],
      ['no token', { password: DASHBOARD_PASSWORD }, {}, 400, 'invalid_request', /token/],
      ['no CSRF header', { token, password: DASHBOARD_PASSWORD }, { csrf: null }, 403, 'csrf_failed', /x-csrf-token/],
      ['an unknown link', { token: 'B'.repeat(43), password: DASHBOARD_PASSWORD }, {}, 400, 'invalid_token', /unknown, used or expired/],
    ];
    const before = await tableContents(use().db);
    const waitingBefore = await allWaiting();
    for (const [what, body, options, status, error, message] of refusals) {
      const refused = await person.post('/dashboard/api/sign-up/finish', body, options);
      expect(refused.statusCode, what).toBe(status);
      expect(refused.json(), what).toMatchObject({ error, message: expect.stringMatching(message) });
      expect(refused.headers['set-cookie'], what).toBeUndefined();
    }
    expect(await tableContents(use().db)).toEqual(before);
    expect(await allWaiting()).toEqual(waitingBefore);

    const finished = await person.post('/dashboard/api/sign-up/finish', { token, password: DASHBOARD_PASSWORD });
    expect(finished.statusCode).toBe(201);
    // A used link, with any password, writes nothing more and signs nobody in.
    const afterFinish = await tableContents(use().db);
    const used = await (await client()).post('/dashboard/api/sign-up/finish', { token, password: 'someone else chose this' });
    expect(used.statusCode).toBe(400);
    expect(used.json()).toMatchObject({ error: 'invalid_token' });
    expect(used.headers['set-cookie']).toBeUndefined();
    expect(await tableContents(use().db)).toEqual(afterFinish);
    expect((await (await client()).post('/dashboard/api/sign-in', { email, password: 'someone else chose this' })).statusCode).toBe(401);
  });
});
