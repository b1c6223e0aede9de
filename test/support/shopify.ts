import { Session } from '@shopify/shopify-api';
import '@shopify/shopify-api/adapters/node';
import crypto from 'node:crypto';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import type { LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { ShopifyCommerce } from '../../src/commerce/shopify/adapter.js';
import { tokenColumns } from '../../src/commerce/shopify/dal.js';
import { DEFAULT_SHOPIFY_SCOPES, SHOPIFY_APP_STORE_LISTING } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { InvalidationBus } from '../../src/cache/invalidation.js';
import { hashSecret } from '../../src/shared/keys.js';
import { BROWSER_USER_AGENT, formFields } from '../shopify-standin/example-app.js';
import { ShopifyStandIn, type ShopifyStandInOptions } from '../shopify-standin/stand-in.js';
import { signWebhookBody } from '../shopify-standin/webhooks.js';
import { freePort } from './service-process.js';
import { collabReferral, DASHBOARD_PASSWORD, DashboardClient } from './dashboard-client.js';
import { createPlatform, uniqueId } from './factories.js';
import type { TestContext } from './harness.js';

/** The service's Shopify settings for a stand-in's app, with a fixed encryption key. */
export const TOKEN_ENCRYPTION_KEY = Buffer.alloc(32, 42).toString('base64');
export const COMPLIANCE_TOPICS = ['customers/data_request', 'customers/redact', 'shop/redact'];

/** The topics the Chromium walks' stand-in app subscribes: the compliance topics and every one the service handles. */
export const BROWSER_WALK_TOPICS = [
  ...COMPLIANCE_TOPICS,
  'orders/create',
  'orders/paid',
  'refunds/create',
  'orders/cancelled',
  'app/uninstalled',
  'app_subscriptions/update',
];

/** US dollars as the pages write them, from minor units. */
export const dollars = (cents: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(cents / 100);

/**
 * The settings of a service on the stand-in. The stand-in answers a bulk query RUNNING on its first
 * read, as Shopify does, so every setup waits one poll: 20 ms here instead of the default second.
 */
export function shopifyEnv(standIn: ShopifyStandIn): Record<string, string> {
  return {
    SHOPIFY_API_KEY: standIn.app.apiKey,
    SHOPIFY_API_SECRET: standIn.app.apiSecret,
    TOKEN_ENCRYPTION_KEY,
    SHOPIFY_BULK_POLL_MS: '20',
  };
}

/**
 * A stand-in whose webhooks go into the app in process, and to which the library's requests
 * are routed. The compliance topics are declared in the app's configuration, as on Shopify.
 */
export function standInFor(baseUrl: string, app: () => App, options: ShopifyStandInOptions = {}): ShopifyStandIn {
  const standIn = new ShopifyStandIn({
    ...options,
    app: {
      redirectUrls: [`${baseUrl}/commerce/shopify/callback`],
      webhooks: COMPLIANCE_TOPICS.map((topic) => ({ topic, uri: `${baseUrl}/commerce/shopify/webhooks` })),
      ...options.app,
    },
    deliverWebhook:
      options.deliverWebhook ??
      (async (url, init) => {
        const reply = await app().inject({
          method: 'POST',
          url: new URL(url).pathname,
          headers: init.headers as Record<string, string>,
          payload: init.body as string,
        });
        return new Response(reply.body, { status: reply.statusCode });
      }),
  });
  setAbstractFetchFunc(standIn.fetch);
  return standIn;
}

/**
 * A plugin page's challenge (the hash of the secret it holds), as its install and plan links carry
 * it: the install confirms it, and the plan route asks for it.
 */
export function newChallenge(): string {
  return hashSecret(crypto.randomBytes(16).toString('hex'));
}

/** Plain checks, so a bench can use these flows outside the test runner. */
function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/** The browser's cookies after `response`: a cookie jar as a Cookie header (values may hold `=`). */
export function withCookies(previous: string, response: LightMyRequestResponse): string {
  const jar = new Map(
    previous
      .split('; ')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const),
  );
  for (const cookie of response.cookies as Array<{ name: string; value: string }>) {
    if (cookie.value === '') jar.delete(cookie.name);
    else jar.set(cookie.name, cookie.value);
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

/**
 * The install link followed to Shopify's signed callback (through the grant page when the app is
 * new there), by a browser holding `cookie` (a dashboard session, for a claim's link).
 */
export async function installToCallback(
  app: App,
  standIn: ShopifyStandIn,
  installPath: string,
  cookie = '',
): Promise<{ callback: URL; cookie: string }> {
  const install = await app.inject({ method: 'GET', url: installPath, headers: { cookie, 'user-agent': BROWSER_USER_AGENT } });
  check(install.statusCode === 302, `install answered ${install.statusCode}: ${install.body}`);
  const authorize = new URL(String(install.headers.location));
  const page = await standIn.fetch(authorize);
  let callback: string;
  if (page.status === 302) {
    callback = page.headers.get('location')!;
  } else {
    const granted = await standIn.fetch(new URL('grant', authorize), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(formFields(await page.text())),
    });
    check(granted.status === 302, `the grant answered ${granted.status}`);
    callback = granted.headers.get('location')!;
  }
  return { callback: new URL(callback), cookie: withCookies(cookie, install) };
}

export function followCallback(app: App, callback: URL, cookie: string) {
  return app.inject({
    method: 'GET',
    url: `${callback.pathname}${callback.search}`,
    headers: { cookie, 'user-agent': BROWSER_USER_AGENT },
  });
}

/** Whether the service's answer is its question to the store's staff (a claim, a plugin's challenge) after the callback. */
export const asksStaff = (response: LightMyRequestResponse) =>
  response.statusCode === 200 && response.body.includes('action="/commerce/shopify/confirm"');

/** The hidden fields of the service's page (rendered as `<input ... />`). */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g)) fields[match[1]!] = match[2]!;
  return fields;
}

/** Answers the service's question on the page `question`, by its form, as the browser holding `cookie` posts it. */
export function answerQuestion(app: App, question: LightMyRequestResponse, cookie: string, decision: 'confirm' | 'decline' = 'confirm') {
  return app.inject({
    method: 'POST',
    url: '/commerce/shopify/confirm',
    headers: {
      cookie: withCookies(cookie, question),
      origin: 'http://localhost:80',
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': BROWSER_USER_AGENT,
    },
    payload: new URLSearchParams({ ...hiddenFields(question.body), decision }).toString(),
  });
}

/**
 * Installs the app on the shop through OAuth, and answers the service's question when it asks
 * one (a claim's link needs the claimant's dashboard cookies): the service's last answer.
 */
export async function install(app: App, standIn: ShopifyStandIn, installPath: string, options: { cookie?: string } = {}) {
  const { callback, cookie } = await installToCallback(app, standIn, installPath, options.cookie);
  const answer = await followCallback(app, callback, cookie);
  return asksStaff(answer) ? answerQuestion(app, answer, cookie) : answer;
}

/**
 * The install link a claim's dashboard gave before issue 45 (`claim` on the OAuth install, confirmed
 * on the page after the callback), which the install still honours for a link opened before then.
 */
export async function legacyClaimInstallPath(db: Db, shop: string, email: string): Promise<string> {
  const claim = await db
    .selectFrom('brand_claims as c')
    .innerJoin('brand_users as u', 'u.id', 'c.user_id')
    .select('c.id')
    .where('c.domain', '=', shop)
    .where('u.email', '=', email)
    .where('c.status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return `/commerce/shopify/install?${new URLSearchParams({ shop, claim: claim.id, return: '/dashboard' }).toString()}`;
}

/** The claims the app home in the admin asks `shop`'s staff to answer, as its view lists them (claim id and claimant). */
export async function claimsInAdmin(app: App, standIn: ShopifyStandIn, shop: string): Promise<Array<{ claimId: string; email: string }>> {
  const view = await app.inject({
    method: 'GET',
    url: `/commerce/shopify/home?shop=${shop}`,
    headers: { authorization: `Bearer ${standIn.sessionToken(shop)}`, accept: 'text/html' },
  });
  check(view.statusCode === 200, `the home view answered ${view.statusCode}: ${view.body}`);
  const claims = new Map<string, string>();
  for (const item of view.body.matchAll(/<li><p><strong>([^<]+)<\/strong>[\s\S]*?name="claimId" value="([^"]+)"/g)) {
    claims.set(item[2]!, item[1]!);
  }
  return [...claims].map(([claimId, email]) => ({ claimId, email }));
}

/** The store's staff answer a claim in the app home, as its script posts the form, with a session token of `shop`. */
export function answerClaimInAdmin(
  app: App,
  claim: { shop: string; claimId: string; decision?: 'confirm' | 'decline'; token: string },
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/commerce/shopify/home/claim',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${claim.token}` },
    payload: JSON.stringify({ shop: claim.shop, claimId: claim.claimId, decision: claim.decision ?? 'confirm' }),
  });
}

/** The store's owner opens the app in the admin and confirms the claim `email` made (the app installed at Shopify). */
export async function confirmClaimInAdmin(app: App, standIn: ShopifyStandIn, shop: string, email: string): Promise<void> {
  const claim = (await claimsInAdmin(app, standIn, shop)).find((asking) => asking.email === email);
  if (!claim) throw new Error(`the app home lists no claim by ${email}`);
  const answer = await answerClaimInAdmin(app, { shop, claimId: claim.claimId, token: standIn.sessionToken(shop) });
  check(answer.statusCode === 200, `the claim's confirmation answered ${answer.statusCode}: ${answer.body}`);
}

/** Approves (or declines) the usage plan on Shopify's confirmation page; returns the service's answer to the return. */
export async function answerPlan(app: App, standIn: ShopifyStandIn, planPath: string, decision: 'approve' | 'decline' = 'approve') {
  const plan = await app.inject({ method: 'GET', url: planPath, headers: { 'user-agent': BROWSER_USER_AGENT } });
  check(plan.statusCode === 303, `the plan route answered ${plan.statusCode}: ${plan.body}`);
  const confirmation = String(plan.headers.location);
  const page = await standIn.fetch(confirmation);
  const answered = await standIn.fetch(confirmation, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...formFields(await page.text()), decision }),
  });
  check(answered.status === 302, `the charge page answered ${answered.status}`);
  const back = new URL(answered.headers.get('location')!);
  return app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, headers: { 'user-agent': BROWSER_USER_AGENT } });
}

/** The headers Shopify signs a webhook delivery with: each delivery its own webhook id, the event id shared by its duplicates. */
export function signedWebhookHeaders(
  standIn: ShopifyStandIn,
  shop: string,
  topic: string,
  text: string,
  ids: { webhookId?: string; eventId?: string } = {},
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-shopify-topic': topic,
    'x-shopify-hmac-sha256': signWebhookBody(standIn.app.apiSecret, text),
    'x-shopify-shop-domain': shop,
    'x-shopify-api-version': '2026-10',
    'x-shopify-webhook-id': ids.webhookId ?? crypto.randomUUID(),
    'x-shopify-event-id': ids.eventId ?? crypto.randomUUID(),
    'x-shopify-triggered-at': new Date().toISOString(),
  };
}

/** Waits until the worker has worked off every webhook delivery of the shop (a hang guard, not a timing bound). */
export async function deliveriesWorkedOff(db: Db, shop: string): Promise<void> {
  const pending = async () =>
    (
      await db
        .selectFrom('shopify_webhook_deliveries')
        .select('webhook_id')
        .where('shop', '=', shop)
        .where('status', '=', 'pending')
        .execute()
    ).length;
  await expect.poll(pending, { timeout: 30_000 }).toBe(0);
}

/**
 * A stand-in for a service that will listen on a port of its own (a browser test's): the port and
 * the service's address, the callback allowed, `topics` declared in the app's configuration (plain
 * http is refused by Shopify as a webhook address made through the Admin API), the library routed to it.
 */
export async function standInForPort(
  topics: readonly string[],
  options: Omit<ShopifyStandInOptions, 'app'> = {},
): Promise<{ port: number; service: string; standIn: ShopifyStandIn }> {
  const port = await freePort();
  const service = `http://127.0.0.1:${port}`;
  const standIn = new ShopifyStandIn({
    ...options,
    app: {
      redirectUrls: [`${service}/commerce/shopify/callback`],
      applicationUrl: `${service}/commerce/shopify/app`,
      webhooks: topics.map((topic) => ({ topic, uri: `${service}/commerce/shopify/webhooks` })),
    },
  });
  setAbstractFetchFunc(standIn.fetch);
  return { port, service, standIn };
}

type AdapterOptions = ConstructorParameters<typeof ShopifyCommerce>[0];

/** The adapter's options for a test that builds it directly on `db`, against `standIn` (silent log, a 5% commission). */
export function adapterOptions(
  db: Db,
  standIn: ShopifyStandIn,
  overrides: Partial<AdapterOptions> = {},
  config: Partial<AdapterOptions['config']> = {},
): AdapterOptions {
  return {
    db,
    bus: new InvalidationBus(),
    config: {
      apiKey: standIn.app.apiKey,
      apiSecret: standIn.app.apiSecret,
      scopes: DEFAULT_SHOPIFY_SCOPES,
      apiVersion: '2026-10',
      bulkConcurrency: 5,
      bulkPollMs: 1000,
      tokenEncryptionKey: Buffer.from(TOKEN_ENCRYPTION_KEY, 'base64'),
      appListingUrl: SHOPIFY_APP_STORE_LISTING,
      ...config,
    },
    baseUrl: 'https://svc.test',
    serviceEnv: 'test',
    log: pino({ level: 'silent' }),
    commissionBasisPoints: 500,
    ...overrides,
  };
}

/**
 * Installs the app on a stand-in shop without the OAuth pages (for tests about something else):
 * Shopify's token, stored by `shopify` as the callback would store it.
 */
export async function installWithoutOAuth(db: Db, standIn: ShopifyStandIn, shopify: ShopifyCommerce, shop: string): Promise<void> {
  const token = standIn.installApp(shop, DEFAULT_SHOPIFY_SCOPES);
  const session = new Session({ id: `offline_${shop}`, shop, state: '', isOnline: false, accessToken: token });
  await db
    .insertInto('shopify_shops')
    .values({ shop, ...tokenColumns(shopify.tokens.toStore(session)), scopes: DEFAULT_SHOPIFY_SCOPES.join(','), installed_at: new Date() })
    .execute();
}

/**
 * The store's staff take a dashboard account (the claim confirmed in the app home, as the store
 * already has the app) and accept a partner's campaign, shown on a new platform: the referral token
 * of the store's offer there.
 */
export async function storeInACampaign(context: TestContext, standIn: ShopifyStandIn, shop: string): Promise<{ token: string }> {
  const merchant = await new DashboardClient(context.app).start();
  const email = `${uniqueId('m')}@merchant.example`;
  const signUp = await merchant.signUp({
    email,
    password: DASHBOARD_PASSWORD,
    brand: { businessName: `Store ${shop}`, domain: shop, categories: [] },
  });
  check(signUp.statusCode === 201, `sign-up answered ${signUp.statusCode}: ${signUp.body}`);
  await confirmClaimInAdmin(context.app, standIn, shop, email);
  const storeId: string = (await merchant.post('/dashboard/api/claim/check')).json().companyId;
  check(Boolean(storeId), 'the claim was not confirmed');
  const shower = new DashboardClient(context.app);
  const showerId = await shower.signUpBrand('Shower Co', `${uniqueId('shower')}.example`, `${uniqueId('s')}@shower.example`);
  const { platformId } = await createPlatform(context.support);
  const { token } = await collabReferral(context.app, {
    owner: shower,
    ownerId: showerId,
    partner: merchant,
    partnerId: storeId,
    platformId,
    name: 'Cap',
  });
  return { token };
}

/**
 * A shopper follows the referral and orders enough that 5% of it is more than the plan's capped amount of
 * 500 USD every 30 days: the commission is held over the cap and Shopify asked for a higher one.
 * Returns the order and the held commission (minor units), every delivery worked off.
 */
export async function orderOverTheCap(context: Pick<TestContext, 'app' | 'db'>, standIn: ShopifyStandIn, shop: string, token: string) {
  const { app, db } = context;
  // The shopper follows the referral link, then orders.
  const click = await app.inject({ method: 'GET', url: `/r/${token}`, headers: { 'user-agent': BROWSER_USER_AGENT } });
  check(click.statusCode === 302, `the referral link answered ${click.statusCode}`);
  const product = standIn.shop(shop).products.find((each) => each.status === 'ACTIVE')!;
  const order = await standIn.placeOrder(shop, {
    lineItems: [{ productId: product.id, quantity: Math.ceil(1_100_000 / product.priceCents) }],
    landingSite: `/?ref=${token}`,
  });
  await deliveriesWorkedOff(db, shop);
  const entry = await db
    .selectFrom('commission_ledger')
    .select(['amount_minor', 'commerce_charge_id'])
    .where('store_domain', '=', shop)
    .where('order_id', '=', String(order.id))
    .where('kind', '=', 'commission')
    .executeTakeFirstOrThrow();
  check(entry.commerce_charge_id === null, 'the commission over the cap was charged');
  return { order, heldMinor: Number(entry.amount_minor) };
}

/** The reversing entries the commission ledger holds for a store's orders. */
export function reversalsAt(db: Db, shop: string) {
  return db.selectFrom('commission_ledger').select('id').where('store_domain', '=', shop).where('kind', '=', 'reversal').execute();
}
