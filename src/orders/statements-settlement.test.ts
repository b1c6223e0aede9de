import { beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachDatabase } from '../../test/support/harness.js';
import { runningCollab, type DashboardClient } from '../../test/support/dashboard-client.js';
import { holdCommerceCharge, receiveOrder, recordCommerceCharge, recordOrderEvent } from './service.js';
import { closeEndedMonths } from './statements.js';

const CHARGE = 'gid://shopify/AppUsageRecord/9001';

/**
 * Partner Store's October, settled three ways. Orders A, B and C in dollars, D in euros, all new
 * customers at 5%:
 *
 * | order | total   | commission | what its platform did                      | settled          |
 * |-------|---------|------------|--------------------------------------------|------------------|
 * | A     | $100.00 | +500       | charged it (usage record 9001)             | charged          |
 * | B     | $60.00  | +300       | refused it: the store's capped amount      | held, over_cap   |
 * | C     | $40.00  | +200       | nothing (the store is not billed by it)    | owed             |
 * | D     | €80.00  | +400       | refused it: its plan is in dollars         | held, other_cur. |
 * | A     | refund $50.00 | −250 | reversals are never charged by a platform  | owed (a credit)  |
 *
 * USD: net 750 = charged 500 + held 300 + owed −50; EUR: net 400 = held 400.
 */
describeEachDatabase('statements: charged, held and owed', (use) => {
  let partner: DashboardClient;
  let partnerId: string;
  let partnerDomain: string;
  let token: string;
  const october = (day: number) => new Date(Date.UTC(2026, 9, day, 12));

  beforeAll(async () => {
    ({ partner, partnerId, partnerDomain, token } = await runningCollab(use()));
    expect((await use().app.inject({ method: 'GET', url: `/r/${token}` })).statusCode).toBe(302);
    const { db, config } = use();
    const order = (orderId: string, totalCents: number, currency: string, at: Date) =>
      receiveOrder(
        { db, ...config.orders },
        {
          storeDomain: partnerDomain,
          orderId,
          customerId: `shopper-${orderId}`,
          totalCents,
          currency,
          placedAt: new Date(),
          referralToken: token,
        },
        at,
      );
    await order('A', 10_000, 'USD', october(2));
    await order('B', 6_000, 'USD', october(3));
    await order('C', 4_000, 'USD', october(4));
    await order('D', 8_000, 'EUR', october(5));
    expect(
      await recordCommerceCharge(db, { storeDomain: partnerDomain, orderId: 'A', chargeId: CHARGE, amountMinor: 500, currency: 'USD' }),
    ).toBe(true);
    await holdCommerceCharge(db, { storeDomain: partnerDomain, orderId: 'B', reason: 'no_plan' }, october(3));
    // The latest reason is the one shown: the store approved its plan, then reached its cap.
    await holdCommerceCharge(db, { storeDomain: partnerDomain, orderId: 'B', reason: 'over_cap' }, october(6));
    await holdCommerceCharge(db, { storeDomain: partnerDomain, orderId: 'D', reason: 'other_currency' }, october(5));
    // A hold reported after the charge does not undo it: the ledger entry carries the charge.
    await holdCommerceCharge(db, { storeDomain: partnerDomain, orderId: 'A', reason: 'over_cap' }, october(7));
    await recordOrderEvent(
      { db },
      { storeDomain: partnerDomain, orderId: 'A', eventId: 'refund-a', kind: 'refund', amountCents: 5_000, occurredAt: october(8) },
      october(8),
    );
  });

  const statement = async (month: string) => {
    const response = await partner.get(`/dashboard/api/statement?month=${month}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const USD = {
    currency: 'USD',
    commissionMinor: 1_000,
    reversalsMinor: -250,
    adjustmentsMinor: 0,
    netMinor: 750,
    chargedMinor: 500,
    heldMinor: 300,
    heldReasons: ['over_cap'],
    owedMinor: -50,
    entries: 4,
  };
  const EUR = {
    currency: 'EUR',
    commissionMinor: 400,
    reversalsMinor: 0,
    adjustmentsMinor: 0,
    netMinor: 400,
    chargedMinor: 0,
    heldMinor: 400,
    heldReasons: ['other_currency'],
    owedMinor: 0,
    entries: 1,
  };

  it('splits each currency into charged, held (with the reasons) and owed, which add up to the net, and each entry says how', async () => {
    const open = await statement('2026-10');
    expect(open).toMatchObject({ status: 'open', paid: null, currencies: [EUR, USD] });
    for (const total of open.currencies) expect(total.chargedMinor + total.heldMinor + total.owedMinor).toBe(total.netMinor);
    expect(
      open.entries.map((entry: Record<string, unknown>) => [
        entry.orderId,
        entry.kind,
        entry.settlement,
        entry.heldReason,
        entry.commerceChargeId,
      ]),
    ).toEqual([
      ['A', 'commission', 'charged', null, CHARGE],
      ['B', 'commission', 'held', 'over_cap', null],
      ['C', 'commission', 'owed', null, null],
      ['D', 'commission', 'held', 'other_currency', null],
      ['A', 'reversal', 'owed', null, null],
    ]);

    const csv = (await partner.get('/dashboard/api/statement.csv?month=2026-10')).body.trim().split('\r\n');
    const blanks = ','.repeat(18);
    expect(csv.filter((line: string) => /^(charged|held|owed),/.test(line))).toEqual([
      `charged${blanks},0,0,EUR,,,`,
      `held${blanks},400,4,EUR,,other_currency,`,
      `owed${blanks},0,0,EUR,,,`,
      `charged${blanks},500,5,USD,,,`,
      `held${blanks},300,3,USD,,over_cap,`,
      `owed${blanks},-50,-0.5,USD,,,`,
    ]);
    expect(csv.find((line: string) => line.startsWith('entry,') && line.includes(',B,'))).toMatch(/,300,3,USD,held,over_cap,$/);
    expect(csv.find((line: string) => line.startsWith('entry,') && line.includes(CHARGE))).toMatch(/,500,5,USD,charged,,gid:/);
    const admin = await use().app.inject({
      method: 'GET',
      url: `/admin/companies/${partnerId}/statement?month=2026-10`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(admin.json()).toEqual(open);
  });

  it('fixes the split at the close with a due date; a charge made later shows on its entry, not in the closed totals', async () => {
    expect(await closeEndedMonths(use().db, new Date('2026-11-01T00:10:00Z'))).toEqual(['2026-10']);
    const closed = await statement('2026-10');
    expect(closed).toMatchObject({ status: 'closed', dueOn: '2026-11-15', paid: null, currencies: [EUR, USD] });

    expect(
      await recordCommerceCharge(use().db, {
        storeDomain: partnerDomain,
        orderId: 'B',
        chargeId: 'gid://shopify/AppUsageRecord/9002',
        amountMinor: 300,
        currency: 'USD',
      }),
    ).toBe(true);
    // The EUR order charged on a USD plan, from the shopper's USD: the entry stays EUR and says what was charged.
    await recordCommerceCharge(use().db, {
      storeDomain: partnerDomain,
      orderId: 'D',
      chargeId: 'gid://shopify/AppUsageRecord/9004',
      amountMinor: 437,
      currency: 'USD',
    });
    const after = await statement('2026-10');
    expect(after.currencies).toEqual(closed.currencies.map((total: { currency: string }) => (total.currency === 'USD' ? USD : EUR)));
    expect(after.entries.find((entry: { orderId: string }) => entry.orderId === 'B')).toMatchObject({
      settlement: 'charged',
      heldReason: null,
      chargedAs: { amountMinor: 300, currency: 'USD' },
    });
    expect(after.entries.find((entry: { orderId: string }) => entry.orderId === 'D')).toMatchObject({
      currency: 'EUR',
      settlement: 'charged',
      commerceChargeId: 'gid://shopify/AppUsageRecord/9004',
      chargedAs: { amountMinor: 437, currency: 'USD' },
    });
  });

  it('reads paid when the platform charged all of a statement, and not when anything is held or owed directly', async () => {
    const { db, config } = use();
    await receiveOrder(
      { db, ...config.orders },
      {
        storeDomain: partnerDomain,
        orderId: 'E',
        customerId: 'shopper-E',
        totalCents: 2_000,
        currency: 'USD',
        placedAt: new Date(),
        referralToken: token,
      },
      new Date('2026-11-03T12:00:00Z'),
    );
    expect((await statement('2026-11')).paid).toBeNull();
    await recordCommerceCharge(db, {
      storeDomain: partnerDomain,
      orderId: 'E',
      chargeId: 'gid://shopify/AppUsageRecord/9003',
      amountMinor: 100,
      currency: 'USD',
    });
    const november = await statement('2026-11');
    expect(november.paid).toBe(true);
    expect(november.currencies).toEqual([
      {
        ...USD,
        commissionMinor: 100,
        reversalsMinor: 0,
        netMinor: 100,
        chargedMinor: 100,
        heldMinor: 0,
        heldReasons: [],
        owedMinor: 0,
        entries: 1,
      },
    ]);
  });
});
