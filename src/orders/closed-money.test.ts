import { beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeOnBothEngines } from '../../test/support/harness.js';
import { runningCollab } from '../../test/support/dashboard-client.js';
import { holdCommerceCharge, receiveOrder, recordCommerceCharge } from './service.js';
import { closeEndedMonths, monthlyStatement } from './statements.js';

/**
 * Closed money is append-only (issue 44, migration 0045): a closed statement, the charge holds and
 * the commerce platform's charges it shows cannot be truncated, and the holds change only as the
 * code changes them: re-held while not settled, settled once.
 */
describeOnBothEngines('closed money refuses to be emptied or rewritten', (use) => {
  let partnerId: string;
  let partnerDomain: string;
  const october = (day: number) => new Date(Date.UTC(2026, 9, day, 12));

  beforeAll(async () => {
    let token: string;
    ({ partnerId, partnerDomain, token } = await runningCollab(use()));
    expect((await use().app.inject({ method: 'GET', url: `/r/${token}` })).statusCode).toBe(302);
    const { db, config } = use();
    for (const [orderId, at] of [
      ['A', october(2)],
      ['B', october(3)],
    ] as const) {
      await receiveOrder(
        { db, ...config.orders },
        {
          storeDomain: partnerDomain,
          orderId,
          customerId: `shopper-${orderId}`,
          totalCents: 10_000,
          currency: 'USD',
          placedAt: new Date(),
          referralToken: token,
        },
        at,
      );
    }
    await recordCommerceCharge(
      db,
      { storeDomain: partnerDomain, orderId: 'A', chargeId: 'charge-a', amountMinor: 500, currency: 'USD' },
      october(2),
    );
    await holdCommerceCharge(db, { storeDomain: partnerDomain, orderId: 'B', reason: 'no_plan' }, october(3));
    expect(await closeEndedMonths(db, new Date(Date.UTC(2026, 10, 1, 1)))).toEqual(['2026-10']);
  });

  const refused = (statement: ReturnType<typeof sql>) => expect(statement.execute(use().db)).rejects.toThrow(/append-only|closed|hold/);
  const holdOf = (orderId: string) =>
    use()
      .db.selectFrom('commission_charge_holds')
      .selectAll()
      .where('store_domain', '=', partnerDomain)
      .where('order_id', '=', orderId)
      .executeTakeFirstOrThrow();

  it('refuses to truncate a closed statement, its entries, totals, closings, holds and charges, and leaves it as it was', async () => {
    const before = await monthlyStatement(use(), partnerId, '2026-10');
    expect(before).toMatchObject({ status: 'closed', currencies: [{ currency: 'USD', chargedMinor: 500, heldMinor: 500 }] });
    await refused(sql`truncate statement_entries`);
    await refused(sql`truncate statement_totals`);
    await refused(sql`truncate statements cascade`);
    await refused(sql`truncate statement_closings cascade`);
    await refused(sql`truncate commission_charge_holds`);
    await refused(sql`truncate commission_commerce_charges`);
    // Rows of a closed statement were refused before (migration 0024), and still are.
    await refused(sql`update statement_totals set net_minor = 0`);
    await refused(sql`delete from statement_entries`);
    expect(await monthlyStatement(use(), partnerId, '2026-10')).toEqual(before);
  });

  it('refuses to change or delete a noted charge', async () => {
    await refused(sql`update commission_commerce_charges set amount_minor = 1 where order_id = 'A'`);
    await refused(sql`delete from commission_commerce_charges where order_id = 'A'`);
    expect(await use().db.selectFrom('commission_commerce_charges').select('amount_minor').where('order_id', '=', 'A').execute()).toEqual([
      { amount_minor: 500 },
    ]);
  });

  it('lets a hold take the latest reason until it is settled, settles it once, then refuses any change or delete', async () => {
    const { db } = use();
    await refused(sql`update commission_charge_holds set order_id = 'Z' where order_id = 'B'`);
    await refused(sql`update commission_charge_holds set settled_at = now(), reason = 'over_cap' where order_id = 'B'`);
    await refused(sql`delete from commission_charge_holds where order_id = 'B'`);
    // What the code does: the latest reason, then the charge made after all.
    await holdCommerceCharge(db, { storeDomain: partnerDomain, orderId: 'B', reason: 'over_cap' }, october(6));
    expect(await holdOf('B')).toMatchObject({ reason: 'over_cap', held_at: october(6), settled_at: null });
    await recordCommerceCharge(
      db,
      { storeDomain: partnerDomain, orderId: 'B', chargeId: 'charge-b', amountMinor: 500, currency: 'USD' },
      october(9),
    );
    const settled = await holdOf('B');
    expect(settled).toMatchObject({ reason: 'over_cap', settled_at: october(9) });
    await refused(sql`update commission_charge_holds set settled_at = null where order_id = 'B'`);
    await refused(sql`update commission_charge_holds set settled_at = now() where order_id = 'B'`);
    await refused(sql`update commission_charge_holds set reason = 'no_plan' where order_id = 'B'`);
    await refused(sql`delete from commission_charge_holds where order_id = 'B'`);
    expect(await holdOf('B')).toEqual(settled);
  });
});
