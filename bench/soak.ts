/**
 * Soak: the real service as its own process on PostgreSQL, held at twice the documented offers
 * rate limit (SPEC 8: 3,000 per minute per brand) for several brands on several platforms.
 * Reports p99 and status counts each minute, fails on any 5xx or transport error, checks the
 * resident memory at the end against the size right after warm-up (within 20%), and checks that
 * the views recorded equal the offers returned.
 *
 *   npm run bench:soak   (SOAK_SECONDS=300 after WARMUP_SECONDS=90; BRANDS=4, PLATFORMS=3, LIMIT_PER_MINUTE=3000)
 */
import fs from 'node:fs';
import os from 'node:os';
import { sql } from 'kysely';
import { InvalidationBus } from '../src/cache/invalidation.js';
import { createTestDatabase } from '../test/support/databases.js';
import { createBrand, createPlatform } from '../test/support/factories.js';
import { ADMIN_TOKEN } from '../test/support/harness.js';
import { seedPartnerOffer } from '../test/durability/seed.js';
import { startService, summarize } from './support.js';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
/**
 * Long enough for the process to settle: right after start its resident size still holds start-up
 * garbage (module compilation, migrations) that is returned over the first minutes.
 */
const WARMUP_SECONDS = Number(process.env.WARMUP_SECONDS ?? 90);
const BRANDS = Number(process.env.BRANDS ?? 4);
const PLATFORMS = Number(process.env.PLATFORMS ?? 3);
const LIMIT_PER_MINUTE = Number(process.env.LIMIT_PER_MINUTE ?? 3000);
/** Twice the limit, per brand. */
const PER_BRAND_PER_SECOND = (2 * LIMIT_PER_MINUTE) / 60;
const TICK_MS = 10;
/** No request may hang: one that takes longer than this counts as an error. */
const REQUEST_TIMEOUT_MS = 10_000;
const OFFERS_PER_BRAND = 3;
/**
 * Requests allowed in flight at once. At the offered rate a healthy instance needs a handful; the
 * cap keeps a starved machine from turning a slowdown into an ever-growing pile of connections,
 * and every request the schedule could not send is counted and fails the run.
 */
const MAX_IN_FLIGHT = Number(process.env.MAX_IN_FLIGHT ?? 1000);

interface Sample {
  status: number;
  ms: number;
  offers: number;
}

/** The first few distinct 5xx or transport failures, so a failed run says what went wrong. */
const failureExamples = new Set<string>();

function residentKb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!match) throw new Error('no VmRSS in /proc status');
  return Number(match[1]);
}

async function main(): Promise<void> {
  const database = await createTestDatabase('postgres');
  const support = { db: database.db, bus: new InvalidationBus(), serviceEnv: 'test' as const };
  const platforms: string[] = [];
  for (let i = 0; i < PLATFORMS; i += 1) platforms.push((await createPlatform(support)).platformId);
  const brands: string[] = [];
  for (let i = 0; i < BRANDS; i += 1) {
    const brand = await createBrand(support);
    for (let j = 0; j < OFFERS_PER_BRAND; j += 1) await seedPartnerOffer(support, brand.companyId);
    brands.push(brand.key);
  }

  const service = await startService({
    DATABASE_URL: database.url!,
    SERVICE_ENV: 'test',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN,
    DEMO_PORT: '0',
    OFFERS_RATE_LIMIT_PER_MINUTE: String(LIMIT_PER_MINUTE),
  });
  const pid = service.process.pid!;
  const url = `${service.baseUrl}/v1/campaigns/offers?type=post-purchase`;

  let samples: Sample[] = [];
  let inFlight = 0;
  let sent = 0;
  let unsent = 0;
  const send = (brandIndex: number) => {
    if (inFlight >= MAX_IN_FLIGHT) {
      unsent += 1;
      return;
    }
    const key = brands[brandIndex]!;
    const platformId = platforms[(sent + brandIndex) % platforms.length]!;
    sent += 1;
    inFlight += 1;
    const started = performance.now();
    fetch(url, { headers: { 'x-api-key': key, 'x-platform-id': platformId }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
      .then(async (response) => {
        const body = (await response.json()) as { offers?: unknown[] };
        if (response.status >= 500 && failureExamples.size < 3) failureExamples.add(`${response.status} ${JSON.stringify(body)}`);
        samples.push({
          status: response.status,
          ms: performance.now() - started,
          offers: response.status === 200 ? (body.offers?.length ?? 0) : 0,
        });
      })
      .catch((error: unknown) => {
        if (failureExamples.size < 3) failureExamples.add(String(error instanceof Error ? (error.cause ?? error.message) : error));
        samples.push({ status: 0, ms: performance.now() - started, offers: 0 });
      })
      .finally(() => {
        inFlight -= 1;
      });
  };

  // Open loop: requests leave on schedule whatever the answers do, as independent shoppers would.
  const started = performance.now();
  const owed = new Array<number>(BRANDS).fill(0);
  let lastTick = started;
  const timer = setInterval(() => {
    // From the time that passed, not the tick count: a late timer on a busy machine must not lower the rate.
    const now = performance.now();
    const due = (PER_BRAND_PER_SECOND * (now - lastTick)) / 1000;
    lastTick = now;
    for (let b = 0; b < BRANDS; b += 1) {
      owed[b]! += due;
      while (owed[b]! >= 1) {
        owed[b]! -= 1;
        send(b);
      }
    }
  }, TICK_MS);

  const all: Sample[] = [];
  const minutes: Array<{
    minute: number;
    requests: number;
    ok: number;
    limited: number;
    fiveXx: number;
    errors: number;
    p50: number;
    p99: number;
    rssMb: number;
  }> = [];
  const take = () => {
    const taken = samples;
    samples = [];
    all.push(...taken);
    return taken;
  };

  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await wait(WARMUP_SECONDS * 1000);
  const warm = take();
  const rssAfterWarmup = residentKb(pid);
  process.stdout.write(`warm-up ${WARMUP_SECONDS} s: ${warm.length} requests, resident ${(rssAfterWarmup / 1024).toFixed(1)} MB\n`);

  const windows = Math.ceil(SOAK_SECONDS / 60);
  for (let minute = 1; minute <= windows; minute += 1) {
    await wait(Math.min(60, SOAK_SECONDS - (minute - 1) * 60) * 1000);
    const window = take();
    const stats = summarize(window.map((s) => s.ms));
    const row = {
      minute,
      requests: window.length,
      ok: window.filter((s) => s.status === 200).length,
      limited: window.filter((s) => s.status === 429).length,
      fiveXx: window.filter((s) => s.status >= 500).length,
      errors: window.filter((s) => s.status === 0).length,
      p50: stats.median,
      p99: stats.p99,
      rssMb: residentKb(pid) / 1024,
    };
    minutes.push(row);
    process.stdout.write(
      `minute ${minute}: ${row.requests} requests, ${row.ok} × 200, ${row.limited} × 429, ${row.fiveXx} × 5xx, ${row.errors} errors, ` +
        `p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms, resident ${row.rssMb.toFixed(1)} MB\n`,
    );
  }
  clearInterval(timer);
  const drainDeadline = performance.now() + REQUEST_TIMEOUT_MS + 1_000;
  while (inFlight > 0 && performance.now() < drainDeadline) await wait(50);
  take();
  const rssAtEnd = residentKb(pid);
  const elapsed = (performance.now() - started) / 1000;

  const viewsOwed = all.reduce((sum, s) => sum + s.offers, 0);
  const recorded = Number(
    (await sql<{ views: number }>`select coalesce(sum(views), 0)::int8 as views from attribution_counters`.execute(database.db)).rows[0]!
      .views,
  );
  await service.stop();
  await database.close();

  const fiveXx = all.filter((s) => s.status >= 500).length;
  const errors = all.filter((s) => s.status === 0).length;
  const growth = (rssAtEnd - rssAfterWarmup) / rssAfterWarmup;
  const offered = BRANDS * PER_BRAND_PER_SECOND;
  const lines = [
    '',
    `Soak on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}: ${BRANDS} brands on ${PLATFORMS} platforms, ` +
      `${offered.toFixed(0)} requests/s offered (2 × ${LIMIT_PER_MINUTE}/min per brand), ` +
      `${WARMUP_SECONDS} s warm-up + ${SOAK_SECONDS} s measured (${elapsed.toFixed(0)} s in all).`,
    '',
    '| minute | requests | 200 | 429 | 5xx | errors | p50 ms | p99 ms | resident MB |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...minutes.map(
      (m) =>
        `| ${[m.minute, m.requests, m.ok, m.limited, m.fiveXx, m.errors].join(' | ')} | ` +
        `${[m.p50.toFixed(1), m.p99.toFixed(1), m.rssMb.toFixed(1)].join(' | ')} |`,
    ),
    '',
    `- 5xx: ${fiveXx}; transport errors or timeouts: ${errors}; requests not sent because ${MAX_IN_FLIGHT} were in flight: ${unsent}.`,
    ...[...failureExamples].map((example) => `  - e.g. ${example.slice(0, 200)}`),
    `- Load average at the end: ${os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(', ')}.`,
    `- Resident memory: ${(rssAfterWarmup / 1024).toFixed(1)} MB after warm-up, ${(rssAtEnd / 1024).toFixed(1)} MB at the end ` +
      `(${(growth * 100).toFixed(1)}%; limit ±20%).`,
    `- Views: ${viewsOwed} owed by the 200 responses, ${recorded} recorded.`,
    '',
  ];
  process.stdout.write(lines.join('\n'));

  const failures = [
    fiveXx > 0 && `${fiveXx} responses were 5xx`,
    errors > 0 && `${errors} requests failed or timed out`,
    unsent > 0 && `${unsent} requests could not be sent on schedule`,
    Math.abs(growth) > 0.2 && `resident memory moved ${(growth * 100).toFixed(1)}% after warm-up`,
    recorded !== viewsOwed && `views recorded ${recorded} differ from ${viewsOwed} owed`,
  ].filter(Boolean);
  if (failures.length > 0) {
    process.stderr.write(`SOAK FAILED: ${failures.join('; ')}\n`);
    process.exit(1);
  }
  process.stdout.write('SOAK PASSED\n');
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
