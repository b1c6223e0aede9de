import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidationBus } from '../../src/cache/invalidation.js';
import { openDatabase } from '../../src/db/database.js';
import { issuePlatformKey } from '../../src/auth/service.js';
import { savePlatform } from '../support/factories.js';
import {
  createTestDatabase,
  migratedDataDir,
  PATIENT_DATABASE_ENV,
  TEST_DATABASE_BOUNDS,
  type TestDatabase,
} from '../support/databases.js';
import { entryPointArgs, freePort, requestsBegun, startService, untilShuttingDown, waitUntil } from '../support/service-process.js';
import { TableLock } from '../support/table-lock.js';

async function seedPlatform(database: { db: TestDatabase['db'] }) {
  const bus = new InvalidationBus();
  const support = { db: database.db, bus, serviceEnv: 'test' as const };
  const platformId = crypto.randomUUID();
  await savePlatform(support, {
    id: platformId,
    name: 'Lifecycle',
    active: true,
    offerTypes: ['post-purchase'],
    approvedOrigins: [],
    pluginPageUrl: null,
  });
  const { key } = await issuePlatformKey(support, platformId);
  await bus.close();
  return { platformId, key };
}

const syncRequest = (baseUrl: string, key: string, brands: unknown[]) =>
  fetch(`${baseUrl}/v1/platform/brands`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ brands }),
  });

/** A sync request: its status (0 for none), and whether the response said Connection: close, as the service does once shutting down. */
function sendSync(baseUrl: string, key: string, brands: unknown[]): Promise<{ status: number; closed: boolean }> {
  const body = JSON.stringify({ brands });
  return new Promise((resolve) => {
    const request = http.request(`${baseUrl}/v1/platform/brands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': key },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, closed: response.headers.connection === 'close' }));
    });
    // Cut off without an answer.
    request.on('error', () => resolve({ status: 0, closed: false }));
    request.end(body);
  });
}

describe('the service process on PostgreSQL', () => {
  let database: TestDatabase;

  afterAll(async () => {
    await database?.close();
  });

  it(`starts, prints where to look, and on SIGTERM finishes the requests in flight \
(each answered after the signal) before exiting 0`, async () => {
    database = await createTestDatabase('postgres');
    const { platformId, key } = await seedPlatform(database);
    // At info level the service logs each request as it routes it, which tells when all are in.
    // At info level the service logs each request it begins. Patient database bounds: the syncs
    // below wait for the test's lock, longer than the 4 s the defaults allow a request.
    const service = await startService({ DATABASE_URL: database.url!, LOG_LEVEL: 'info', ...PATIENT_DATABASE_ENV });
    expect(service.output()).toContain(`Base URL:        ${service.baseUrl}`);
    expect(service.output()).toContain(`${service.baseUrl}/docs`);

    const batches = Array.from({ length: 4 }, (_, b) => Array.from({ length: 1000 }, (_, i) => ({ domain: `inflight-${b}-${i}.example` })));
    // The test's own connection locks the brands table, so every sync is provably in flight when
    // the signal comes: begun by the service and waiting to write, until the service is shutting down.
    const lock = await TableLock.take(database.url!, 'platform_brands');
    let inFlight: Array<Promise<{ status: number; closed: boolean }>> = [];
    let exitCode: Promise<number | null>;
    try {
      inFlight = batches.map((brands) => sendSync(service.baseUrl, key, brands));
      await waitUntil(
        async () => requestsBegun(service, '/v1/platform/brands') === inFlight.length && (await lock.waiting()) === inFlight.length,
        60_000,
      );
      exitCode = service.stop();
      await untilShuttingDown(service);
    } finally {
      await lock.release();
    }
    expect(await Promise.all(inFlight)).toEqual(Array(4).fill({ status: 200, closed: true }));
    expect(await exitCode).toBe(0);

    const stored = await database.db
      .selectFrom('platform_brands')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .where('platform_id', '=', platformId)
      .executeTakeFirstOrThrow();
    expect(stored.n).toBe(4000);
    await expect(fetch(`${service.baseUrl}/healthz`)).rejects.toThrow();
  });
});

describe('the service process on PGlite', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await migratedDataDir('svc-pglite-');
  });

  afterAll(() => {
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps its data under DATA_DIR across restarts', async () => {
    const first = await startService({ DATA_DIR: dataDir });
    expect(await first.stop()).toBe(0);

    const handle = await openDatabase({ dataDir, bounds: TEST_DATABASE_BOUNDS });
    const { platformId, key } = await seedPlatform(handle);
    await handle.close();

    const second = await startService({ DATA_DIR: dataDir });
    const response = await syncRequest(second.baseUrl, key, [{ domain: 'https://www.persisted.example/', businessName: 'Persisted' }]);
    expect(response.status).toBe(200);
    expect(await second.stop()).toBe(0);

    const reopened = await openDatabase({ dataDir, bounds: TEST_DATABASE_BOUNDS });
    const rows = await reopened.db
      .selectFrom('platform_brands')
      .select(['domain', 'business_name'])
      .where('platform_id', '=', platformId)
      .execute();
    await reopened.close();
    expect(rows).toEqual([{ domain: 'persisted.example', business_name: 'Persisted' }]);
  });
});

describe('the service process with a bad address or data directory', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bad-config-'));

  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const startFailing = async (env: Record<string, string>) => {
    const port = await freePort();
    const child = spawn(process.execPath, entryPointArgs('server'), {
      env: { ...process.env, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'warn', DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { code, stderr };
  };

  it('exits 1 with the variable named, not a stack trace, when HOST is malformed or DATA_DIR is a file', async () => {
    const file = path.join(dataDir, 'a-file');
    fs.writeFileSync(file, '');
    const { code, stderr } = await startFailing({ HOST: 'http://localhost', DATA_DIR: file });
    expect(code).toBe(1);
    expect(stderr).toMatch(/HOST must be an IP address .* \(got "http:\/\/localhost"\)/);
    expect(stderr).toMatch(/DATA_DIR is a file, not a directory/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 1 naming HOST and PORT when the address cannot be bound', async () => {
    // 192.0.2.1 (TEST-NET-1) is well formed but is no address of this machine.
    const { code, stderr } = await startFailing({ HOST: '192.0.2.1', DATA_DIR: dataDir });
    expect(code).toBe(1);
    expect(stderr).toMatch(/Failed to start: cannot listen on HOST=192\.0\.2\.1 PORT=\d+ \(.*EADDRNOTAVAIL.*\)\. Check HOST and PORT\./);
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 90_000);

  it('exits 1 naming DEMO_PORT when the plugin demo port is taken, before the database is opened or migrated', async () => {
    const fresh = fs.mkdtempSync(path.join(dataDir, 'fresh-'));
    const demoPort = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(demoPort, '127.0.0.1', resolve));
    try {
      const { code, stderr } = await startFailing({ HOST: '127.0.0.1', DEMO_PORT: String(demoPort), DATA_DIR: fresh });
      expect(code).toBe(1);
      expect(stderr).toContain(`Failed to start: cannot listen on HOST=127.0.0.1 DEMO_PORT=${demoPort} (`);
      expect(stderr).toContain('Check DEMO_PORT (0 turns the plugin demo off).');
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(fs.readdirSync(fresh)).toEqual([]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 90_000);
});

describe('the plugin demo on ports other than the defaults', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await migratedDataDir('svc-demo-ports-');
  });

  afterAll(() => {
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('approves the origin the demo page is served from, so the plugin opens there', async () => {
    const demoPort = await freePort();
    const service = await startService({ DATA_DIR: dataDir, DEMO_PORT: String(demoPort) });
    try {
      const demoOrigin = `http://127.0.0.1:${demoPort}`;
      expect(service.output()).toContain(`Plugin demo:     ${demoOrigin}/`);
      const platformId = '7d9c3f5e-2b1a-4c8e-9f4d-1a2b3c4d5e6f';
      const query = new URLSearchParams({ platformId, domain: 'cozy-candles.example', mode: 'page', ancestors: demoOrigin });
      const embed = await fetch(`${service.baseUrl}/plugin/v2/embed?${query}`, {
        headers: { referer: `${demoOrigin}/`, 'sec-fetch-dest': 'iframe' },
      });
      const boot = /<script type="application\/json" id="embed-boot">(.*?)<\/script>/.exec(await embed.text())![1]!;
      expect(JSON.parse(boot)).toMatchObject({ page: 'app', parentOrigin: demoOrigin });
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 120_000);
});
