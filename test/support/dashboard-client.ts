import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { csrfOf, form, mergeCookies } from './oauth-flow.js';
import { createPlatform, uniqueId } from './factories.js';
import type { TestContext } from './harness.js';
import { STORE_OWNER_PASSWORD } from './sandbox-owner.js';
import { waitUntil } from './service-process.js';

export { STORE_OWNER_PASSWORD };
export const DASHBOARD_PASSWORD = 'correct horse battery staple';

const OWN_ORIGIN = { origin: 'http://localhost:80' };

/** A browser's view of the dashboard API in tests: keeps the cookies and sends the CSRF header. */
export class DashboardClient {
  cookies = '';

  constructor(private readonly app: App) {}

  async start(): Promise<this> {
    const response = await this.app.inject({ method: 'GET', url: '/dashboard/api/session' });
    this.cookies = mergeCookies(this.cookies, response);
    return this;
  }

  async get(url: string) {
    const response = await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookies } });
    this.cookies = mergeCookies(this.cookies, response);
    return response;
  }

  async post(url: string, body?: unknown, options: { csrf?: string | null } = {}) {
    const csrf = options.csrf === undefined ? csrfOf(this.cookies) : options.csrf;
    const response = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        cookie: this.cookies,
        ...(csrf === null ? {} : { 'x-csrf-token': csrf }),
        'content-type': 'application/json',
      },
      // The app sends a JSON body with every write, an empty object when there is nothing to say.
      payload: body === undefined ? '{}' : typeof body === 'string' ? body : JSON.stringify(body),
    });
    this.cookies = mergeCookies(this.cookies, response);
    return response;
  }

  /** A form post to a sandbox commerce page, from that page's origin, with the CSRF token its page carries, as a browser sends it. */
  async postForm(url: string, fields: Record<string, string>) {
    // A browser has seen a page of the service before it posts a form, and with it the CSRF cookie.
    if (!/svc_csrf=/.test(this.cookies)) await this.start();
    const response = await this.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookies, 'content-type': 'application/x-www-form-urlencoded', ...OWN_ORIGIN },
      payload: form({ csrf_token: /svc_csrf=([A-Za-z0-9]+)/.exec(this.cookies)?.[1] ?? '', ...fields }),
    });
    this.cookies = mergeCookies(this.cookies, response);
    return response;
  }

  /**
   * Answers an ownership confirmation at the sandbox commerce platform as the store's owner:
   * signs in to the store (setting up its owner sign-in when it has none) and confirms or declines.
   */
  async answerAsStoreOwner(
    confirmUrl: string,
    decision: 'confirm' | 'decline',
    owner = { email: 'owner@store.example', password: STORE_OWNER_PASSWORD },
  ) {
    const page = await this.get(confirmUrl);
    if (page.statusCode === 303) {
      const signInUrl = new URL(page.headers.location as string, 'http://localhost');
      await this.get(`${signInUrl.pathname}${signInUrl.search}`);
      const signedIn = await this.postForm(signInUrl.pathname, {
        email: owner.email,
        password: owner.password,
        next: signInUrl.searchParams.get('next') ?? '',
      });
      if (signedIn.statusCode !== 303) throw new Error(`store owner sign-in failed: ${signedIn.statusCode}`);
    }
    return this.postForm(confirmUrl, { decision });
  }

  /**
   * Signs up as a person does: the sign-up's answer, then the link from the mail the development
   * mailbox kept, opened and answered with the password chosen there (`password`, never part of the
   * sign-up itself). Returns the finishing answer (201, signed in), or the sign-up's own refusal; a
   * sign-up of an address that has an account gets no link, so this throws.
   */
  async signUp({ password, ...body }: { email: string; password: string } & Record<string, unknown>) {
    const email = body.email.trim().toLowerCase();
    const earlier = (await signUpLinksFor(this.app, email)).length;
    const sent = await this.post('/dashboard/api/sign-up', body);
    if (sent.statusCode !== 202) return sent;
    const [token] = await newSignUpLinks(this.app, email, earlier);
    return this.post('/dashboard/api/sign-up/finish', { token, password });
  }

  /** Signs up a brand and has the store's owner confirm the claim; returns the brand's company id. */
  async signUpBrand(businessName: string, domain: string, email: string, categories: string[] = []): Promise<string> {
    await this.start();
    const response = await this.signUp({
      email,
      password: DASHBOARD_PASSWORD,
      brand: { businessName, domain, categories },
    });
    if (response.statusCode !== 201) throw new Error(`sign-up failed: ${response.body}`);
    const confirmed = await this.answerAsStoreOwner(response.json().claim.confirmUrl, 'confirm');
    if (confirmed.statusCode !== 303) throw new Error(`confirmation failed: ${confirmed.statusCode} ${confirmed.body}`);
    const checked = await this.post('/dashboard/api/claim/check');
    if (!checked.json().companyId) throw new Error(`claim not settled: ${checked.body}`);
    return checked.json().companyId;
  }
}

/** The mails the development mailbox shows for an address, newest first, as their text. */
export async function mailsTo(app: App, email: string): Promise<string[]> {
  const page = await app.inject({ method: 'GET', url: '/account/dev-mailbox' });
  if (page.statusCode !== 200) throw new Error(`the development mailbox answered ${page.statusCode}`);
  return page.body
    .split('<li>')
    .slice(1)
    .filter((item) => item.includes(`<dd>${email}</dd>`))
    .map((item) => /<pre class="mail">([\s\S]*?)<\/pre>/.exec(item)?.[1] ?? '');
}

/** The tokens of the sign-up links mailed to an address, newest first. */
export async function signUpLinksFor(app: App, email: string): Promise<string[]> {
  return (await mailsTo(app, email)).flatMap((text) => /#\/finish-sign-up\/([A-Za-z0-9]+)/.exec(text)?.[1] ?? []);
}

/**
 * The links mailed to an address once it has more than `earlier` of them, newest first: the mail
 * leaves after the sign-up's answer (src/accounts/sign-up.ts), so it is waited for.
 */
export async function newSignUpLinks(app: App, email: string, earlier = 0, count = 1): Promise<string[]> {
  let links: string[] = [];
  await waitUntil(
    async () => {
      links = await signUpLinksFor(app, email);
      return links.length >= earlier + count;
    },
    30_000,
    100,
  );
  return links;
}

/** The token of the newest sign-up link mailed to an address, waited for. */
export async function signUpLinkFor(app: App, email: string): Promise<string> {
  return (await newSignUpLinks(app, email))[0]!;
}

/** Waits until an address has `count` mails in the development mailbox, and returns them, newest first. */
export async function waitForMails(app: App, email: string, count: number): Promise<string[]> {
  let mails: string[] = [];
  await waitUntil(
    async () => {
      mails = await mailsTo(app, email);
      return mails.length >= count;
    },
    30_000,
    100,
  );
  return mails;
}

/**
 * Two verified brands in a running collab: the partner's offer (15% off) is live, and the
 * shower asked the offers endpoint once for a platform, so a referral link exists.
 */
export async function runningCollab(context: TestContext) {
  const shower = new DashboardClient(context.app);
  const partner = new DashboardClient(context.app);
  const showerEmail = `${uniqueId('s')}@shower.example`;
  const showerId = await shower.signUpBrand('Shower Co', `${uniqueId('shower')}.example`, showerEmail);
  const partnerDomain = `${uniqueId('store')}.example`;
  const partnerEmail = `${uniqueId('p')}@store.example`;
  const partnerId = await partner.signUpBrand('Partner Store', partnerDomain, partnerEmail);
  const { platformId } = await createPlatform(context.support);
  await partner.post('/dashboard/api/offer', { title: '15% off', imageUrl: 'https://cdn.example/p.png', discountPercent: 15 });
  const { key, campaignId, referralUrl, token } = await collabReferral(context.app, {
    owner: shower,
    ownerId: showerId,
    partner,
    partnerId,
    platformId,
    name: 'Orders',
  });
  return {
    shower,
    partner,
    showerId,
    partnerId,
    showerEmail,
    partnerEmail,
    partnerDomain,
    platformId,
    key,
    campaignId,
    referralUrl,
    token,
  };
}

/**
 * A running collaboration through the dashboard: `owner` asks `partner`, the partner accepts, the
 * owner starts a campaign with it, and a platform asks for the owner's offers with the owner's new
 * key. Returns the key, the campaign and the referral link (and its token) of the partner's offer
 * the platform shows.
 */
export async function collabReferral(
  app: App,
  collab: { owner: DashboardClient; ownerId: string; partner: DashboardClient; partnerId: string; platformId: string; name: string },
): Promise<{ key: string; campaignId: string; referralUrl: string; token: string }> {
  const { owner, ownerId, partner, partnerId, platformId, name } = collab;
  const key: string = (await owner.post('/dashboard/api/keys', { name: 'k' })).json().key;
  await owner.post(`/dashboard/api/partners/${partnerId}/request`, {});
  expect((await partner.post(`/dashboard/api/partners/${ownerId}/accept`)).statusCode).toBeLessThan(300);
  const campaignId: string = (await owner.post('/dashboard/api/campaigns', { partnerId, name })).json().id;
  await owner.post(`/dashboard/api/campaigns/${campaignId}/start`);
  const offers = await app.inject({
    method: 'GET',
    url: '/v1/campaigns/offers?type=post-purchase',
    headers: { 'x-api-key': key, 'x-platform-id': platformId },
  });
  const referralUrl: string = offers.json().offers[0].referralUrl;
  return { key, campaignId, referralUrl, token: referralUrl.split('/r/')[1]! };
}
