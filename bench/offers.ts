/**
 * GET /v1/campaigns/offers on PostgreSQL (a brand with 6 live partner offers, views counted by
 * group commit), authenticated once with an API key and once with an OAuth bearer token, side by
 * side with a bare Fastify route returning the same JSON body (no auth, no database), each as its
 * own process, driven by autocannon in the same run. Reports req/s, p50 and p99 of both and the
 * ratios, checks that the views recorded equal the offers returned in 2xx responses, measures the
 * CPU time per request of each process, and rewrites the generated top of
 * docs/performance-offers.md.
 *
 *   npm run bench:offers   (ROUNDS=7 alternating runs of AMOUNT=25000 requests per route, CONNECTIONS=50)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { InvalidationBus } from '../src/cache/invalidation.js';
import { createTestDatabase } from '../test/support/databases.js';
import { ADMIN_TOKEN } from '../test/support/harness.js';
import { registerOAuthClient } from '../src/oauth/clients.js';
import { CpuMeter, freePort, median, startService } from './support.js';
import { CONNECTIONS, OFFERS_PATH, loadOffers, seedOffersBrand, type Run } from './offers-load.js';

const AMOUNT = Number(process.env.AMOUNT ?? 25_000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const KEPT_MARKER = '<!-- Written by hand from here on; npm run bench:offers replaces only what is above. -->';

/** The baseline: what Fastify alone costs to answer with this body. */
async function runBareServer(): Promise<void> {
  const body = JSON.parse(process.env.BARE_BODY!) as unknown;
  const app = Fastify({ logger: false });
  app.get('/v1/campaigns/offers', async () => body);
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  process.stdout.write('ready\n');
}

async function startBareServer(body: string): Promise<{ url: string; pid: number; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/offers.ts', '--bare'], {
    env: { ...process.env, PORT: String(port), BARE_BODY: body },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGKILL') };
}

function summary(runs: Run[]): Run {
  return {
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    seconds: runs.reduce((sum, run) => sum + run.seconds, 0),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    ok: runs.reduce((sum, run) => sum + run.ok, 0),
    other: runs.reduce((sum, run) => sum + run.other, 0),
  };
}

/** CPU time, in µs, used by each side over a route's measured rounds. */
interface CpuTotals {
  requests: number;
  seconds: number;
  server: number;
  postgres: number;
  client: number;
}

const noCpuYet = (): CpuTotals => ({ requests: 0, seconds: 0, server: 0, postgres: 0, client: 0 });

async function metered(totals: CpuTotals, serverPid: number, postgresPids: number[], run: () => Promise<Run>): Promise<Run> {
  const server = new CpuMeter([serverPid]);
  const postgres = new CpuMeter(postgresPids);
  const client = new CpuMeter([process.pid]);
  const result = await run();
  totals.requests += result.ok + result.other;
  totals.seconds += result.seconds;
  totals.server += server.used();
  totals.postgres += postgres.used();
  totals.client += client.used();
  return result;
}

const ms = (value: number) => value.toFixed(2);

function tableRow(label: string, result: Run): string {
  return `| ${label} | ${result.requestsPerSecond.toFixed(0)} | ${ms(result.p50)} | ${ms(result.p99)} | ${result.other} |`;
}

function cpuRow(label: string, totals: CpuTotals): string {
  const perRequest = (micros: number) => (micros / totals.requests).toFixed(1);
  const busy = totals.server / (totals.seconds * 1_000_000);
  const cells = [label, perRequest(totals.server), perRequest(totals.postgres), perRequest(totals.client), `${(busy * 100).toFixed(0)}%`];
  return `| ${cells.join(' | ')} |`;
}

async function main() {
  const database = await createTestDatabase('postgres');
  const support = { db: database.db, bus: new InvalidationBus(), serviceEnv: 'test' as const };
  const { platformId, brand } = await seedOffersBrand(support);

  // The limit stays on (its check is part of the cost) but high enough not to refuse the load.
  const service = await startService({
    DATABASE_URL: database.url!,
    SERVICE_ENV: 'test',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN,
    OFFERS_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const headers = { 'x-api-key': brand.key, 'x-platform-id': platformId };
  const client = await registerOAuthClient(support, {
    name: 'Bench app',
    redirectUris: ['https://bench.example/callback'],
    confidential: true,
    companyId: brand.companyId,
  });
  const tokenResponse = await fetch(`${service.baseUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret! }),
  });
  const { access_token: accessToken } = (await tokenResponse.json()) as { access_token: string };
  if (!accessToken) throw new Error(`no access token: ${tokenResponse.status}`);
  const bearerHeaders = { authorization: `Bearer ${accessToken}`, 'x-platform-id': platformId };
  const first = await fetch(`${service.baseUrl}${OFFERS_PATH}`, { headers });
  const body = await first.text();
  const offersPerResponse = (JSON.parse(body) as { offers: unknown[] }).offers.length;
  if (first.status !== 200 || offersPerResponse !== 6) throw new Error(`expected 6 offers, got ${first.status} ${body}`);
  const bare = await startBareServer(body);

  // What one durable commit costs on this machine right now: the floor of the endpoint's latency.
  await sql`create table bench_commit_probe (k int primary key, v bigint not null)`.execute(database.db);
  const commitTimes: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    const started = performance.now();
    await sql`insert into bench_commit_probe values (1, 1) on conflict (k) do update set v = bench_commit_probe.v + 1`.execute(database.db);
    commitTimes.push(performance.now() - started);
  }
  const commitMs = median(commitTimes);

  // Warm both up, then alternate so that load from anything else on the machine falls on both
  // sides alike; medians over the rounds are reported.
  await loadOffers(bare.url, {}, 5_000);
  const warmEndpoint = await loadOffers(service.baseUrl, headers, 5_000);
  const warmBearer = await loadOffers(service.baseUrl, bearerHeaders, 5_000);
  const amount = AMOUNT;
  const bareRuns: Run[] = [];
  const endpointRuns: Run[] = [];
  const bearerRuns: Run[] = [];
  // The backends of the service's pool (open since the warm-up) and the server's own processes
  // (WAL writer, checkpointer...), which share the cores with everything else.
  const postgresPids = (
    await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database() or datname is null`.execute(database.db)
  ).rows.map((row) => row.pid);
  const servicePid = service.process.pid!;
  const [bareCpu, endpointCpu, bearerCpu] = [noCpuYet(), noCpuYet(), noCpuYet()];
  for (let round = 0; round < ROUNDS; round += 1) {
    bareRuns.push(await metered(bareCpu, bare.pid, postgresPids, () => loadOffers(bare.url, {}, amount)));
    endpointRuns.push(await metered(endpointCpu, servicePid, postgresPids, () => loadOffers(service.baseUrl, headers, amount)));
    bearerRuns.push(await metered(bearerCpu, servicePid, postgresPids, () => loadOffers(service.baseUrl, bearerHeaders, amount)));
  }
  const baseline = summary(bareRuns);
  const endpoint = summary(endpointRuns);
  const bearer = summary(bearerRuns);
  const endpointOk = 1 + warmEndpoint.ok + endpoint.ok + warmBearer.ok + bearer.ok;

  const stats = (await (
    await fetch(`${service.baseUrl}/admin/platforms/${platformId}/stats`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).json()) as { views: number };
  const expectedViews = endpointOk * offersPerResponse;
  const version = (await sql<{ version: string }>`select version()`.execute(database.db)).rows[0]!.version;

  bare.stop();
  await service.stop();
  await database.close();

  const throughputRatio = endpoint.requestsPerSecond / baseline.requestsPerSecond;
  // The machine's speed drifts between rounds; a round's routes run back to back, so each
  // round's own ratio is the steadier figure.
  const pairedRatio = median(endpointRuns.map((run, i) => run.requestsPerSecond / bareRuns[i]!.requestsPerSecond));
  const p99Ratio = endpoint.p99 / baseline.p99;
  const bearerThroughputRatio = bearer.requestsPerSecond / baseline.requestsPerSecond;
  const bearerVsKey = bearer.requestsPerSecond / endpoint.requestsPerSecond;
  const lines = [
    '# Offers endpoint performance',
    '',
    `Measured by \`npm run bench:offers\` on ${new Date().toISOString().slice(0, 10)}: ` +
      `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ` +
      `Node ${process.version}, ${version.split(',')[0]}. autocannon, ${CONNECTIONS} connections, ` +
      `${ROUNDS} alternating rounds of ${amount} requests per route after 5,000 warm-up requests each; medians over the rounds. ` +
      `Client and both servers share the machine (load average ${os.loadavg()[0]!.toFixed(1)} at the end).`,
    '',
    '| route | requests/s | p50 ms | p99 ms | non-2xx |',
    '|---|---:|---:|---:|---:|',
    tableRow('bare Fastify route, same JSON body, no auth, no database', baseline),
    tableRow('GET /v1/campaigns/offers (API key, X-Platform-Id, 6 offers, views group-committed to PostgreSQL)', endpoint),
    tableRow('GET /v1/campaigns/offers (OAuth bearer token, X-Platform-Id, same brand)', bearer),
    '',
    `Per round (bare → API key → bearer req/s): ${bareRuns
      .map((run, i) => [run, endpointRuns[i]!, bearerRuns[i]!].map((each) => each.requestsPerSecond.toFixed(0)).join(' → '))
      .join('; ')}.`,
    '',
    `- Throughput ratio (endpoint / bare): **${(throughputRatio * 100).toFixed(0)}%** of the medians; ` +
      `**${(pairedRatio * 100).toFixed(0)}%** as the median of each round's own ratio (target at least 50%).`,
    `- p99 ratio (endpoint / bare): **${p99Ratio.toFixed(2)}×** (target at most 3×; latencies timed per response, to the microsecond).`,
    `- Bearer token: **${(bearerThroughputRatio * 100).toFixed(0)}%** of the bare route, ` +
      `**${(bearerVsKey * 100).toFixed(0)}%** of the API-key throughput ` +
      `(target: bearer verification costs no more than API-key verification), p99 ${ms(bearer.p99)} ms vs ${ms(endpoint.p99)} ms.`,
    `- One durable single-row upsert (a commit waiting for the disk flush) took ${commitMs.toFixed(1)} ms (median of 200) ` +
      'before the runs; ' +
      'every endpoint response waits for at least one such commit.',
    `- Views: ${endpointOk} responses with 2xx (all runs, warm-up included) × ${offersPerResponse} offers = ${expectedViews} owed, ` +
      `${stats.views} recorded: ` +
      `${stats.views === expectedViews ? '**none lost**' : '**MISMATCH**'}.`,
    '',
    'CPU time per request over the measured rounds (/proc/<pid>/stat, so Linux only; the kernel counts in',
    '10 ms ticks). "Busy" is the server process\'s CPU time over the rounds\' wall time; it can pass 100%',
    'because V8 collects garbage on helper threads too.',
    '',
    '| CPU per request, µs | server process | PostgreSQL | client (autocannon) | server process busy |',
    '|---|---:|---:|---:|---:|',
    cpuRow('bare route', bareCpu),
    cpuRow('endpoint, API key', endpointCpu),
    cpuRow('endpoint, bearer token', bearerCpu),
    '',
    'The endpoint runs the whole production path: key authentication and platform checks from memory, the',
    'per-brand rate limit (raised to 1,000,000/min so the load is not refused), the offers from the in-process',
    'cache, and the wait for the group commit of the views before each response is sent. Logging at `warn`.',
    '',
    '## Reading the figures',
    '',
    'With 50 connections each waiting for its response, throughput is 50 divided by the latency. Client,',
    'service and PostgreSQL share the two cores, so every microsecond of CPU the service spends per request',
    "and every statement it sends shows up in the latency, and so does the wait for the views' commit, when",
    "the service has nothing else to do (busy under 100%). The machine's speed drifts between minutes and",
    'differs between machines of the kind, so only the ratios of one run mean anything, and the median of',
    "each round's own ratio (its routes run back to back) is the steadier of the two ratios reported.",
    '',
  ];
  const report = lines.join('\n');
  process.stdout.write(`${report}\n`);
  // The runs written up by hand below the marker are kept; the generated part above is replaced.
  const file = path.join('docs', 'performance-offers.md');
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const kept = previous.includes(KEPT_MARKER) ? previous.slice(previous.indexOf(KEPT_MARKER)) : `${KEPT_MARKER}\n`;
  fs.writeFileSync(file, `${report}\n${kept}`);
  if (stats.views !== expectedViews || endpoint.other > 0 || bearer.other > 0) process.exitCode = 1;
}

if (process.argv.includes('--bare')) {
  runBareServer().catch((error) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
