import crypto from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { ADMIN_TOKEN, describeEachDatabase } from '../../test/support/harness.js';
import { createBrand, createPlatform, uniqueId } from '../../test/support/factories.js';
import { browserHost, domainForms, label } from '../../test/support/domain-forms.js';
import { tableContents } from '../../test/support/snapshot.js';
import { DashboardClient, DASHBOARD_PASSWORD } from '../../test/support/dashboard-client.js';
import { signOrderBody } from '../orders/signature.js';

const WEBHOOK_SECRET = 'orders-webhook-secret-0123456789';
// Labels UTS-46 does not map: one mixing writing directions, Arabic-Indic digits alone (a right-to-left
// label that starts with a number), a punycode prefix on Unicode, a full-width slash (a "/" inside the host).
const UNMAPPABLE = ['shopשלום.example', '٠١٢.example', 'xn--café.example', 'brand.example／shop'];

type Outcome = { domain: string } | { status: number; error: string; message: string };

/**
 * Every place a store domain enters the service, each as a client calls it, answering with the
 * domain the service stored or showed, or the refusal.
 */
describeEachDatabase(
  'one canonical domain at every entry point',
  (use) => {
    let platformId: string;
    let platformKey: string;
    let supportCompanyId: string;
    beforeAll(async () => {
      ({ platformId, key: platformKey } = await createPlatform(use().support));
      ({ companyId: supportCompanyId } = await createBrand(use().support));
    });

    const refusal = (response: { statusCode: number; json(): { error: string; message: string } }): Outcome => ({
      status: response.statusCode,
      error: response.json().error,
      message: response.json().message,
    });

    const entries: Record<string, (domain: string) => Promise<Outcome>> = {
      sync: async (domain) => {
        const records = async () =>
          (
            await use().db.selectFrom('platform_brands').select(['domain', 'updated_at']).where('platform_id', '=', platformId).execute()
          ).map((row) => `${row.domain} ${row.updated_at.toISOString()}`);
        const before = new Set(await records());
        const response = await use().app.inject({
          method: 'POST',
          url: '/v1/platform/brands',
          headers: { 'content-type': 'application/json', 'x-api-key': platformKey },
          payload: JSON.stringify({ brands: [{ domain }] }),
        });
        if (response.statusCode !== 200) return refusal(response);
        // The record this sync created or updated (a sync sets updated_at to its request's time).
        const written = (await records()).filter((record) => !before.has(record)).map((record) => record.split(' ')[0]!);
        return { domain: written.join(', ') };
      },
      signUp: async (domain) => {
        const account = await new DashboardClient(use().app).start();
        const response = await account.signUp({
          email: `${uniqueId('d')}@forms.example`,
          password: DASHBOARD_PASSWORD,
          brand: { businessName: 'Forms', domain },
        });
        return response.statusCode === 201 ? { domain: response.json().claim.domain } : refusal(response);
      },
      plugin: async (domain) => {
        const response = await use().app.inject({
          method: 'GET',
          url: `/plugin/v2/embed?${new URLSearchParams({ platformId: crypto.randomUUID(), domain })}`,
        });
        if (response.statusCode !== 200) return refusal(response);
        const boot = /<script type="application\/json" id="embed-boot">(.*?)<\/script>/.exec(response.body)![1]!;
        return { domain: JSON.parse(boot).domain };
      },
      orders: async (domain) => {
        const orderId = uniqueId('order');
        const payload = JSON.stringify({
          orderId,
          storeDomain: domain,
          customerId: 'c-1',
          totalCents: 1_000,
          currency: 'USD',
          placedAt: new Date().toISOString(),
        });
        const timestamp = Math.floor(Date.now() / 1000);
        const response = await use().app.inject({
          method: 'POST',
          url: '/webhooks/commerce/orders',
          headers: {
            'content-type': 'application/json',
            'x-svc-timestamp': String(timestamp),
            'x-svc-signature': signOrderBody(WEBHOOK_SECRET, timestamp, payload),
          },
          payload,
        });
        if (response.statusCode !== 200) return refusal(response);
        const stored = await use()
          .db.selectFrom('attributed_orders')
          .select('store_domain')
          .where('order_id', '=', orderId)
          .executeTakeFirstOrThrow();
        return { domain: stored.store_domain };
      },
      // Support moves one company of its own from domain to domain, so no two runs compete for one.
      support: async (domain) => {
        const response = await use().app.inject({
          method: 'PATCH',
          url: `/admin/companies/${supportCompanyId}`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ domain }),
        });
        return response.statusCode === 200 ? { domain: response.json().domain } : refusal(response);
      },
    };

    it('gives the same canonical domain at sync, sign-up, plugin, orders and support, for every form of it', async () => {
      // A distinct last label before the top-level one keeps each run's records apart (a company's domain is unique).
      const hosts = fc
        .tuple(
          fc.array(label, { minLength: 0, maxLength: 2 }),
          fc.stringMatching(/^[a-z]{10}$/),
          fc.constantFrom('example', 'shop', 'café', 'онлайн'),
        )
        .map(([labels, distinct, top]) => [...labels, distinct, top].join('.'))
        .filter((host) => !host.startsWith('www.'));
      await fc.assert(
        fc.asyncProperty(domainForms(hosts), async ({ input, plain }) => {
          const expected = browserHost(plain);
          for (const [entry, send] of Object.entries(entries))
            expect(await send(input), `${entry} of ${input}`).toEqual({ domain: expected });
        }),
        { numRuns: 20 },
      );
    });

    it('refuses a domain UTS-46 does not map with 400 naming the field, at every entry point, writing nothing', async () => {
      const fields: Record<string, RegExp> = {
        sync: /^brands\[0\]\.domain does not map to a domain name \(UTS-46\)/,
        signUp: /^brand\.domain must be a store domain/,
        plugin: /domain \(a store domain\)/,
        orders: /^storeDomain must be a store domain/,
        support: /^domain does not map to a domain name \(UTS-46\)/,
      };
      for (const domain of UNMAPPABLE) {
        for (const [entry, send] of Object.entries(entries)) {
          const before = await tableContents(use().db);
          expect(await send(domain), `${entry} of ${domain}`).toEqual({
            status: 400,
            error: 'invalid_request',
            message: expect.stringMatching(fields[entry]!),
          });
          expect(await tableContents(use().db), `${entry} of ${domain}`).toEqual(before);
        }
      }
    });

    it('refuses a claim of a domain UTS-46 does not map with 400 naming the field, writing nothing', async () => {
      const account = await new DashboardClient(use().app).start();
      expect(
        (
          await account.signUp({
            email: `${uniqueId('d')}@forms.example`,
            password: DASHBOARD_PASSWORD,
            brand: { businessName: 'First', domain: `${uniqueId('first')}.example` },
          })
        ).statusCode,
      ).toBe(201);
      for (const domain of UNMAPPABLE) {
        const before = await tableContents(use().db);
        const response = await account.post('/dashboard/api/claim', { brand: { businessName: 'Second', domain } });
        expect(response.statusCode, domain).toBe(400);
        expect(response.json()).toMatchObject({
          error: 'invalid_request',
          message: expect.stringMatching(/^brand\.domain must be a store domain/),
        });
        expect(await tableContents(use().db)).toEqual(before);
      }
    });

    it(`refuses a sign-up or claim naming a staffed brand's store in another form (full-width, Unicode, \
punycode) with 409 brand_has_staff, writing nothing`, async () => {
      const id = uniqueId('staffed');
      const ascii = `${id}.example`;
      const unicode = `${id}-café.example`;
      await new DashboardClient(use().app).signUpBrand('Staffed', ascii, `${uniqueId('s')}@staffed.example`);
      await new DashboardClient(use().app).signUpBrand('Staffed Café', unicode, `${uniqueId('s')}@staffed.example`);
      const widen = (text: string, chars: RegExp) =>
        [...text].map((char) => (chars.test(char) ? String.fromCodePoint(char.codePointAt(0)! + 0xfee0) : char)).join('');
      // Full-width letters and digits with ASCII dots: the form that made a second verified company before.
      const widened = widen(ascii, /[a-z0-9]/);
      const pending = await new DashboardClient(use().app).start();
      expect(
        (
          await pending.signUp({
            email: `${uniqueId('p')}@forms.example`,
            password: DASHBOARD_PASSWORD,
            brand: { businessName: 'Pending', domain: `${uniqueId('other')}.example` },
          })
        ).statusCode,
      ).toBe(201);

      for (const form of [
        widened,
        widen(ascii, /./),
        `https://ｗｗｗ．${widened}/`,
        ascii.toUpperCase(),
        `${id}-CAFÉ.example`,
        new URL(`http://${unicode}`).hostname,
        `${id}-cafe\u0301.example`,
      ]) {
        const before = await tableContents(use().db);
        const signUp = await new DashboardClient(use().app).start();
        const refused = await signUp.signUp({
          email: `${uniqueId('a')}@forms.example`,
          password: DASHBOARD_PASSWORD,
          brand: { businessName: 'Again', domain: form },
        });
        expect(refused.statusCode, form).toBe(409);
        expect(refused.json()).toMatchObject({ error: 'brand_has_staff' });
        const claim = await pending.post('/dashboard/api/claim', { brand: { businessName: 'Again', domain: form } });
        expect(claim.statusCode, form).toBe(409);
        expect(claim.json()).toMatchObject({ error: 'brand_has_staff' });
        expect(await tableContents(use().db), form).toEqual(before);
      }
    });
  },
  { ORDERS_WEBHOOK_SECRET: WEBHOOK_SECRET },
);
