/**
 * POST /v1/platform/brands with 1000 brands (half new domains, half updates) against the running
 * service on PostgreSQL, side by side with the bare INSERT ... ON CONFLICT of the same 1000 rows
 * sent through `pg`. Reports median and p95 of both and their ratio.
 *
 *   npm run bench:sync            (TEST_DATABASE_URL picks the server; ROUNDS=60 by default)
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { createTestDatabase } from '../test/support/databases.js';
import { issuePlatformKey } from '../src/auth/service.js';
import { savePlatform } from '../test/support/factories.js';
import { InvalidationBus } from '../src/cache/invalidation.js';
import { startService, summarize } from './support.js';

const ROUNDS = Number(process.env.ROUNDS ?? 60);
const WARMUP = 5;
const BATCH = 1000;

async function main() {
  const database = await createTestDatabase('postgres');
  const bus = new InvalidationBus();
  const support = { db: database.db, bus, serviceEnv: 'test' as const };
  const endpointPlatform = crypto.randomUUID();
  const baselinePlatform = crypto.randomUUID();
  for (const id of [endpointPlatform, baselinePlatform]) {
    await savePlatform(support, {
      id,
      name: 'Bench',
      active: true,
      offerTypes: ['post-purchase'],
      approvedOrigins: [],
      pluginPageUrl: null,
    });
  }
  const { key } = await issuePlatformKey(support, endpointPlatform);
  const service = await startService({ DATABASE_URL: database.url!, SERVICE_ENV: 'test' });
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();

  // Round r sends 500 domains already stored (from round r-1) and 500 new ones.
  const batchFor = (round: number) =>
    Array.from({ length: BATCH }, (_, i) => {
      const n = round * (BATCH / 2) + i;
      return {
        domain: `https://www.bench-${n}.example/shop`,
        businessName: `Bench brand ${n}`,
        status: i % 10 === 0 ? 'closed' : 'active',
      };
    });

  const endpointTimes: number[] = [];
  const baselineTimes: number[] = [];
  for (let round = 0; round < ROUNDS + WARMUP; round += 1) {
    const brands = batchFor(round);
    const body = JSON.stringify({ brands });

    const started = performance.now();
    const response = await fetch(`${service.baseUrl}/v1/platform/brands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body,
    });
    const result = (await response.json()) as { received: number; created: number; updated: number };
    const endpointMs = performance.now() - started;
    if (response.status !== 200 || result.received !== BATCH) throw new Error(`sync failed: ${response.status} ${JSON.stringify(result)}`);

    const domains = brands.map((brand) => brand.domain.replace(/^https:\/\/www\./, '').replace(/\/.*$/, ''));
    const baselineStarted = performance.now();
    await client.query(
      `insert into platform_brands as pb (platform_id, domain, business_name, status, end_date, created_at, updated_at)
       select $1::uuid, d, n, s, case when s = 'closed' then now() end, now(), now()
       from unnest($2::text[], $3::text[], $4::text[]) as t(d, n, s)
       on conflict (platform_id, domain) do update set
         business_name = coalesce(excluded.business_name, pb.business_name), status = excluded.status,
         end_date = case when excluded.status = 'closed' then coalesce(pb.end_date, excluded.end_date) end,
         updated_at = excluded.updated_at`,
      [baselinePlatform, domains, brands.map((b) => b.businessName), brands.map((b) => b.status)],
    );
    const baselineMs = performance.now() - baselineStarted;

    if (round >= WARMUP) {
      endpointTimes.push(endpointMs);
      baselineTimes.push(baselineMs);
    }
  }

  const endpoint = summarize(endpointTimes);
  const baseline = summarize(baselineTimes);
  const format = (value: number) => value.toFixed(2);
  const report = [
    `bench/sync: ${ROUNDS} rounds of ${BATCH} brands (500 new, 500 updates), PostgreSQL ${database.url?.replace(/\/[^/]*$/, '/…')}`,
    '',
    '| | median ms | p95 ms |',
    '|---|---:|---:|',
    `| POST /v1/platform/brands (HTTP, auth, validation, normalization, upsert) | ${format(endpoint.median)} | ${format(endpoint.p95)} |`,
    `| bare INSERT ... ON CONFLICT of the same rows through pg | ${format(baseline.median)} | ${format(baseline.p95)} |`,
    `| ratio endpoint / bare | ${(endpoint.median / baseline.median).toFixed(2)}× | ${(endpoint.p95 / baseline.p95).toFixed(2)}× |`,
  ].join('\n');
  process.stdout.write(`${report}\n`);

  await client.end();
  await service.stop();
  await bus.close();
  await database.close();
  if (endpoint.median / baseline.median > 3) {
    process.stderr.write('target missed: the endpoint median is more than 3× the bare statement\n');
    process.exitCode = 1;
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
