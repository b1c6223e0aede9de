import { BillingError } from '@shopify/shopify-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formFields, startExampleApp, type ExampleApp } from './example-app.js';
import { offlineSession, shopifyLibraryFor, USAGE_PLAN } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';

const SHOP = 'brightside.myshopify.com';

describe('Shopify stand-in: usage billing, through @shopify/shopify-api', () => {
  let app: ExampleApp;
  const standIn = new ShopifyStandIn({
    now: () => new Date('2026-11-02T12:00:00Z'),
    deliverWebhook: (url, init) => fetch(url.replace('https://app.test', app.baseUrl), init),
  });
  let shopify: ReturnType<typeof shopifyLibraryFor>;
  let session: ReturnType<typeof offlineSession>;

  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const client = new shopify.clients.Graphql({ session });
    return (await client.request(query, { variables })).data as Record<string, any>;
  };
  const USAGE_RECORD = `#graphql
    mutation Charge($lineItem: ID!, $amount: Decimal!, $key: String) {
      appUsageRecordCreate(
        subscriptionLineItemId: $lineItem, price: { amount: $amount, currencyCode: USD },
        description: "First order brought by a partner", idempotencyKey: $key
      ) {
        appUsageRecord { id idempotencyKey price { amount } }
        userErrors { field message }
      }
    }`;

  beforeAll(async () => {
    standIn.createShop({ name: 'brightside', products: 3 });
    standIn.app.webhooks.push({ topic: 'app_subscriptions/update', uri: 'https://app.test/webhooks' });
    app = await startExampleApp((hostName) => {
      shopify = shopifyLibraryFor(standIn, { hostName, hostScheme: 'http', scopes: ['read_products'] });
      return shopify;
    });
    session = offlineSession(SHOP, standIn.installApp(SHOP, ['read_products']), 'read_products');
  });
  afterAll(() => app.close());

  it('creates a usage subscription, shows the confirmation page, and makes it ACTIVE when the merchant approves', async () => {
    const confirmationUrl = await shopify.billing.request({
      session,
      plan: USAGE_PLAN,
      isTest: true,
      returnUrl: `${app.baseUrl}/billing/return`,
    });
    expect(confirmationUrl).toMatch(
      new RegExp(
        `^https://${SHOP}/admin/charges/${standIn.app.id}/\\d+/RecurringApplicationCharge/` +
          'confirm_recurring_application_charge\\?signature=',
      ),
    );
    expect(await shopify.billing.check({ session, plans: [USAGE_PLAN], isTest: true })).toBe(false);

    const page = await standIn.fetch(confirmationUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Usage charges: A share of each first order your partners bring (up to 500.0 USD every 30 days)');
    expect(html).toContain('value="approve">Approve</button>');

    const approved = await standIn.fetch(confirmationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...formFields(html), decision: 'approve' }),
    });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(`${app.baseUrl}/billing/return`);
    expect(back.searchParams.get('charge_id')).toMatch(/^\d+$/);

    expect(await shopify.billing.check({ session, plans: [USAGE_PLAN], isTest: true })).toBe(true);
    const update = standIn.webhookDeliveries({ shop: SHOP, topic: 'app_subscriptions/update' }).at(-1)!;
    expect(update.status).toBe(200);
    expect(app.webhooks.at(-1)).toMatchObject({ valid: true, topic: 'APP_SUBSCRIPTIONS_UPDATE' });
    expect(JSON.parse(update.body).app_subscription).toMatchObject({
      name: USAGE_PLAN,
      status: 'ACTIVE',
      capped_amount: '500.0',
      currency: 'USD',
    });

    // A second look at the page finds nothing left to approve.
    expect((await standIn.fetch(confirmationUrl)).status).toBe(410);
  });

  it('reads the usage line item back from currentAppInstallation', async () => {
    const data = await graphql(
      `#graphql
      query { currentAppInstallation { activeSubscriptions { id name status lineItems { id plan { pricingDetails {
        __typename ... on AppUsagePricing { terms cappedAmount { amount currencyCode } balanceUsed { amount } }
      } } } } } }`,
      {},
    );
    const [subscription] = data.currentAppInstallation.activeSubscriptions;
    expect(subscription).toMatchObject({ name: USAGE_PLAN, status: 'ACTIVE' });
    expect(subscription.lineItems).toEqual([
      {
        id: expect.stringMatching(/^gid:\/\/shopify\/AppSubscriptionLineItem\/\d+\?v=1&index=0$/),
        plan: {
          pricingDetails: {
            __typename: 'AppUsagePricing',
            terms: 'A share of each first order your partners bring',
            cappedAmount: { amount: '500.0', currencyCode: 'USD' },
            balanceUsed: { amount: '0.0' },
          },
        },
      },
    ]);
  });

  it('records a usage charge once per idempotency key, and refuses one past the capped amount', async () => {
    const data = await graphql('query { currentAppInstallation { activeSubscriptions { lineItems { id } } } }', {});
    const lineItem = data.currentAppInstallation.activeSubscriptions[0].lineItems[0].id as string;

    const first = (await graphql(USAGE_RECORD, { lineItem, amount: '120.50', key: 'order-1001-commission' })).appUsageRecordCreate;
    expect(first.userErrors).toEqual([]);
    const replayed = (await graphql(USAGE_RECORD, { lineItem, amount: '120.50', key: 'order-1001-commission' })).appUsageRecordCreate;
    expect(replayed.appUsageRecord).toEqual(first.appUsageRecord);
    expect(standIn.usageCharged(SHOP)).toBe(12_050);

    const second = (await graphql(USAGE_RECORD, { lineItem, amount: '300', key: 'order-1002-commission' })).appUsageRecordCreate;
    expect(second.userErrors).toEqual([]);
    const over = (await graphql(USAGE_RECORD, { lineItem, amount: '79.51', key: 'order-1003-commission' })).appUsageRecordCreate;
    expect(over).toEqual({ appUsageRecord: null, userErrors: [{ field: ['price'], message: 'Total price exceeds balance remaining' }] });
    expect(standIn.usageCharged(SHOP)).toBe(42_050);
    const exact = (await graphql(USAGE_RECORD, { lineItem, amount: '79.50', key: 'order-1003-commission' })).appUsageRecordCreate;
    expect(exact.userErrors).toEqual([]);
    expect(standIn.usageCharged(SHOP)).toBe(50_000);
  });

  it('shows why the adapter sends its own appUsageRecordCreate: the library’s createUsageRecord drops idempotencyKey', async () => {
    // @shopify/shopify-api 15 passes idempotencyKey as a variable its mutation does not declare,
    // so GraphQL ignores it (on Shopify as here) and a replayed call charges again.
    const lineItem = (await graphql('query { currentAppInstallation { activeSubscriptions { lineItems { id } } } }', {}))
      .currentAppInstallation.activeSubscriptions[0].lineItems[0].id as string;
    const cancel = (
      await graphql('mutation Cancel($id: ID!) { appSubscriptionCancel(id: $id) { userErrors { message } } }', {
        id: lineItem.replace(/AppSubscriptionLineItem\/(\d+)\?.*$/, 'AppSubscription/$1'),
      })
    ).appSubscriptionCancel;
    expect(cancel.userErrors).toEqual([]);
    const confirmationUrl = await shopify.billing.request({
      session,
      plan: USAGE_PLAN,
      isTest: true,
      returnUrl: `${app.baseUrl}/billing/return`,
    });
    const html = await (await standIn.fetch(confirmationUrl)).text();
    await standIn.fetch(confirmationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...formFields(html), decision: 'approve' }),
    });
    const charge = () =>
      shopify.billing.createUsageRecord({
        session,
        description: 'First order',
        price: { amount: 10, currencyCode: 'USD' },
        idempotencyKey: 'order-2001-commission',
        isTest: true,
      });
    const first = await charge();
    const second = await charge();
    expect(first.idempotencyKey).toBeNull();
    expect(second.id).not.toBe(first.id);
  });

  it('refuses usage charges on a declined subscription, and the library reports the userErrors', async () => {
    const confirmationUrl = await shopify.billing.request({
      session,
      plan: USAGE_PLAN,
      isTest: true,
      returnUrl: `${app.baseUrl}/billing/return`,
    });
    const html = await (await standIn.fetch(confirmationUrl)).text();
    const declined = await standIn.fetch(confirmationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...formFields(html), decision: 'decline' }),
    });
    expect(declined.status).toBe(302);
    const subscription = standIn.shop(SHOP).subscriptions.at(-1)!;
    expect(subscription.status).toBe('DECLINED');
    await expect(
      shopify.billing.createUsageRecord({
        session,
        subscriptionLineItemId: `gid://shopify/AppSubscriptionLineItem/${subscription.id}?v=1&index=0`,
        description: 'x',
        price: { amount: 1, currencyCode: 'USD' },
        isTest: true,
      }),
    ).rejects.toBeInstanceOf(BillingError);
    // The earlier approved subscription is still the active one.
    expect(await shopify.billing.check({ session, plans: [USAGE_PLAN], isTest: true })).toBe(true);
  });

  it('refuses a forged confirmation signature', async () => {
    const confirmationUrl = new URL(
      await shopify.billing.request({ session, plan: USAGE_PLAN, isTest: true, returnUrl: `${app.baseUrl}/billing/return` }),
    );
    confirmationUrl.searchParams.set('signature', '0'.repeat(64));
    expect((await standIn.fetch(confirmationUrl)).status).toBe(404);
  });
});
