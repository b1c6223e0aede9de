import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, stopTestApp, type TestContext } from '../../../test/support/harness.js';
import { HTTP_ENGINES } from '../../../test/support/databases.js';
import { freePort } from '../../../test/support/service-process.js';
import { uniqueId } from '../../../test/support/factories.js';
import { DashboardClient, runningCollab } from '../../../test/support/dashboard-client.js';

const SECRET = 'orders-webhook-secret-0123456789';

/**
 * Orders reach attribution from the sandbox commerce platform: a shopper follows a partner's
 * referral link to the sandbox storefront, orders there, and the platform posts the order,
 * signed, to the service's order webhook over HTTP (so the app listens on a real port).
 */
for (const kind of HTTP_ENGINES) {
  describe(`sandbox storefront orders through the signed webhook [${kind}]`, () => {
    let context: TestContext;
    let world: Awaited<ReturnType<typeof runningCollab>>;
    let shopper: DashboardClient;

    beforeAll(async () => {
      const port = await freePort();
      context = await startTestApp(kind, {
        BASE_URL: `http://127.0.0.1:${port}`,
        ORDERS_WEBHOOK_SECRET: SECRET,
        SANDBOX_STOREFRONTS: 'true',
      });
      await context.app.listen({ port, host: '127.0.0.1' });
      world = await runningCollab(context);
      shopper = new DashboardClient(context.app);
    });

    afterAll(async () => {
      if (context) await stopTestApp(context);
    });

    const stored = async () => ({
      storeOrders: await context.db
        .selectFrom('sandbox_orders')
        .select(['store_domain', 'id'])
        .where('customer_email', 'is not', null)
        .orderBy('id')
        .execute(),
      attributed: await context.db.selectFrom('attributed_orders').select(['store_domain', 'order_id']).orderBy('order_id').execute(),
    });
    const creditedOrders = () =>
      context.db.selectFrom('attributed_orders').selectAll().where('platform_id', '=', world.platformId).execute();
    const checkout = (domain: string, fields: Record<string, string>) =>
      shopper.postForm(`/sandbox/shop/${domain}/checkout`, {
        productId: 'p1',
        quantity: '1',
        email: 'shopper@buyer.example',
        discount: '',
        ref: '',
        ...fields,
      });

    /** The partner's discount code, from the store's discount link the referral link leads to. */
    const referralCode = async () => {
      const location = (await context.app.inject({ method: 'HEAD', url: `/r/${world.token}` })).headers.location as string;
      return decodeURIComponent(/\/discount\/([^/?]+)/.exec(location)![1]!);
    };

    it("leads the referral link to the partner's storefront through its discount link: the code applied, the referral kept", async () => {
      const click = await context.app.inject({ method: 'GET', url: `/r/${world.token}` });
      expect(click.statusCode).toBe(302);
      const location = new URL(click.headers.location as string);
      const [, code] = /^\/sandbox\/shop\/[^/]+\/discount\/(PARTNER15-[0-9A-F]{6})$/.exec(location.pathname) ?? [];
      expect(location.pathname).toBe(`/sandbox/shop/${world.partnerDomain}/discount/${code}`);
      expect(location.searchParams.get('ref')).toBe(world.token);
      const page = await shopper.get(`${location.pathname}${location.search}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`Discount <code>${code}</code> applied: 15% off your order.`);
      expect(page.body).toContain('<th>With your discount</th>');
      expect(page.body).toContain(`name="discount" value="${code}"`);
      expect(page.body).toContain(`name="ref" value="${world.token}"`);

      // A discount link with a code the store does not have shows the store, the code not applied.
      const unknown = await shopper.get(`/sandbox/shop/${world.partnerDomain}/discount/NOT-A-CODE`);
      expect(unknown.statusCode).toBe(200);
      expect(unknown.body).not.toContain('applied');
      expect(unknown.body).toContain('name="discount" value="NOT-A-CODE"');
    });

    it('posts the order, signed, to the webhook: credited to the platform through the referral, 15% off, 5% commission', async () => {
      const code = await referralCode();
      const response = await checkout(world.partnerDomain, {
        email: 'first@buyer.example',
        discount: code.toLowerCase(),
        ref: world.token,
      });
      expect(response.statusCode).toBe(201);
      expect(response.body).toContain('order webhook, which answered HTTP 200');
      const [order] = await creditedOrders();
      expect(order).toMatchObject({
        store_domain: world.partnerDomain,
        matched_by: 'referral_link',
        new_customer: true,
        campaign_id: world.campaignId,
      });
      const storeOrder = await context.db
        .selectFrom('sandbox_orders')
        .selectAll()
        .where('id', '=', order!.order_id)
        .executeTakeFirstOrThrow();
      expect(storeOrder).toMatchObject({ discount_code: code, webhook_status: 200, customer_email: 'first@buyer.example' });
      // The store applied its 15% code; the service took 5% of what was paid.
      expect(Number(order!.total_cents)).toBe(Math.round(storeOrder.total_cents));
      expect(Number(order!.commission_cents)).toBe(Math.round(storeOrder.total_cents * 0.05));
    });

    it("shows the app installed in the store's admin, delivering its orders (the sign-up's confirmation installed it)", async () => {
      // The partner's staff confirmed the sign-up as the store's owner, in this same client.
      const admin = await world.partner.get(`/sandbox/stores/${world.partnerDomain}`);
      expect(admin.statusCode).toBe(200);
      expect(admin.body).toContain('Installed, plan not approved');
      expect(admin.body).not.toContain('Not installed');
      expect(admin.body).toContain("Orders go to Partner Collab's order webhook since");
      expect(admin.body).toContain('<td data-label="Sent to Partner Collab">HTTP 200</td>');
      // Refund offers the whole amount still paid for each order: the owner types a part only to refund less.
      const rows = [
        ...admin.body.matchAll(
          /<tr><td[^>]*>#\d+<\/td><td[^>]*>[^<]*<\/td><td[^>]*>\$([\d.]+)<\/td>.*?aria-label="Refund amount[^"]*" value="([\d.]+)"/g,
        ),
      ];
      expect(rows.length).toBeGreaterThan(0);
      for (const [, total, offered] of rows) expect(offered).toBe(total);
    });

    it('credits an order with only the discount code to the brand pair, not to the platform clicked last', async () => {
      const code = await referralCode();
      const response = await checkout(world.partnerDomain, { email: 'second@buyer.example', discount: code });
      expect(response.statusCode).toBe(201);
      expect((await creditedOrders()).map((order) => order.matched_by)).toEqual(['referral_link']);
      const coded = await context.db.selectFrom('attributed_orders').selectAll().where('matched_by', '=', 'discount_code').execute();
      expect(coded.map((order) => [order.platform_id, order.brand_id !== null, order.new_customer])).toEqual([[null, true, true]]);
    });

    it("knows a returning customer from the store's order history: credited, but no new customer and no commission", async () => {
      const regular = await context.db
        .selectFrom('sandbox_orders')
        .select('customer_email')
        .where('store_domain', '=', world.partnerDomain)
        .where('discount_code', 'is', null)
        .orderBy('placed_at')
        .executeTakeFirstOrThrow();
      const response = await checkout(world.partnerDomain, { email: regular.customer_email!, ref: world.token });
      expect(response.statusCode).toBe(201);
      const returning = (await creditedOrders()).filter((order) => !order.new_customer);
      expect(returning).toEqual([expect.objectContaining({ matched_by: 'referral_link', platform_id: world.platformId })]);
      expect(Number(returning[0]!.commission_cents)).toBe(0);
    });

    it('delivers nothing from a store the service never subscribed to', async () => {
      const before = (await stored()).attributed;
      const elsewhere = `${uniqueId('elsewhere')}.example`;
      // The shopper opens its storefront, which makes the store up.
      expect((await context.app.inject({ method: 'GET', url: `/sandbox/shop/${elsewhere}` })).statusCode).toBe(200);
      const response = await checkout(elsewhere, {});
      expect(response.statusCode).toBe(201);
      expect(response.body).toContain('it has not subscribed to this store');
      expect((await stored()).attributed).toEqual(before);
    });

    const refusals: Array<[string, () => Promise<{ statusCode: number; body: string }>, number, RegExp]> = [
      [
        'a code the store does not have',
        () => checkout(world.partnerDomain, { discount: 'PARTNER99-NOPE' }),
        400,
        /does not exist at this store/,
      ],
      [
        'a once-per-customer code used again',
        async () => checkout(world.partnerDomain, { email: 'first@buyer.example', discount: await referralCode() }),
        400,
        /once per customer/,
      ],
      ['no email', () => checkout(world.partnerDomain, { email: '' }), 400, /Enter your email/],
      ['a quantity of zero', () => checkout(world.partnerDomain, { quantity: '0' }), 400, /Order 1 to 10/],
      ['a quantity that is not a number', () => checkout(world.partnerDomain, { quantity: 'lots' }), 400, /Order 1 to 10/],
      ['a product the store does not sell', () => checkout(world.partnerDomain, { productId: 'p999' }), 400, /not for sale/],
      ['a damaged referral', () => checkout(world.partnerDomain, { ref: 'not a token!' }), 400, /damaged/],
      ['a malformed store domain', () => checkout('no_dot', {}), 404, /not a store domain/],
      [
        'a post from another site',
        () =>
          context.app.inject({
            method: 'POST',
            url: `/sandbox/shop/${world.partnerDomain}/checkout`,
            headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
            payload: 'productId=p1&quantity=1&email=x%40y.example',
          }),
        403,
        /own pages/,
      ],
    ];
    it('refuses a checkout at a store nobody has opened, making none up', async () => {
      const unopened = `${uniqueId('unopened')}.example`;
      const response = await checkout(unopened, { email: '' });
      expect(response.statusCode).toBe(404);
      expect(response.body).toMatch(/Nobody has opened/);
      expect(await context.db.selectFrom('sandbox_stores').select('domain').where('domain', '=', unopened).execute()).toEqual([]);
    });

    for (const [check, send, status, message] of refusals) {
      it(`refuses a checkout with ${check}, writing nothing`, async () => {
        const before = await stored();
        const response = await send();
        expect(response.statusCode).toBe(status);
        expect(response.body).toMatch(message);
        expect(await stored()).toEqual(before);
      });
    }

    it('never shows a code as applied once the checkout refused it as already used', async () => {
      const code = await referralCode();
      const email = `${uniqueId('twice')}@buyer.example`;
      expect((await checkout(world.partnerDomain, { email, discount: code })).statusCode).toBe(201);
      const again = await checkout(world.partnerDomain, { email, discount: code });
      expect(again.statusCode).toBe(400);
      expect(again.body).toContain(`The discount code ${code} can be used once per customer, and ${email} already used it.`);
      expect(again.body).not.toContain('applied');
      expect(again.body).not.toContain('With your discount');
    });
  });
}
