/**
 * Compares the offers endpoint of this checkout (B) with another checkout's (A) in one run: both
 * services on one PostgreSQL database, alternating loads of AMOUNT requests (the order flips each
 * round), each round's B/A ratio of throughput and of the service's CPU time per request, and the
 * medians over the rounds. The machine's speed drifts between minutes by more than most changes
 * to the service; a round's two loads run back to back, so its ratio cancels most of the drift.
 *
 *   git worktree add /tmp/baseline <commit> && (cd /tmp/baseline && npm ci)
 *   BASELINE_DIR=/tmp/baseline npm run bench:offers-paired   (ROUNDS=10, AMOUNT=15000, CONNECTIONS=50)
 *
 * Prints the rounds and the medians; writes nothing. Identical code on both sides reads about
 * 1.00 with rounds spread ±8% on this machine kind (docs/performance-offers.md).
 */
import { InvalidationBus } from '../src/cache/invalidation.js';
import { createTestDatabase } from '../test/support/databases.js';
import { ADMIN_TOKEN } from '../test/support/harness.js';
import { loadOffers, seedOffersBrand } from './offers-load.js';
import { CpuMeter, median, startService, type ServiceProcess } from './support.js';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const AMOUNT = Number(process.env.AMOUNT ?? 15_000);

async function measure(service: ServiceProcess, headers: Record<string, string>) {
  const cpu = new CpuMeter([service.process.pid!]);
  const run = await loadOffers(service.baseUrl, headers, AMOUNT);
  if (run.other > 0) throw new Error(`${run.other} requests to ${service.baseUrl} failed`);
  return { requestsPerSecond: run.requestsPerSecond, cpuPerRequest: cpu.used() / run.ok };
}

async function main() {
  const baselineDir = process.env.BASELINE_DIR;
  if (!baselineDir) throw new Error('set BASELINE_DIR to the checkout to compare against (with its own node_modules)');
  const database = await createTestDatabase('postgres');
  const support = { db: database.db, bus: new InvalidationBus(), serviceEnv: 'test' as const };
  const { platformId, brand } = await seedOffersBrand(support);
  const env = { DATABASE_URL: database.url!, SERVICE_ENV: 'test', ADMIN_TOKEN, OFFERS_RATE_LIMIT_PER_MINUTE: '1000000' };
  const baseline = await startService(env, { cwd: baselineDir });
  const candidate = await startService(env);
  try {
    const headers = { 'x-api-key': brand.key, 'x-platform-id': platformId };
    await measure(baseline, headers);
    await measure(candidate, headers);
    const throughput: number[] = [];
    const cpu: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      let a: Awaited<ReturnType<typeof measure>>;
      let b: Awaited<ReturnType<typeof measure>>;
      if (round % 2 === 0) {
        a = await measure(baseline, headers);
        b = await measure(candidate, headers);
      } else {
        b = await measure(candidate, headers);
        a = await measure(baseline, headers);
      }
      throughput.push(b.requestsPerSecond / a.requestsPerSecond);
      cpu.push(b.cpuPerRequest / a.cpuPerRequest);
      process.stdout.write(
        `round ${round + 1}: A ${a.requestsPerSecond.toFixed(0)} req/s ${a.cpuPerRequest.toFixed(1)} µs/request, ` +
          `B ${b.requestsPerSecond.toFixed(0)} req/s ${b.cpuPerRequest.toFixed(1)} µs/request\n`,
      );
    }
    const range = (ratios: number[]) => `${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}`;
    process.stdout.write(
      `B/A over ${ROUNDS} rounds: throughput ${median(throughput).toFixed(3)} (rounds ${range(throughput)}), ` +
        `CPU per request ${median(cpu).toFixed(3)} (rounds ${range(cpu)})\n`,
    );
  } finally {
    await Promise.all([baseline.stop(), candidate.stop()]);
    await database.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
