import { beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachDatabase } from '../../test/support/harness.js';
import { uniqueId } from '../../test/support/factories.js';
import { runningCollab, type DashboardClient } from '../../test/support/dashboard-client.js';
import { receiveOrder, recordOrderEvent } from './service.js';

/** The last instant of October and the first of November: entries on either side of a statement month's edge. */
const OCTOBER_END = new Date('2026-10-31T23:59:59.999Z');
const NOVEMBER_START = new Date('2026-11-01T00:00:00.000Z');

describeEachDatabase('monthly statements', (use) => {
  let shower: DashboardClient;
  let partner: DashboardClient;
  let partnerId: string;
  let partnerDomain: string;

  beforeAll(async () => {
    let token: string;
    ({ shower, partner, partnerId, partnerDomain, token } = await runningCollab(use()));
    expect((await use().app.inject({ method: 'GET', url: `/r/${token}` })).statusCode).toBe(302);
    const orders = { db: use().db, ...use().config.orders };
    const order = (totalCents: number, currency: string, at: Date, orderId = uniqueId('order')) =>
      receiveOrder(
        orders,
        {
          storeDomain: partnerDomain,
          orderId,
          customerId: uniqueId('customer'),
          totalCents,
          currency,
          placedAt: new Date(),
          referralToken: token,
        },
        at,
      );
    await order(20_000, 'USD', OCTOBER_END);
    const refunded = await order(10_000, 'USD', NOVEMBER_START);
    await order(6_000, 'EUR', NOVEMBER_START);
    await order(3_000, 'USD', new Date('2026-11-30T23:59:59Z'));
    await order(9_000, 'USD', new Date('2026-12-01T00:00:00Z'));
    await recordOrderEvent(
      orders,
      {
        storeDomain: partnerDomain,
        orderId: refunded.orderId,
        eventId: 'refund-1',
        kind: 'refund',
        amountCents: 4_000,
        occurredAt: new Date(),
      },
      new Date('2026-11-15T10:00:00Z'),
    );
  });

  const admin = (url: string) => use().app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  it(`lists the month's entries of the brand that received the orders, with totals per currency that equal the sum \
of the entries`, async () => {
    const response = await partner.get('/dashboard/api/statement?month=2026-11');
    expect(response.statusCode, response.body).toBe(200);
    const statement = response.json();
    expect(statement).toMatchObject({
      companyId: partnerId,
      businessName: 'Partner Store',
      month: '2026-11',
      status: 'open',
      number: null,
    });
    const nothingElse = { adjustmentsMinor: 0, chargedMinor: 0, heldMinor: 0, heldReasons: [] };
    expect(statement.currencies).toEqual([
      { currency: 'EUR', ...nothingElse, commissionMinor: 300, reversalsMinor: 0, netMinor: 300, owedMinor: 300, entries: 1 },
      { currency: 'USD', ...nothingElse, commissionMinor: 650, reversalsMinor: -200, netMinor: 450, owedMinor: 450, entries: 3 },
    ]);
    const entries: Array<{ kind: string; amountMinor: number; currency: string; eventId: string | null; basisMinor: number }> =
      statement.entries;
    expect(entries.map((entry) => [entry.kind, entry.amountMinor, entry.currency, entry.eventId, entry.basisMinor])).toEqual([
      ['commission', 500, 'USD', null, 10_000],
      ['commission', 300, 'EUR', null, 6_000],
      ['reversal', -200, 'USD', 'refund-1', 4_000],
      ['commission', 150, 'USD', null, 3_000],
    ]);
    for (const total of statement.currencies) {
      const own = entries.filter((entry) => entry.currency === total.currency);
      expect(total.netMinor).toBe(own.reduce((sum, entry) => sum + entry.amountMinor, 0));
      expect(total.entries).toBe(own.length);
    }
    expect(statement.entries[0]).toMatchObject({
      showingBrandName: 'Shower Co',
      customer: 'new',
      touch: 'click',
      rateBasisPoints: 500,
      orderPlacedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      adjusts: null,
    });

    const october = (await partner.get('/dashboard/api/statement?month=2026-10')).json();
    expect(october.currencies).toEqual([
      { currency: 'USD', ...nothingElse, commissionMinor: 1_000, reversalsMinor: 0, netMinor: 1_000, owedMinor: 1_000, entries: 1 },
    ]);
    expect((await shower.get('/dashboard/api/statement?month=2026-11')).json()).toMatchObject({ currencies: [], entries: [] });
  });

  it('gives the same statement to support through the admin API, and as CSV on both', async () => {
    const own = (await partner.get('/dashboard/api/statement?month=2026-11')).json();
    expect((await admin(`/admin/companies/${partnerId}/statement?month=2026-11`)).json()).toEqual(own);
    const csv = await partner.get('/dashboard/api/statement.csv?month=2026-11');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe(
      'line,createdAt,kind,storeDomain,orderId,orderPlacedAt,eventId,adjustsStatement,showingBrandId,showingBrandName,platformId,' +
        'platformName,customer,customerBasis,touch,reason,postedBy,rateBasisPoints,basisMinor,amountMinor,amount,currency,settlement,' +
        'heldReason,commerceChargeId',
    );
    expect(lines.filter((line) => line.startsWith('entry,'))).toHaveLength(4);
    expect(lines.find((line) => line.startsWith('entry,') && line.includes(',EUR'))).toMatch(/,500,6000,300,3,EUR,owed,,$/);
    const blanks = ','.repeat(18);
    expect(lines.slice(-14)).toEqual([
      `commission${blanks},300,3,EUR,,,`,
      `reversals${blanks},0,0,EUR,,,`,
      `adjustments${blanks},0,0,EUR,,,`,
      `net${blanks},300,3,EUR,,,`,
      `charged${blanks},0,0,EUR,,,`,
      `held${blanks},0,0,EUR,,,`,
      `owed${blanks},300,3,EUR,,,`,
      `commission${blanks},650,6.5,USD,,,`,
      `reversals${blanks},-200,-2,USD,,,`,
      `adjustments${blanks},0,0,USD,,,`,
      `net${blanks},450,4.5,USD,,,`,
      `charged${blanks},0,0,USD,,,`,
      `held${blanks},0,0,USD,,,`,
      `owed${blanks},450,4.5,USD,,,`,
    ]);
    expect((await admin(`/admin/companies/${partnerId}/statement.csv?month=2026-11`)).body).toBe(csv.body);
  });

  it('refuses a malformed month, an unknown brand and a caller without a session, with status and error code', async () => {
    const ledgerBefore = await use().db.selectFrom('commission_ledger').selectAll().orderBy('id').execute();
    const cases: Array<[string, () => Promise<{ statusCode: number; json(): unknown }>, number, string]> = [
      ['a one-digit month', () => partner.get('/dashboard/api/statement?month=2026-1'), 400, 'invalid_request'],
      ['month 13', () => partner.get('/dashboard/api/statement?month=2026-13'), 400, 'invalid_request'],
      ['no month', () => partner.get('/dashboard/api/statement'), 400, 'invalid_request'],
      ['a date for a month', () => partner.get('/dashboard/api/statement.csv?month=2026-11-01'), 400, 'invalid_request'],
      ['no session', () => use().app.inject({ method: 'GET', url: '/dashboard/api/statement?month=2026-11' }), 401, 'unauthorized'],
      ['a malformed month (admin)', () => admin(`/admin/companies/${partnerId}/statement?month=November`), 400, 'invalid_request'],
      ['a brand that does not exist (admin)', () => admin('/admin/companies/no-such-brand/statement?month=2026-11'), 404, 'not_found'],
      [
        'no admin token',
        () => use().app.inject({ method: 'GET', url: `/admin/companies/${partnerId}/statement?month=2026-11` }),
        401,
        'unauthorized',
      ],
    ];
    for (const [check, send, status, error] of cases) {
      const response = await send();
      expect(response.statusCode, check).toBe(status);
      expect(response.json(), check).toMatchObject({ error, message: expect.any(String) });
    }
    // A brand's statement never shows another brand's entries, whatever it asks for.
    const foreign = await shower.get(`/dashboard/api/statement?month=2026-11&companyId=${partnerId}`);
    expect(foreign.statusCode).toBe(200);
    expect(foreign.json()).toMatchObject({ currencies: [], entries: [] });
    expect(await use().db.selectFrom('commission_ledger').selectAll().orderBy('id').execute()).toEqual(ledgerBefore);
  });
});
