import crypto from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { InvalidationBus } from '../../src/cache/invalidation.js';
import type { ServiceContext } from '../../src/service-context.js';
import { createTestDatabase, PATIENT_DATABASE_ENV, TEST_POSTGRES_URL, type TestDatabase } from '../support/databases.js';
import { createPlatform } from '../support/factories.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { responseTimes, startService, type ServiceProcess } from '../support/service-process.js';
import { type TcpProxy, waitUntil } from './support.js';

export const POSTGRES = { host: new URL(TEST_POSTGRES_URL).hostname, port: Number(new URL(TEST_POSTGRES_URL).port || 5432) };
export const REDIS = { host: '127.0.0.1', port: 6379 };
/**
 * Longest any request may take while the database is away or silent: the 5 s docs/operations.md
 * promises (the default bounds make it 4 s: 1.5 s for a connection, 2.5 s for a statement's
 * answer). Checked against the time the service itself measured (`responseTime` in its log), which
 * the test's own process being slow to run on a loaded machine does not lengthen.
 */
export const ANSWER_WITHIN_MS = 5_000;
/** When the test's client gives up on an answer: a request unanswered by then has hung, whatever the machine's load. */
export const CLIENT_GIVES_UP_MS = 30_000;
/** How long each silent outage below lasts at least: longer than any request may wait. */
export const SILENCE_MS = 7_000;
/** Outages last until this many requests were answered 503 within them, so each is seen under load whatever the machine's speed. */
export const REFUSED_DURING_OUTAGE = 20;
/** Load goes on after recovery until this many requests were sent and answered afterwards. */
export const ANSWERED_AFTER_RECOVERY = 16;
/**
 * A change made through another instance while the credential and offers caches hold the old
 * state (60 s) must be seen long before those expire: by this bound it was heard, not waited out.
 */
export const HEARD_WITHIN_MS = 30_000;

export interface Outcome {
  route: string;
  id: string;
  status: number;
  body: unknown;
  retryAfter: string | null;
  /** As the test's client measured it, for the figures printed; the bound is checked on the service's own. */
  ms: number;
  at: number;
}

/** The database URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}

export type Request = { route: string; send: (signal: AbortSignal, requestId: string) => Promise<Response> };

/** Sends one request with an id of its own; its status (0 when it got no answer), body, Retry-After and time taken. */
export async function measure(request: Request): Promise<Outcome> {
  const id = crypto.randomUUID();
  const started = performance.now();
  try {
    const response = await request.send(AbortSignal.timeout(CLIENT_GIVES_UP_MS), id);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON; kept as text for the assertion message
    }
    const retryAfter = response.headers.get('retry-after');
    return { route: request.route, id, status: response.status, body, retryAfter, ms: performance.now() - started, at: started };
  } catch (error) {
    return { route: request.route, id, status: 0, body: String(error), retryAfter: null, ms: performance.now() - started, at: started };
  }
}

/** Sends requests from `concurrency` loops into `outcomes` until `until()` says stop; bounded by `maxMs` and `maxRequests`. */
export async function load(
  requests: Request[],
  outcomes: Outcome[],
  options: { concurrency: number; until: () => boolean; maxMs: number; maxRequests: number },
): Promise<void> {
  const deadline = performance.now() + options.maxMs;
  let sent = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, lane) => {
      while (!options.until() && performance.now() < deadline && sent < options.maxRequests) {
        const request = requests[(sent + lane) % requests.length]!;
        sent += 1;
        outcomes.push(await measure(request));
      }
    }),
  );
}

/**
 * Each answered request with the time the service took for it. A response can reach the client
 * before the service's log line about it reaches the test, so this waits (bounded) for those lines.
 */
export async function serviceTimes(
  service: ServiceProcess,
  outcomes: Outcome[],
): Promise<Array<{ route: string; status: number; ms: number | null }>> {
  const answered = outcomes.filter((o) => o.status !== 0);
  await waitUntil(async () => {
    const times = responseTimes(service);
    return answered.every((o) => times.has(o.id));
  }, 30_000).catch(() => undefined);
  const times = responseTimes(service);
  return answered.map((o) => ({ route: o.route, status: o.status, ms: times.get(o.id) ?? null }));
}

/** The answers the service took `ANSWER_WITHIN_MS` or longer for (or did not log), for the assertion message. */
export async function tooSlow(service: ServiceProcess, outcomes: Outcome[]) {
  return (await serviceTimes(service, outcomes)).filter((answer) => answer.ms === null || answer.ms >= ANSWER_WITHIN_MS);
}

/** The slowest answer of each route, as the service measured it. */
export async function slowestByRoute(service: ServiceProcess, outcomes: Outcome[]): Promise<Record<string, number>> {
  const slowest: Record<string, number> = {};
  for (const answer of await serviceTimes(service, outcomes))
    slowest[answer.route] = Math.max(slowest[answer.route] ?? 0, Math.round(answer.ms ?? Infinity));
  return slowest;
}

/** What the fault tests share, set once their file's database is made. */
export interface FaultsGround {
  database: TestDatabase;
  support: ServiceContext;
  platformId: string;
}

/**
 * The ground of a file of fault tests: a PostgreSQL database of its own with a platform, made before
 * its tests (handed to `ready`), and every service and proxy they start, stopped after them.
 */
export function faultsFixture(ready: (ground: FaultsGround) => void) {
  let database: TestDatabase | undefined;
  const running: Array<{ kill: () => Promise<void> }> = [];
  const proxies: TcpProxy[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const support: ServiceContext = { db: database.db, bus: new InvalidationBus(), serviceEnv: 'test' };
    const { platformId } = await createPlatform(support);
    ready({ database, support, platformId });
  });

  afterAll(async () => {
    await Promise.all(running.map((process) => process.kill()));
    for (const proxy of proxies) await proxy.cut();
    await database?.close();
  });

  const baseEnv = () => ({ SERVICE_ENV: 'test', LOG_LEVEL: 'silent', ADMIN_TOKEN, DEMO_PORT: '0' });
  /** For the tests that are not about the database bounds: a request must not be answered 503 for the machine's load. */
  const patientEnv = () => ({ ...baseEnv(), ...PATIENT_DATABASE_ENV });
  const start = async (env: Record<string, string>) => {
    const service = await startService(env);
    running.push(service);
    return service;
  };
  return { running, proxies, baseEnv, patientEnv, start };
}
