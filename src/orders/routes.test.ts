import { Readable } from 'node:stream';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachDatabase } from '../../test/support/harness.js';
import { uniqueId } from '../../test/support/factories.js';
import { runningCollab, type DashboardClient } from '../../test/support/dashboard-client.js';
import { signOrderBody } from './signature.js';

const SECRET = 'orders-webhook-secret-0123456789';

describeEachDatabase(
  'order intake and attribution',
  (use) => {
    let shower: DashboardClient;
    let partner: DashboardClient;
    let partnerDomain: string;
    let platformId: string;
    let token: string;

    beforeAll(async () => {
      ({ shower, partner, partnerDomain, platformId, token } = await runningCollab(use()));
      const click = await use().app.inject({ method: 'GET', url: `/r/${token}` });
      expect(click.statusCode).toBe(302);
      expect(click.headers.location).toContain('/discount/PARTNER15-');
    });

    const deliver = (body: unknown, options: { timestamp?: number; signature?: string | null; raw?: string } = {}) => {
      const payload = options.raw ?? JSON.stringify(body);
      const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
      const signature = options.signature === undefined ? signOrderBody(SECRET, timestamp, payload) : options.signature;
      return use().app.inject({
        method: 'POST',
        url: '/webhooks/commerce/orders',
        headers: {
          'content-type': 'application/json',
          'x-svc-timestamp': String(timestamp),
          ...(signature === null ? {} : { 'x-svc-signature': signature }),
        },
        payload,
      });
    };
    const order = (overrides: Record<string, unknown> = {}) => ({
      orderId: uniqueId('order'),
      storeDomain: partnerDomain,
      customerId: 'customer-1',
      totalCents: 10_000,
      currency: 'usd',
      placedAt: new Date().toISOString(),
      ...overrides,
    });
    const stats = async (id = platformId) =>
      (
        await use().app.inject({
          method: 'GET',
          url: `/admin/platforms/${id}/stats`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      ).json();
    const stored = async () => ({
      orders: await use().db.selectFrom('attributed_orders').selectAll().orderBy('order_id').execute(),
      ledger: await use().db.selectFrom('commission_ledger').selectAll().orderBy('id').execute(),
      customers: await use().db.selectFrom('store_customers').selectAll().orderBy('customer_ref').execute(),
      counters: await use()
        .db.selectFrom('attribution_counters')
        .selectAll()
        .orderBy('platform_id')
        .orderBy('day')
        .orderBy('campaign_id')
        .execute(),
    });

    it(`credits an order through the referral link to the platform; a new \
customer's first order carries 5%; a replay counts once`, async () => {
      const first = order({ referralToken: token });
      const response = await deliver(first);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        orderId: first.orderId,
        duplicate: false,
        platformId,
        matchedBy: 'referral_link',
        touch: 'click',
        outsideWindow: false,
        newCustomer: true,
        customerBasis: 'store_history',
        commissionCents: 500,
        currency: 'USD',
        eventsApplied: [],
      });
      const usd = { currency: 'USD', orders: 1, newCustomers: 1, revenueMinor: 10_000, commissionMinor: 500 };
      const credited = { views: 1, clicks: 1, orders: 1, newCustomers: 1, money: [usd] };
      expect(await stats()).toEqual(credited);

      const replay = await deliver(first);
      expect(replay.json()).toMatchObject({ duplicate: true, commissionCents: 500 });
      expect(await stats()).toEqual(credited);

      const again = await deliver(order({ referralToken: token }));
      expect(again.json()).toMatchObject({ platformId, newCustomer: false, commissionCents: 0 });
      expect((await stats()).orders).toBe(2);
      const rows = await use().db.selectFrom('attributed_orders').select(['customer_ref']).execute();
      expect(rows.map((row) => row.customer_ref)).not.toContain('customer-1');
    });

    it("credits an order with only the partner's discount code to the brand pair, not to the platform clicked last", async () => {
      const response = await deliver(order({ customerId: 'customer-2', discountCode: 'NOT-THE-CODE' }));
      expect(response.json()).toMatchObject({ platformId: null, newCustomer: true, commissionCents: 0 });
      const location = (await use().app.inject({ method: 'HEAD', url: `/r/${token}` })).headers.location as string;
      const code = decodeURIComponent(/\/discount\/([^/?]+)/.exec(location)![1]!);
      const coded = await deliver(order({ customerId: 'customer-3', discountCode: code.toLowerCase(), totalCents: 2_999 }));
      expect(coded.json()).toMatchObject({ platformId: null, matchedBy: 'discount_code', newCustomer: true, commissionCents: 150 });
      expect((await stats()).orders).toBe(2);
    });

    it('shows both brands the same figures as the admin stats, the code-only order under "unknown platform", as JSON and CSV', async () => {
      const day = new Date().toISOString().slice(0, 10);
      const platformStats = await stats();
      const unknownStats = await stats('unknown');
      const coded = { currency: 'USD', orders: 1, newCustomers: 1, revenueMinor: 2_999, commissionMinor: 150 };
      expect(unknownStats).toEqual({ views: 0, clicks: 0, orders: 1, newCustomers: 1, money: [coded] });
      for (const client of [shower, partner]) {
        const report = (await client.get(`/dashboard/api/performance?from=${day}&to=${day}`)).json();
        expect(report.byPlatform).toEqual([
          expect.objectContaining({
            platformId,
            ...platformStats,
            newCustomers: 1,
            money: [{ currency: 'USD', orders: 2, newCustomers: 1, revenueMinor: 20_000, commissionMinor: 500 }],
          }),
          { platformId: null, name: 'unknown platform', ...unknownStats },
        ]);
        expect(report.totals).toEqual({
          views: 1,
          clicks: 1,
          orders: 3,
          newCustomers: 2,
          money: [{ currency: 'USD', orders: 3, newCustomers: 2, revenueMinor: 22_999, commissionMinor: 650 }],
        });
        const csv = await client.get(`/dashboard/api/performance.csv?from=${day}&to=${day}`);
        expect(csv.headers['content-type']).toContain('text/csv');
        expect(csv.body.split('\r\n')[0]).toBe(
          'group,id,name,views,clicks,orders,newCustomers,currency,revenueMinor,revenue,commissionMinor,commission',
        );
        expect(csv.body).toContain(`platform,${platformId},${report.byPlatform[0].name},1,1,2,1,USD,20000,200,500,5`);
      }
      const bad = [`from=${day}`, 'from=yesterday&to=today', `from=${day}&to=2000-01-01`, 'from=2020-01-01&to=2022-01-01'];
      for (const query of bad) expect((await shower.get(`/dashboard/api/performance?${query}`)).statusCode, query).toBe(400);
    });

    const refusals: Array<[string, () => Promise<{ statusCode: number; json(): unknown }>, number, string]> = [
      ['no signature', () => deliver(order(), { signature: null }), 401, 'unauthorized'],
      [
        'a wrong signature',
        () => deliver(order(), { signature: signOrderBody('another-secret-0123456789', Math.floor(Date.now() / 1000), '{}') }),
        401,
        'unauthorized',
      ],
      ['a stale timestamp', () => deliver(order(), { timestamp: Math.floor(Date.now() / 1000) - 3600 }), 401, 'unauthorized'],
      [
        'a body changed after signing',
        () => {
          const timestamp = Math.floor(Date.now() / 1000);
          return deliver(undefined, {
            timestamp,
            signature: signOrderBody(SECRET, timestamp, JSON.stringify(order())),
            raw: JSON.stringify(order({ totalCents: 1 })),
          });
        },
        401,
        'unauthorized',
      ],
      ['malformed JSON', () => deliver(undefined, { raw: '{"orderId":' }), 400, 'invalid_request'],
      // The signature first, on the raw bytes: an unsigned body is never parsed nor its values walked (issue 44).
      ['malformed JSON and no signature', () => deliver(undefined, { raw: '{"orderId":', signature: null }), 401, 'unauthorized'],
      [
        'a NUL character and a wrong signature',
        () =>
          deliver(order({ customerId: 'a\u0000b' }), {
            signature: signOrderBody('another-secret-0123456789', Math.floor(Date.now() / 1000), '{}'),
          }),
        401,
        'unauthorized',
      ],
      [
        'a body past the limit sent without Content-Length, refused while it streams',
        () => {
          const timestamp = Math.floor(Date.now() / 1000);
          const chunk = 'x'.repeat(64 * 1024);
          return use().app.inject({
            method: 'POST',
            url: '/webhooks/commerce/orders',
            headers: {
              'content-type': 'application/json',
              'x-svc-timestamp': String(timestamp),
              'x-svc-signature': signOrderBody(SECRET, timestamp, '{}'),
            },
            payload: Readable.from(Array.from({ length: 24 }, () => Buffer.from(chunk))),
          });
        },
        400,
        'invalid_request',
      ],
      ['a missing order id', () => deliver({ ...order(), orderId: undefined }), 400, 'invalid_request'],
      ['a wrong type', () => deliver(order({ totalCents: '100' })), 400, 'invalid_request'],
      ['a too long order id', () => deliver(order({ orderId: 'x'.repeat(201) })), 400, 'invalid_request'],
      ['a bad date', () => deliver(order({ placedAt: 'yesterday' })), 400, 'invalid_request'],
      ['a currency that is not ISO 4217', () => deliver(order({ referralToken: token, currency: 'ZZZ' })), 400, 'invalid_currency'],
      ['merchandise above the total', () => deliver(order({ totalCents: 100, merchandiseCents: 101 })), 400, 'invalid_request'],
    ];
    for (const [check, send, status, error] of refusals) {
      it(`refuses a delivery with ${check}, writing nothing`, async () => {
        const before = await stored();
        const response = await send();
        expect(response.statusCode).toBe(status);
        expect(response.json()).toMatchObject({ error, message: expect.any(String) });
        expect(await stored()).toEqual(before);
      });
    }
  },
  { ORDERS_WEBHOOK_SECRET: SECRET },
);
