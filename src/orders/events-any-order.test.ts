import { expect, it } from 'vitest';
import { describeEachDatabase, type TestContext } from '../../test/support/harness.js';
import { createBrand, createPlatform, uniqueId } from '../../test/support/factories.js';
import { seedPartnerOffer } from '../../test/durability/seed.js';
import { receiveOrder, recordOrderEvent } from './service.js';

/** Every ordering of the items. */
function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, index) => permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]));
}

type Delivery = 'order' | 'refund' | 'cancel';

/** A partner's order credited to a click, its refund and its cancel, each deliverable at any moment, any number of times. */
async function orderWorld(context: TestContext) {
  const { companyId: brandId } = await createBrand(context.support);
  const partner = await seedPartnerOffer(context.support, brandId);
  const platformId = (await createPlatform(context.support)).platformId;
  const link = { platformId, campaignId: partner.campaignId, brandId, partnerId: partner.partnerId };
  const [token] = await context.runtime.attribution.referralTokens([link]);
  await context.runtime.attribution.counters.record([link], 0, 1, new Date(Date.now() - 3_600_000));
  const orderId = uniqueId('order');
  const placedAt = new Date();
  const deliver: Record<Delivery, () => Promise<unknown>> = {
    order: () =>
      receiveOrder(
        { db: context.db, ...context.config.orders },
        {
          storeDomain: partner.domain,
          orderId,
          customerId: uniqueId('customer'),
          totalCents: 12_000,
          merchandiseCents: 10_000,
          currency: 'USD',
          placedAt,
          referralToken: token!,
        },
      ),
    refund: () =>
      recordOrderEvent(
        { db: context.db },
        {
          storeDomain: partner.domain,
          orderId,
          eventId: `refund-${orderId}`,
          kind: 'refund',
          amountCents: 3_000,
          currency: 'USD',
          occurredAt: new Date(placedAt.getTime() + 60_000),
        },
      ),
    cancel: () =>
      recordOrderEvent(
        { db: context.db },
        {
          storeDomain: partner.domain,
          orderId,
          eventId: `cancel-${orderId}`,
          kind: 'cancel',
          occurredAt: new Date(placedAt.getTime() + 120_000),
        },
      ),
  };
  const ledger = () =>
    context.db
      .selectFrom('commission_ledger')
      .select(['kind', 'event_id', 'amount_minor', 'basis_minor'])
      .where('order_id', '=', orderId)
      .orderBy('event_id')
      .execute();
  const events = () =>
    context.db
      .selectFrom('order_events')
      .select(['event_id', 'amount_cents'])
      .where('order_id', '=', orderId)
      .orderBy('event_id')
      .execute();
  const waiting = () => context.db.selectFrom('order_events_ahead').select('event_id').where('order_id', '=', orderId).execute();
  return { orderId, deliver, ledger, events, waiting };
}

describeEachDatabase('cancels and refunds in any order', (use) => {
  it(`ends with the same ledger whatever order the order, its refund and its cancel come in, each delivered twice`, async () => {
    const sequences = permutations<Delivery>(['order', 'refund', 'cancel']).flatMap((once) => [
      [...once, ...once],
      once.flatMap((delivery) => [delivery, delivery]),
    ]);
    expect(sequences).toHaveLength(12);
    for (const sequence of sequences) {
      const world = await orderWorld(use());
      for (const delivery of sequence) await world.deliver[delivery]();
      const check = sequence.join(', ');
      // Whatever came first, the whole order was taken back and its whole commission (and base) reversed, each event once.
      const ledger = await world.ledger();
      expect(
        ledger.filter((entry) => entry.kind === 'commission'),
        check,
      ).toEqual([{ kind: 'commission', event_id: '', amount_minor: 500, basis_minor: 10_000 }]);
      const reversals = ledger.filter((entry) => entry.kind === 'reversal');
      expect(
        reversals.reduce((sum, entry) => sum + entry.amount_minor, 0),
        check,
      ).toBe(-500);
      expect(
        reversals.reduce((sum, entry) => sum + entry.basis_minor, 0),
        check,
      ).toBe(10_000);
      expect(new Set(reversals.map((entry) => entry.event_id)).size, check).toBe(reversals.length);
      const events = await world.events();
      expect(
        events.map((event) => event.event_id),
        check,
      ).toEqual([`cancel-${world.orderId}`, `refund-${world.orderId}`]);
      expect(
        events.reduce((sum, event) => sum + event.amount_cents, 0),
        check,
      ).toBe(12_000);
      // Events kept ahead of their order are applied in the order they occurred: the refund, then the cancel of the rest.
      const orderCameLast = sequence.indexOf('order') > Math.max(sequence.indexOf('refund'), sequence.indexOf('cancel'));
      if (orderCameLast) {
        expect(ledger, check).toEqual([
          { kind: 'commission', event_id: '', amount_minor: 500, basis_minor: 10_000 },
          { kind: 'reversal', event_id: `cancel-${world.orderId}`, amount_minor: -375, basis_minor: 7_500 },
          { kind: 'reversal', event_id: `refund-${world.orderId}`, amount_minor: -125, basis_minor: 2_500 },
        ]);
      }
      expect(await world.waiting(), check).toEqual([]);
    }
  });

  it('ends the same for an order and a partial refund in either order, and says when an event waits for its order', async () => {
    const refundFirst = await orderWorld(use());
    expect(await refundFirst.deliver.refund()).toMatchObject({
      status: 'waiting_for_order',
      duplicate: false,
      takenCents: 0,
      currency: 'USD',
    });
    expect(await refundFirst.deliver.refund()).toMatchObject({ status: 'waiting_for_order', duplicate: true });
    expect(await refundFirst.waiting()).toHaveLength(1);
    expect(await refundFirst.deliver.order()).toMatchObject({
      commissionCents: 500,
      eventsApplied: [expect.objectContaining({ status: 'applied', takenCents: 3_000, reversedCents: 125 })],
    });
    expect(await refundFirst.deliver.refund()).toMatchObject({ status: 'applied', duplicate: true, reversedCents: 125 });

    const orderFirst = await orderWorld(use());
    await orderFirst.deliver.order();
    await orderFirst.deliver.refund();
    const strip = (rows: Array<{ event_id: string }>, orderId: string) =>
      rows.map((row) => ({ ...row, event_id: row.event_id.replace(orderId, 'the-order') }));
    expect(strip(await refundFirst.ledger(), refundFirst.orderId)).toEqual(strip(await orderFirst.ledger(), orderFirst.orderId));
    expect(strip(await refundFirst.events(), refundFirst.orderId)).toEqual(strip(await orderFirst.events(), orderFirst.orderId));
  });

  it('refuses an event id already kept for another order, keeping nothing more', async () => {
    const world = await orderWorld(use());
    await world.deliver.refund();
    const before = await use().db.selectFrom('order_events_ahead').selectAll().orderBy('event_id').execute();
    await expect(
      recordOrderEvent(
        { db: use().db },
        {
          storeDomain: (await use().db.selectFrom('order_events_ahead').select('store_domain').executeTakeFirstOrThrow()).store_domain,
          orderId: 'another-order',
          eventId: `refund-${world.orderId}`,
          kind: 'cancel',
          occurredAt: new Date(),
        },
      ),
    ).rejects.toMatchObject({ statusCode: 409, code: 'conflict' });
    expect(await use().db.selectFrom('order_events_ahead').selectAll().orderBy('event_id').execute()).toEqual(before);
  });
});
