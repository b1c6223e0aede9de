import crypto from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidationBus } from '../../src/cache/invalidation.js';
import { WEBHOOK_BODY_LIMIT_BYTES } from '../../src/commerce/shopify/webhooks.js';
import { BODY_LIMIT_BYTES } from '../../src/app.js';
import { ShopifyStandIn } from '../shopify-standin/stand-in.js';
import { createTestDatabase, PATIENT_DATABASE_ENV, type TestDatabase } from '../support/databases.js';
import { createPlatform } from '../support/factories.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { shopifyEnv } from '../support/shopify.js';
import { tableContents } from '../support/snapshot.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

/** What a signed webhook may write: nothing of it may change for an unsigned one. */
const WEBHOOK_TABLES = ['shopify_webhook_deliveries', 'attributed_orders', 'order_events', 'order_events_ahead', 'commission_ledger'];
/** Unsigned bodies in flight at once, and how many each sender sends one after another. */
const SENDERS = 4;
const BODIES_PER_SENDER = 4;
/** /readyz is asked this often, whatever the answers, while the bodies arrive and for QUIET_MS on either side. */
const SAMPLE_EVERY_MS = 25;
const QUIET_MS = 1000;

/**
 * The senders, in a thread of their own so that their work does not delay the test's own /readyz
 * requests: SENDERS at a time, BODIES_PER_SENDER each, of `bytes` that cost most to parse and to
 * walk (an array of one-character strings: validation.ts visits every value), as a stranger would
 * send to stall the service. Each answer's status and error code, or the connection's error.
 */
const SENDER_THREAD = `
const crypto = require('node:crypto');
const { workerData, parentPort } = require('node:worker_threads');
const { url, kind, bytes, senders, bodiesPerSender } = workerData;
const body = new TextEncoder().encode('[' + Array.from({ length: Math.floor((bytes - 2) / 4) }, () => '"a"').join(',') + ']');
const wrongSignature = (encoding) => crypto.createHmac('sha256', 'not-the-secret').update(body).digest(encoding);
let sent = 0;
function headers() {
  sent += 1;
  if (kind === 'orders') {
    const timestamp = String(Math.floor(Date.now() / 1000));
    return { 'content-type': 'application/json', 'x-svc-timestamp': timestamp, 'x-svc-signature': 'sha256=' + wrongSignature('hex') };
  }
  const shopify = {
    'content-type': 'application/json',
    'x-shopify-topic': 'orders/create',
    'x-shopify-shop-domain': 'victim.myshopify.com',
    'x-shopify-api-version': '2026-10',
    'x-shopify-webhook-id': crypto.randomUUID(),
  };
  // Every other body carries a signature, made with another secret.
  if (sent % 2 === 0) shopify['x-shopify-hmac-sha256'] = wrongSignature('base64');
  return shopify;
}
async function sender() {
  const answers = [];
  for (let i = 0; i < bodiesPerSender; i += 1) {
    try {
      const response = await fetch(url, { method: 'POST', headers: headers(), body });
      answers.push({ status: response.status, error: (await response.json()).error });
    } catch (error) {
      answers.push({ status: 0, error: String(error.cause?.code ?? error) });
    }
  }
  return answers;
}
Promise.all(Array.from({ length: senders }, sender)).then((all) => parentPort.postMessage(all.flat()));
`;

interface Answer {
  status: number;
  error: unknown;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** How long /readyz takes to answer, end to end on loopback, once. */
async function readyzLatency(service: ServiceProcess): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${service.baseUrl}/readyz`);
  await response.arrayBuffer();
  expect(response.status).toBe(200);
  return performance.now() - started;
}

/**
 * /readyz asked every SAMPLE_EVERY_MS until `until` settles, whether or not the last request was
 * answered: a stall of the service then delays every request sent during it, as it would an
 * orchestrator's probes, rather than the one a request-after-request sampler would have in flight.
 */
async function sampleUntil(service: ServiceProcess, until: Promise<unknown>): Promise<number[]> {
  const samples: Array<Promise<number>> = [readyzLatency(service)];
  const timer = setInterval(() => samples.push(readyzLatency(service)), SAMPLE_EVERY_MS);
  try {
    await until;
  } finally {
    clearInterval(timer);
  }
  return Promise.all(samples);
}

const quietLatencies = (service: ServiceProcess) => sampleUntil(service, new Promise((resolve) => setTimeout(resolve, QUIET_MS)));

/** The senders' bodies, while /readyz is asked: the latencies seen meanwhile, and the bodies' answers. */
async function flood(service: ServiceProcess, kind: 'shopify' | 'orders', path: string, bytes: number) {
  const senders = new Worker(SENDER_THREAD, {
    eval: true,
    workerData: { url: `${service.baseUrl}${path}`, kind, bytes, senders: SENDERS, bodiesPerSender: BODIES_PER_SENDER },
  });
  const answered = new Promise<Answer[]>((resolve, reject) => {
    senders.once('message', resolve);
    senders.once('error', reject);
  });
  try {
    const latencies = await sampleUntil(service, answered);
    return { latencies, answers: await answered };
  } finally {
    await senders.terminate();
  }
}

/**
 * The service as its own process, sent a stream of unsigned webhook bodies of the largest size
 * each route takes: refused 401 `unauthorized` on their signature alone, nothing written, and
 * /readyz answered as fast as on the quiet service. Before the fix each body was parsed and its
 * values walked first (13 bodies of 10 MB in 10 s took /readyz from 4 ms to 699 ms).
 */
describe('unsigned webhook bodies do not stall the service', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  const standIn = new ShopifyStandIn();
  const ordersSecret = crypto.randomBytes(24).toString('base64url');

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    await createPlatform({ db: database.db, bus: new InvalidationBus(), serviceEnv: 'test' });
    service = await startService({
      SERVICE_ENV: 'test',
      LOG_LEVEL: 'silent',
      ADMIN_TOKEN,
      DEMO_PORT: '0',
      DATABASE_URL: database.url!,
      ORDERS_WEBHOOK_SECRET: ordersSecret,
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...PATIENT_DATABASE_ENV,
      ...shopifyEnv(standIn),
    });
  });

  afterAll(async () => {
    await service?.kill();
    await database?.close();
  });

  /**
   * The bound on /readyz during a flood: what the quiet service took, with room for the bodies'
   * reading and hashing and the sender thread's own CPU on a shared machine (measured: 61 ms
   * against 20 ms quiet for Shopify's bodies, 20 against 13 for the orders webhook's; before the
   * fix /readyz answered 503, and 8.5 s against 12 ms).
   */
  const within = (quietMs: number) => 4 * quietMs + 100;

  const written = async () => {
    const contents = await tableContents(database.db);
    return WEBHOOK_TABLES.map((table) => [table, contents[table]]);
  };

  const checkFlood = async (kind: 'shopify' | 'orders', path: string, bytes: number) => {
    const before = await written();
    const quiet = median(await quietLatencies(service));
    const { latencies, answers } = await flood(service, kind, path, bytes);
    const afterwards = median(await quietLatencies(service));
    expect(answers).toHaveLength(SENDERS * BODIES_PER_SENDER);
    expect(
      answers.every((answer) => answer.status === 401 && answer.error === 'unauthorized'),
      JSON.stringify(answers),
    ).toBe(true);
    const loaded = median(latencies);
    // The quiet baseline is measured on either side of the flood: the machine's load may change while it runs.
    expect(loaded, `quiet ${quiet.toFixed(1)} ms and ${afterwards.toFixed(1)} ms, loaded ${loaded.toFixed(1)} ms`).toBeLessThanOrEqual(
      within(Math.max(quiet, afterwards)),
    );
    expect(await written()).toEqual(before);
  };

  it('Shopify: bodies of the route’s largest size, unsigned or wrongly signed', async () => {
    await checkFlood('shopify', '/commerce/shopify/webhooks', WEBHOOK_BODY_LIMIT_BYTES);
  });

  it('the order webhook: bodies of the app’s largest size, with a fresh timestamp and a wrong signature', async () => {
    await checkFlood('orders', '/webhooks/commerce/orders', BODY_LIMIT_BYTES);
  });
});
