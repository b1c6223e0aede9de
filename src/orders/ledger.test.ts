import { expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeOnBothEngines, type TestContext } from '../../test/support/harness.js';
import { createBrand, createPlatform, uniqueId } from '../../test/support/factories.js';
import { addCampaign, seedPartnerOffer } from '../../test/durability/seed.js';
import type { LinkKey } from '../attribution/dal.js';
import { receiveOrder, recordOrderEvent, saveAttributionSettings, type IncomingOrder } from './service.js';
import { signOrderBody } from './signature.js';

const SECRET = 'orders-webhook-secret-0123456789';
const DAY_MS = 86_400_000;
/** Noon UTC today: the order's day, whatever the hour the test runs. */
const ORDER_AT = new Date(`${new Date().toISOString().slice(0, 10)}T12:00:00Z`);
const daysBefore = (days: number) => new Date(ORDER_AT.getTime() - days * DAY_MS);

/** A showing brand and a partner whose offer (with its discount code) it shows on one or two platforms. */
async function partnerWorld(context: TestContext) {
  const { companyId: brandId } = await createBrand(context.support);
  const partner = await seedPartnerOffer(context.support, brandId);
  const [p1, p2] = [(await createPlatform(context.support)).platformId, (await createPlatform(context.support)).platformId];
  const link = (platformId: string): LinkKey => ({ platformId, campaignId: partner.campaignId, brandId, partnerId: partner.partnerId });
  const links = { p1: link(p1), p2: link(p2) };
  const [token] = await context.runtime.attribution.referralTokens([links.p1]);
  const show = (key: LinkKey, views: number, clicks: number, daysAgo: number) =>
    context.runtime.attribution.counters.record([key], views, clicks, new Date(daysBefore(daysAgo).getTime() - 3_600_000));
  const order = (overrides: Partial<IncomingOrder> = {}) =>
    receiveOrder(
      { db: context.db, ...context.config.orders },
      {
        storeDomain: partner.domain,
        orderId: uniqueId('order'),
        customerId: uniqueId('customer'),
        totalCents: 10_000,
        currency: 'USD',
        placedAt: ORDER_AT,
        ...overrides,
      },
    );
  const ledger = () =>
    context.db.selectFrom('commission_ledger').selectAll().where('receiving_brand_id', '=', partner.partnerId).orderBy('id').execute();
  return { brandId, partner, links, token: token!, show, order, ledger };
}

describeOnBothEngines(
  'attribution window and commission ledger',
  (use) => {
    it('attributes an order to a click 14 days before it, and records one 15 days after its click without attributing it', async () => {
      const inside = await partnerWorld(use());
      await inside.show(inside.links.p1, 0, 1, 14);
      const attributed = await inside.order({ referralToken: inside.token });
      expect(attributed).toMatchObject({
        platformId: inside.links.p1.platformId,
        touch: 'click',
        outsideWindow: false,
        commissionCents: 500,
      });
      expect(await inside.ledger()).toEqual([
        expect.objectContaining({
          kind: 'commission',
          receiving_brand_id: inside.partner.partnerId,
          showing_brand_id: inside.brandId,
          platform_id: inside.links.p1.platformId,
          order_id: attributed.orderId,
          amount_minor: 500,
          currency: 'USD',
          rate_basis_points: 500,
          customer: 'new',
          customer_basis: 'store_history',
          touch: 'click',
          commerce_charge_id: null,
        }),
      ]);

      const outside = await partnerWorld(use());
      await outside.show(outside.links.p1, 0, 1, 15);
      const late = await outside.order({ referralToken: outside.token, discountCode: outside.partner.discountCode! });
      expect(late).toMatchObject({ platformId: null, touch: null, outsideWindow: true, newCustomer: true, commissionCents: 0 });
      expect(await outside.ledger()).toEqual([]);
      const stored = await use()
        .db.selectFrom('attributed_orders')
        .selectAll()
        .where('order_id', '=', late.orderId)
        .executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ platform_id: null, outside_window: true, total_cents: 10_000 });
    });

    it('counts a view only where the store turned view-through on; the last click in the window beats a later view', async () => {
      const world = await partnerWorld(use());
      const code = world.partner.discountCode!;
      await world.show(world.links.p2, 4, 0, 2);
      expect(await world.order({ discountCode: code })).toMatchObject({ platformId: null, outsideWindow: true });

      expect(await saveAttributionSettings({ db: use().db }, world.partner.partnerId, { viewThrough: true })).toEqual({
        viewThrough: true,
      });
      // A discount code names the brand pair, not the platform the shopper met the offer on.
      const viewed = await world.order({ discountCode: code });
      expect(viewed).toMatchObject({ platformId: null, matchedBy: 'discount_code', touch: 'view', commissionCents: 500 });

      await world.show(world.links.p1, 0, 1, 10);
      const clicked = await world.order({ discountCode: code });
      expect(clicked).toMatchObject({ platformId: null, matchedBy: 'discount_code', touch: 'click' });
      const viaLink = await world.order({ referralToken: world.token });
      expect(viaLink).toMatchObject({ platformId: world.links.p1.platformId, matchedBy: 'referral_link', touch: 'click' });
      expect((await world.ledger()).map((entry) => [entry.showing_brand_id, entry.platform_id, entry.touch])).toEqual([
        [world.brandId, null, 'view'],
        [world.brandId, null, 'click'],
        [world.brandId, world.links.p1.platformId, 'click'],
      ]);

      const far = await partnerWorld(use());
      await saveAttributionSettings({ db: use().db }, far.partner.partnerId, { viewThrough: true });
      await far.show(far.links.p1, 3, 0, 15);
      await far.show(far.links.p2, 3, 0, 14);
      expect(await far.order({ discountCode: far.partner.discountCode! })).toMatchObject({ platformId: null, touch: 'view' });
    });

    it(`credits the partner's code to the brand pair with no platform (the shopper's platform is unknown), and records a \
returning customer's order at 0 with its reason`, async () => {
      const world = await partnerWorld(use());
      await world.show(world.links.p1, 0, 5, 6);
      await world.show(world.links.p2, 0, 1, 3);
      const first = await world.order({ discountCode: world.partner.discountCode!.toLowerCase(), customerOrderCount: 1 });
      expect(first).toMatchObject({
        platformId: null,
        matchedBy: 'discount_code',
        newCustomer: true,
        customerBasis: 'platform_order_count',
      });
      const stored = await use()
        .db.selectFrom('attributed_orders')
        .selectAll()
        .where('order_id', '=', first.orderId)
        .executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ platform_id: null, brand_id: world.brandId, partner_id: world.partner.partnerId });
      const returning = await world.order({ discountCode: world.partner.discountCode!, customerOrderCount: 3 });
      expect(returning).toMatchObject({ newCustomer: false, customerBasis: 'platform_order_count', commissionCents: 0 });
      expect(
        (await world.ledger()).map((entry) => [entry.amount_minor, entry.rate_basis_points, entry.customer, entry.customer_basis]),
      ).toEqual([
        [500, 500, 'new', 'platform_order_count'],
        [0, 0, 'returning', 'platform_order_count'],
      ]);
    });

    it(`credits the platform the shopper clicked on, even when another platform had more clicks that day; the partner's code \
alone credits no platform, and no platform's clicks choose its brand pair`, async () => {
      const world = await partnerWorld(use());
      const code = world.partner.discountCode!;
      // The shopper clicked on p1; p2 had far more clicks the same day.
      await world.show(world.links.p1, 0, 1, 2);
      await world.show(world.links.p2, 0, 9, 2);
      // The Shopify discount link brings both: the token the shopper came with, and the code on the cart.
      expect(await world.order({ referralToken: world.token, discountCode: code })).toMatchObject({
        platformId: world.links.p1.platformId,
        matchedBy: 'referral_link',
        touch: 'click',
      });
      expect(await world.order({ referralToken: world.token })).toMatchObject({ platformId: world.links.p1.platformId });
      // A token of another store's link proves nothing here: the code alone decides, with no platform.
      expect(await world.order({ referralToken: (await partnerWorld(use())).token, discountCode: code })).toMatchObject({
        platformId: null,
        matchedBy: 'discount_code',
      });
      expect(await world.order({ discountCode: code })).toMatchObject({ platformId: null, matchedBy: 'discount_code' });
      expect((await world.ledger()).map((entry) => [entry.showing_brand_id, entry.platform_id])).toEqual([
        [world.brandId, world.links.p1.platformId],
        [world.brandId, world.links.p1.platformId],
        [world.brandId, null],
        [world.brandId, null],
      ]);

      // Two brands show the partner's offer, clicked the same day: Other on one platform (3), the first brand on two (2 + 2).
      const shared = await partnerWorld(use());
      const { companyId: otherId } = await createBrand(use().support);
      const { campaignId } = await addCampaign(use().db, otherId, shared.partner.partnerId);
      await shared.show({ ...shared.links.p1, brandId: otherId, campaignId }, 0, 3, 1);
      await shared.show(shared.links.p1, 0, 2, 1);
      await shared.show(shared.links.p2, 0, 2, 1);
      const byCode = await shared.order({ discountCode: shared.partner.discountCode! });
      expect(byCode).toMatchObject({ platformId: null, matchedBy: 'discount_code', touch: 'click' });
      const stored = await use()
        .db.selectFrom('attributed_orders')
        .select(['brand_id', 'campaign_id', 'platform_id'])
        .where('order_id', '=', byCode.orderId)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual({ brand_id: shared.brandId, campaign_id: shared.partner.campaignId, platform_id: null });
    });

    it(`reverses by entries of the opposite sign: a partial refund its share, a replay nothing, a cancel the rest; \
entries never change`, async () => {
      const world = await partnerWorld(use());
      await world.show(world.links.p1, 0, 1, 1);
      const placed = await world.order({ referralToken: world.token, totalCents: 9_999 });
      expect(placed.commissionCents).toBe(500);
      const event = (eventId: string, kind: 'refund' | 'cancel', amountCents?: number) =>
        recordOrderEvent(
          { db: use().db },
          { storeDomain: world.partner.domain, orderId: placed.orderId, eventId, kind, amountCents, occurredAt: new Date() },
        );
      expect(await event('refund-1', 'refund', 2_500)).toMatchObject({ duplicate: false, takenCents: 2_500, reversedCents: 125 });
      expect(await event('refund-1', 'refund', 2_500)).toMatchObject({ duplicate: true, takenCents: 2_500, reversedCents: 125 });
      expect(await event('refund-2', 'refund', 3_333)).toMatchObject({ duplicate: false, reversedCents: 167 });
      expect(await event('cancel-1', 'cancel')).toMatchObject({ takenCents: 4_166, reversedCents: 208 });
      expect(await event('refund-3', 'refund', 100)).toMatchObject({ takenCents: 0, reversedCents: 0 });
      const entries = await world.ledger();
      expect(entries.map((entry) => [entry.kind, entry.event_id, entry.amount_minor, entry.basis_minor])).toEqual([
        ['commission', '', 500, 9_999],
        ['reversal', 'refund-1', -125, 2_500],
        ['reversal', 'refund-2', -167, 3_333],
        ['reversal', 'cancel-1', -208, 4_166],
      ]);
      expect(entries.reduce((sum, entry) => sum + entry.amount_minor, 0)).toBe(0);
      for (const entry of entries.slice(1)) {
        expect(entry).toMatchObject({ showing_brand_id: world.brandId, platform_id: world.links.p1.platformId, currency: 'USD' });
      }

      const first = entries[0]!;
      await expect(sql`update commission_ledger set amount_minor = 0 where id = ${first.id}`.execute(use().db)).rejects.toThrow(
        /append-only/,
      );
      await expect(sql`delete from commission_ledger where id = ${first.id}`.execute(use().db)).rejects.toThrow(/append-only/);
      // The row trigger does not see a TRUNCATE (issue 23): a statement trigger refuses it. A plain one is refused first by
      // the statements' foreign keys (issue 26); one that cascades past them meets the trigger.
      await expect(sql`truncate commission_ledger`.execute(use().db)).rejects.toThrow(/append-only|foreign key/);
      await expect(sql`truncate commission_ledger cascade`.execute(use().db)).rejects.toThrow(/append-only/);
      await expect(sql`truncate commission_ledger, statement_entries`.execute(use().db)).rejects.toThrow(/append-only/);
      await sql`update commission_ledger set commerce_charge_id = 'charge-1' where id = ${first.id}`.execute(use().db);
      await expect(
        sql`update commission_ledger set commerce_charge_id = 'charge-2' where id = ${first.id}`.execute(use().db),
      ).rejects.toThrow(/append-only/);
      expect((await world.ledger())[0]).toEqual({ ...first, commerce_charge_id: 'charge-1' });
    });

    it('keeps each currency its own: an order in euros and one in dollars are two entries in two currencies', async () => {
      const world = await partnerWorld(use());
      await world.show(world.links.p1, 0, 1, 0);
      await world.order({ referralToken: world.token, currency: 'eur', totalCents: 8_000 });
      await world.order({ referralToken: world.token, currency: 'USD', totalCents: 8_000 });
      expect((await world.ledger()).map((entry) => [entry.amount_minor, entry.currency])).toEqual([
        [400, 'EUR'],
        [400, 'USD'],
      ]);
    });

    const deliverEvent = (body: Record<string, unknown>, signature?: string) => {
      const payload = JSON.stringify(body);
      const timestamp = Math.floor(Date.now() / 1000);
      return use().app.inject({
        method: 'POST',
        url: '/webhooks/commerce/order-events',
        headers: {
          'content-type': 'application/json',
          'x-svc-timestamp': String(timestamp),
          'x-svc-signature': signature ?? signOrderBody(SECRET, timestamp, payload),
        },
        payload,
      });
    };

    it('takes a refund through the signed webhook, once', async () => {
      const world = await partnerWorld(use());
      await world.show(world.links.p1, 0, 1, 0);
      const placed = await world.order({ referralToken: world.token });
      const body = {
        eventId: 'refund-webhook',
        type: 'refund',
        orderId: placed.orderId,
        storeDomain: world.partner.domain,
        amountCents: 5_000,
        currency: 'usd',
        occurredAt: new Date().toISOString(),
      };
      const first = await deliverEvent(body);
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json()).toEqual({
        orderId: placed.orderId,
        eventId: 'refund-webhook',
        duplicate: false,
        status: 'applied',
        takenCents: 5_000,
        reversedCents: 250,
        currency: 'USD',
      });
      expect((await deliverEvent(body)).json()).toMatchObject({ duplicate: true, reversedCents: 250 });
      expect((await world.ledger()).map((entry) => entry.amount_minor)).toEqual([500, -250]);
    });

    it('refuses bad order events with their status and error code, writing nothing', async () => {
      const world = await partnerWorld(use());
      await world.show(world.links.p1, 0, 1, 0);
      const placed = await world.order({ referralToken: world.token });
      const other = await world.order({ referralToken: world.token });
      await recordOrderEvent(
        { db: use().db },
        {
          storeDomain: world.partner.domain,
          orderId: other.orderId,
          eventId: 'taken',
          kind: 'refund',
          amountCents: 10,
          occurredAt: new Date(),
        },
      );
      const event = (overrides: Record<string, unknown>) => ({
        eventId: uniqueId('event'),
        type: 'refund',
        orderId: placed.orderId,
        storeDomain: world.partner.domain,
        amountCents: 1_000,
        occurredAt: new Date().toISOString(),
        ...overrides,
      });
      const stored = async () => ({
        events: await use().db.selectFrom('order_events').selectAll().orderBy('event_id').execute(),
        ledger: await use().db.selectFrom('commission_ledger').selectAll().orderBy('id').execute(),
        ahead: await use().db.selectFrom('order_events_ahead').selectAll().orderBy('event_id').execute(),
      });
      const cases: Array<[string, () => ReturnType<typeof deliverEvent>, number, string]> = [
        ['a currency that is not ISO 4217', () => deliverEvent(event({ currency: 'ZZZ' })), 400, 'invalid_currency'],
        [
          'not ISO 4217, for an order not received',
          () => deliverEvent(event({ orderId: 'later', currency: 'ZZZ' })),
          400,
          'invalid_currency',
        ],
        ['a store that is no domain', () => deliverEvent(event({ storeDomain: 'not a domain' })), 400, 'invalid_request'],
        ['a refund without its amount', () => deliverEvent(event({ amountCents: undefined })), 400, 'invalid_request'],
        ['a zero refund', () => deliverEvent(event({ amountCents: 0 })), 400, 'invalid_request'],
        ['another currency', () => deliverEvent(event({ currency: 'EUR' })), 400, 'invalid_request'],
        ['an unknown type', () => deliverEvent(event({ type: 'chargeback' })), 400, 'invalid_request'],
        ['a bad date', () => deliverEvent(event({ occurredAt: 'yesterday' })), 400, 'invalid_request'],
        ["another order's event id", () => deliverEvent(event({ eventId: 'taken' })), 409, 'conflict'],
        ['a wrong signature', () => deliverEvent(event({}), signOrderBody('another-secret-0123456789', 1, '{}')), 401, 'unauthorized'],
      ];
      for (const [check, send, status, error] of cases) {
        const before = await stored();
        const response = await send();
        expect(response.statusCode, check).toBe(status);
        expect(response.json(), check).toMatchObject({ error, message: expect.any(String) });
        expect(await stored(), check).toEqual(before);
      }
    });
  },
  { ORDERS_WEBHOOK_SECRET: SECRET },
);
