/**
 * What the money rollups' triggers (migration 0019) cost order intake on PostgreSQL: signed orders
 * and refunds delivered to the running service by autocannon, with the triggers on and, in the same
 * run on the same data, switched off (ALTER TABLE ... DISABLE TRIGGER on the seven money triggers
 * only), the two taking turns in rounds. Every order is attributed through a referral link, so it
 * writes an order, a customer and a commission entry; every refund writes an event and a reversing
 * entry. All of them are one brand pair's on one day: the rollup row they share is the worst case
 * for contention. Reports requests/s, p50 and p99 of both and their ratios; writes
 * docs/performance-orders.md.
 *
 *   npm run bench:orders   (ROUNDS=3 turns each, ORDERS=2000 orders and as many refunds a turn, CONNECTIONS=10)
 */
import crypto from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/db/schema.js';
import { signOrderBody } from '../src/orders/signature.js';
import { startTestApp } from '../test/support/harness.js';
import { runningCollab } from '../test/support/dashboard-client.js';
import { bookCommissions, markdownReport, median, percentile, startService } from './support.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ORDERS = Number(process.env.ORDERS ?? 2000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const HISTORY = 20_000;
const SECRET = 'bench-orders-webhook-secret-0123456789';
const MONEY_TRIGGERS = [
  ['attributed_orders', 'insert'],
  ['attributed_orders', 'update'],
  ['attributed_orders', 'delete'],
  ['order_events', 'insert'],
  ['order_events', 'update'],
  ['order_events', 'delete'],
  ['commission_ledger', 'insert'],
] as const;

type Mode = 'triggers on' | 'triggers off';
interface Run {
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

async function switchTriggers(db: Kysely<Database>, mode: Mode): Promise<void> {
  const verb = mode === 'triggers on' ? 'enable' : 'disable';
  for (const [table, op] of MONEY_TRIGGERS) {
    await sql.raw(`alter table ${table} ${verb} trigger ${table}_money_${op}`).execute(db);
  }
  const states = await sql<{ enabled: string }>`
    select distinct tgenabled as enabled from pg_trigger where tgname like '%\\_money\\_%' and not tgisinternal`.execute(db);
  const expected = mode === 'triggers on' ? 'O' : 'D';
  if (states.rows.length !== 1 || states.rows[0]!.enabled !== expected) throw new Error(`money triggers not ${verb}d`);
}

/**
 * `count` signed deliveries to `path`, each body made by `bodyOf(i)`. The elapsed time runs to the
 * last response (autocannon's own duration is rounded up to whole seconds), latencies are each
 * response's own timing; any answer other than 200 stops the bench.
 */
async function deliver(baseUrl: string, path: string, count: number, bodyOf: (i: number) => unknown): Promise<Run> {
  let next = 0;
  const latenciesMs: number[] = [];
  const statuses = new Map<number, number>();
  const started = performance.now();
  let lastResponseAt = started;
  await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: CONNECTIONS,
        amount: count,
        requests: [
          {
            method: 'POST',
            path,
            setupRequest: (request) => {
              const body = JSON.stringify(bodyOf(next++));
              const timestamp = Math.floor(Date.now() / 1000);
              return {
                ...request,
                body,
                headers: {
                  'content-type': 'application/json',
                  'x-svc-timestamp': String(timestamp),
                  'x-svc-signature': signOrderBody(SECRET, timestamp, body),
                },
              };
            },
          },
        ],
      },
      (error, finished) => (error ? reject(error as Error) : resolve(finished)),
    );
    instance.on('response', (_client, statusCode: number, _bytes, responseTimeMs: number) => {
      lastResponseAt = performance.now();
      latenciesMs.push(responseTimeMs);
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
    });
  });
  if (statuses.get(200) !== count) throw new Error(`${path}: answers ${JSON.stringify([...statuses])}, expected ${count} × 200`);
  return {
    requestsPerSecond: count / ((lastResponseAt - started) / 1000),
    p50: percentile(latenciesMs, 50),
    p99: percentile(latenciesMs, 99),
  };
}

async function main(): Promise<void> {
  const context = await startTestApp('postgres', { ORDERS_WEBHOOK_SECRET: SECRET });
  const { out, save } = markdownReport();
  const { db } = context;
  const collab = await runningCollab(context);
  const click = await context.app.inject({ method: 'GET', url: `/r/${collab.token}` });
  if (click.statusCode !== 302) throw new Error(`the referral link answered ${click.statusCode}`);
  await context.app.close();

  // A year of the pair's history, written through the triggers, so the rollups are not empty.
  await sql`
    insert into attributed_orders (store_domain, order_id, customer_ref, total_cents, currency, placed_at, platform_id, campaign_id,
                                   brand_id, partner_id, matched_by, new_customer, commission_cents)
    select ${collab.partnerDomain}, 'history-' || i, 'history-customer-' || i, 1000 + i % 9000, 'USD',
           now() - make_interval(days => 1 + i % 365), ${collab.platformId}::uuid, ${collab.campaignId},
           ${collab.showerId}, ${collab.partnerId}, 'referral_link', i % 3 = 0, case when i % 3 = 0 then (1000 + i % 9000) / 20 else 0 end
    from generate_series(0, ${HISTORY - 1}) as i`.execute(db);
  await bookCommissions(db, 'history-%');
  await sql`vacuum analyze`.execute(db);

  const service = await startService({
    DATABASE_URL: context.database.url!,
    SERVICE_ENV: 'test',
    ORDERS_WEBHOOK_SECRET: SECRET,
    RATE_LIMIT_PER_MINUTE: '1000000',
    RUN_BACKGROUND_JOBS: 'false',
  });
  const runs: Record<'orders' | 'refunds', Record<Mode, Run[]>> = {
    orders: { 'triggers on': [], 'triggers off': [] },
    refunds: { 'triggers on': [], 'triggers off': [] },
  };
  let version = 'PostgreSQL';
  try {
    const turns = (round: number): Mode[] => (round % 2 === 0 ? ['triggers on', 'triggers off'] : ['triggers off', 'triggers on']);
    // Round 0 warms both modes up and is not counted.
    for (let round = 0; round <= ROUNDS; round++) {
      for (const mode of turns(round)) {
        await switchTriggers(db, mode);
        const batch = crypto.randomUUID().slice(0, 8);
        const orderId = (i: number) => `bench-${batch}-${i}`;
        const orders = await deliver(service.baseUrl, '/webhooks/commerce/orders', ORDERS, (i) => ({
          orderId: orderId(i),
          storeDomain: collab.partnerDomain,
          customerId: `customer-${batch}-${i}`,
          totalCents: 10_000,
          currency: 'USD',
          placedAt: new Date().toISOString(),
          referralToken: collab.token,
        }));
        const refunds = await deliver(service.baseUrl, '/webhooks/commerce/order-events', ORDERS, (i) => ({
          eventId: `refund-${batch}-${i}`,
          type: 'refund',
          orderId: orderId(i),
          storeDomain: collab.partnerDomain,
          amountCents: 2_500,
          currency: 'USD',
          occurredAt: new Date().toISOString(),
        }));
        if (round > 0) {
          runs.orders[mode].push(orders);
          runs.refunds[mode].push(refunds);
        }
      }
    }
    const credited = await sql<{ n: string }>`
      select count(*)::text as n from commission_ledger where order_id like 'bench-%' and kind = 'commission'`.execute(db);
    if (Number(credited.rows[0]!.n) !== (ROUNDS + 1) * 2 * ORDERS) throw new Error(`${credited.rows[0]!.n} commissions credited`);
    version = (await sql<{ v: string }>`select version() as v`.execute(db)).rows[0]!.v;
  } finally {
    await switchTriggers(db, 'triggers on');
    await service.stop();
    await context.database.close();
  }

  const mid = (list: Run[], key: keyof Run) => median(list.map((run) => run[key]));
  const fixed = (value: number, digits = 1) => value.toFixed(digits);
  out('# Order intake: what the money rollups cost');
  out();
  out('Generated by `npm run bench:orders` (bench/orders.ts). Do not edit by hand; rerun the bench.');
  out();
  out(
    `${ORDERS.toLocaleString('en')} signed orders, then a partial refund of each, per turn, delivered by autocannon ` +
      `(${CONNECTIONS} connections) to the service in its own process on PostgreSQL, on top of ` +
      `${HISTORY.toLocaleString('en')} orders of the same brand pair over the past year. Each order is attributed ` +
      'through a referral link (an order, a new customer and a commission entry); each refund writes an event and a ' +
      'reversing entry. The seven triggers of migration 0019 that keep the per-currency rollups are on in one turn ' +
      `and off in the other, taking turns for ${ROUNDS} rounds after a warm-up round; medians of the rounds. All ` +
      "orders are one pair's on one day, so they all update the same rollup rows: the worst case for contention.",
  );
  out();
  const load = os.loadavg()[0]!.toFixed(1);
  out(`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, load ${load} at the end; Node ${process.version}.`);
  out(`${version.split(',')[0]}.`);
  out();
  out('| delivery | triggers | requests/s | p50 ms | p99 ms |');
  out('|---|---|---:|---:|---:|');
  for (const kind of ['orders', 'refunds'] as const) {
    for (const mode of ['triggers off', 'triggers on'] as const) {
      const list = runs[kind][mode];
      const figures = [fixed(mid(list, 'requestsPerSecond'), 0), fixed(mid(list, 'p50')), fixed(mid(list, 'p99'))];
      out(`| ${kind} | ${mode.replace('triggers ', '')} | ${figures.join(' | ')} |`);
    }
  }
  out();
  out('| delivery | throughput on / off | p50 on / off | p99 on / off |');
  out('|---|---:|---:|---:|');
  for (const kind of ['orders', 'refunds'] as const) {
    const on = runs[kind]['triggers on'];
    const off = runs[kind]['triggers off'];
    const ratio = (key: keyof Run) => `${(mid(on, key) / mid(off, key)).toFixed(2)}×`;
    out(`| ${kind} | ${ratio('requestsPerSecond')} | ${ratio('p50')} | ${ratio('p99')} |`);
  }
  process.stderr.write(`saved ${save('docs/performance-orders.md')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
