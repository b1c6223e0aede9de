import { beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ADMIN_TOKEN, describeEachDatabase } from '../../test/support/harness.js';
import { uniqueId } from '../../test/support/factories.js';
import { runningCollab, type DashboardClient } from '../../test/support/dashboard-client.js';
import { receiveOrder, recordOrderEvent } from './service.js';
import { closeEndedMonths, postAdjustment } from './statements.js';

const at = (iso: string) => new Date(iso);

describeEachDatabase('statements that close', (use) => {
  let partner: DashboardClient;
  let partnerId: string;
  let partnerDomain: string;
  let token: string;

  // Placed now, as the shopper's click was; booked (the entry's created_at) at `bookedAt`, the moment the test plays.
  const order = (orderId: string, totalCents: number, currency: string, bookedAt: Date) =>
    receiveOrder(
      { db: use().db, ...use().config.orders },
      {
        storeDomain: partnerDomain,
        orderId,
        customerId: uniqueId('customer'),
        totalCents,
        currency,
        placedAt: new Date(),
        referralToken: token,
      },
      bookedAt,
    );
  const statement = async (month: string) => {
    const response = await partner.get(`/dashboard/api/statement?month=${month}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const admin = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    use().app.inject({ method, url, payload: payload as object, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  beforeAll(async () => {
    ({ partner, partnerId, partnerDomain, token } = await runningCollab(use()));
    expect((await use().app.inject({ method: 'GET', url: `/r/${token}` })).statusCode).toBe(302);
  });

  it(`closes a month once, with a number and fixed totals per currency, though two processes close it together; late \
events land on the next statement naming the order and the closed statement, and the closed one never changes`, async () => {
    await order('oct-usd', 10_000, 'USD', at('2026-10-10T12:00:00Z'));
    await order('oct-eur', 8_000, 'EUR', at('2026-10-20T12:00:00Z'));
    expect((await statement('2026-10')).status).toBe('open');

    // Two processes run the job at once: one closes October, the other finds it closed.
    const runs = await Promise.all([
      closeEndedMonths(use().db, at('2026-11-01T00:05:00Z')),
      closeEndedMonths(use().db, at('2026-11-01T00:05:00Z')),
    ]);
    expect(runs.flat()).toEqual(['2026-10']);
    expect(await closeEndedMonths(use().db, at('2026-11-01T00:15:00Z'))).toEqual([]);

    const october = await statement('2026-10');
    expect(october).toMatchObject({
      status: 'closed',
      number: expect.stringMatching(/^ST-202610-\d{6}$/),
      closedAt: '2026-11-01T00:05:00.000Z',
      dueOn: '2026-11-15',
      paid: null,
    });
    expect(october.currencies).toEqual([
      {
        currency: 'EUR',
        commissionMinor: 400,
        reversalsMinor: 0,
        adjustmentsMinor: 0,
        netMinor: 400,
        chargedMinor: 0,
        heldMinor: 0,
        heldReasons: [],
        owedMinor: 400,
        entries: 1,
      },
      {
        currency: 'USD',
        commissionMinor: 500,
        reversalsMinor: 0,
        adjustmentsMinor: 0,
        netMinor: 500,
        chargedMinor: 0,
        heldMinor: 0,
        heldReasons: [],
        owedMinor: 500,
        entries: 1,
      },
    ]);

    // Late: a refund in November of an October order, and an entry stamped October that committed after the close.
    await recordOrderEvent(
      { db: use().db },
      {
        storeDomain: partnerDomain,
        orderId: 'oct-usd',
        eventId: 'late-refund',
        kind: 'refund',
        amountCents: 4_000,
        occurredAt: at('2026-11-03T09:00:00Z'),
      },
      at('2026-11-03T09:00:00Z'),
    );
    await order('oct-straggler', 2_000, 'USD', at('2026-10-31T23:59:59Z'));
    await postAdjustment(
      { db: use().db },
      partnerId,
      { amountMinor: -150, currency: 'EUR', reason: 'Goodwill credit for a duplicate order', postedBy: 'sam@support.example' },
      at('2026-11-04T10:00:00Z'),
    );
    expect(await statement('2026-10')).toEqual(october);

    const november = await statement('2026-11');
    expect(november).toMatchObject({ status: 'open', number: null });
    const lines = november.entries.map((entry: Record<string, unknown>) => [
      entry.kind,
      entry.orderId,
      entry.amountMinor,
      entry.currency,
      entry.adjusts,
    ]);
    // Oldest first: the straggler stamped October, the refund, support's credit.
    expect(lines).toEqual([
      ['commission', 'oct-straggler', 100, 'USD', null],
      ['reversal', 'oct-usd', -200, 'USD', { number: october.number, month: '2026-10' }],
      ['adjustment', null, -150, 'EUR', null],
    ]);
    expect(november.entries.find((entry: { kind: string }) => entry.kind === 'adjustment')).toMatchObject({
      reason: 'Goodwill credit for a duplicate order',
      postedBy: 'sam@support.example',
    });

    expect(await closeEndedMonths(use().db, at('2026-12-01T00:05:00Z'))).toEqual(['2026-11']);
    const closedNovember = await statement('2026-11');
    expect(closedNovember).toMatchObject({
      status: 'closed',
      number: expect.stringMatching(/^ST-202611-\d{6}$/),
      entries: november.entries,
    });
    expect(closedNovember.currencies).toEqual([
      {
        currency: 'EUR',
        commissionMinor: 0,
        reversalsMinor: 0,
        adjustmentsMinor: -150,
        netMinor: -150,
        chargedMinor: 0,
        heldMinor: 0,
        heldReasons: [],
        owedMinor: -150,
        entries: 1,
      },
      {
        currency: 'USD',
        commissionMinor: 100,
        reversalsMinor: -200,
        adjustmentsMinor: 0,
        netMinor: -100,
        chargedMinor: 0,
        heldMinor: 0,
        heldReasons: [],
        owedMinor: -100,
        entries: 2,
      },
    ]);
    expect(await statement('2026-10')).toEqual(october);

    // The closed tables refuse every change, whoever tries.
    for (const table of ['statements', 'statement_totals', 'statement_entries', 'statement_closings']) {
      await expect(sql`delete from ${sql.table(table)}`.execute(use().db), table).rejects.toThrow(/never changes/);
    }
    await expect(sql`update statement_totals set net_minor = 0`.execute(use().db)).rejects.toThrow(/never changes/);

    const csv = (await partner.get('/dashboard/api/statement.csv?month=2026-11')).body.trim().split('\r\n');
    expect(csv.find((line: string) => line.startsWith('entry,') && line.includes('late-refund'))).toContain(`,${october.number},`);
  });

  it("posts support's adjustment through the admin API as a ledger entry, and refuses a bad one writing nothing", async () => {
    const posted = await admin('POST', `/admin/companies/${partnerId}/adjustments`, {
      amountMinor: 1_250,
      currency: 'jpy',
      reason: 'Commission missed on a phone order',
      postedBy: 'alex@support.example',
    });
    expect(posted.statusCode, posted.body).toBe(201);
    expect(posted.json()).toMatchObject({
      kind: 'adjustment',
      amountMinor: 1_250,
      currency: 'JPY',
      orderId: null,
      postedBy: 'alex@support.example',
    });
    const ledger = () => use().db.selectFrom('commission_ledger').selectAll().orderBy('id').execute();
    const before = await ledger();
    const body = { amountMinor: 100, currency: 'USD', reason: 'why', postedBy: 'who' };
    const cases: Array<[string, string, unknown, number, string]> = [
      ['a currency that is not ISO 4217', partnerId, { ...body, currency: 'ZZZ' }, 400, 'invalid_currency'],
      ['an amount of 0', partnerId, { ...body, amountMinor: 0 }, 400, 'invalid_request'],
      ['a fraction of a minor unit', partnerId, { ...body, amountMinor: 1.5 }, 400, 'invalid_request'],
      ['a blank reason', partnerId, { ...body, reason: '   ' }, 400, 'invalid_request'],
      ['no author', partnerId, { ...body, postedBy: undefined }, 400, 'invalid_request'],
      ['an unknown brand', 'no-such-brand', body, 404, 'not_found'],
    ];
    for (const [check, companyId, payload, status, error] of cases) {
      const response = await admin('POST', `/admin/companies/${companyId}/adjustments`, payload);
      expect(response.statusCode, check).toBe(status);
      expect(response.json(), check).toMatchObject({ error, message: expect.any(String) });
    }
    expect(await ledger()).toEqual(before);
  });
});
