/**
 * `npm run container-check`: the Dockerfile's steps without Docker (these machines cannot pull base
 * images), so CI proves the image would work:
 * 1. the build stage: `npm run build` in this checkout (when stale);
 * 2. the runtime stage, in a clean temporary directory: package.json and the lock, production
 *    dependencies only (`npm ci --omit=dev`), then RUNTIME_FILES, the files the Dockerfile copies
 *    (test/build/container.test.ts keeps the two lists equal);
 * 3. `node --enable-source-maps dist/server.js` there, on a database of its own on the PostgreSQL
 *    server (TEST_DATABASE_URL names the server), healthy by the image's own HEALTHCHECK command;
 * 4. the offers endpoint, a page with its prebuilt stylesheet, and the published loader answer;
 * 5. SIGTERM stops it with exit code 0.
 * Run on the Node.js that runs this script (the project's Node 24 under npm and npx), standing in
 * for the image's.
 */
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** What the Dockerfile's runtime stage copies beside package.json, package-lock.json and node_modules. */
export const RUNTIME_FILES = ['dist', 'fixtures', 'web/loader/published', 'web/pages'];

/** The image's HEALTHCHECK: Node's fetch, since the slim image has no curl. */
export const HEALTH_CHECK =
  "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))";

const DEMO_BRAND_KEY = 'svc_test_demoBrandKey0000000000000001';
const SERVICE_PLATFORM_ID = '5e1f0a4c-0000-4000-8000-000000000001';
const DEV_ONLY = ['tsx', 'esbuild', 'typescript', 'vitest'];

function step(message: string): void {
  console.error(`container-check: ${message}`);
}

function fail(message: string, log = ''): never {
  throw new Error(`container-check: ${message}${log ? `\n--- service log ---\n${log}` : ''}`);
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function expectOk(url: string, init: RequestInit, what: string, log: () => string): Promise<Response> {
  const response = await fetch(url, init);
  if (!response.ok) fail(`${what}: ${url} answered ${response.status} ${await response.text()}`, log());
  return response;
}

/** Every step above; throws with the service's log when one fails. */
export async function runContainerCheck(): Promise<void> {
  step('build stage: npm run build (when stale)');
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });

  const work = fs.mkdtempSync(`${os.tmpdir()}/container-check-`);
  const serverUrl = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const database = `container_check_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl.toString() });
  await admin.connect();
  let service: ReturnType<typeof spawn> | undefined;
  try {
    step(`runtime stage in ${work}: production dependencies only`);
    for (const file of ['package.json', 'package-lock.json', ...RUNTIME_FILES]) {
      fs.cpSync(`${ROOT}${file}`, `${work}/${file}`, { recursive: true });
    }
    // --prefer-offline: what the lock file pins, from npm's cache where it holds it (the checkout's own
    // `npm ci` just filled it) instead of asking the registry again for each of ~150 packages.
    execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'], {
      cwd: work,
      stdio: 'inherit',
    });
    const devOnly = DEV_ONLY.filter((name) => fs.existsSync(`${work}/node_modules/${name}`));
    if (devOnly.length > 0) fail(`the production install holds devDependencies: ${devOnly.join(', ')}`);

    await admin.query(`create database ${database}`);
    const databaseUrl = new URL(serverUrl);
    databaseUrl.pathname = `/${database}`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    step(`starting node --enable-source-maps dist/server.js on ${base}`);
    // Only what the image sets, and what compose.yaml would: nothing of this checkout's environment.
    const env = {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl.toString(),
      HOST: '127.0.0.1',
      PORT: String(port),
      DEMO_PORT: '0',
      SERVICE_ENV: 'test',
      LOG_LEVEL: 'warn',
    };
    const running = spawn(process.execPath, ['--enable-source-maps', 'dist/server.js'], {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service = running;
    let log = '';
    running.stdout.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    running.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => running.once('close', resolve));

    const started = performance.now();
    for (;;) {
      if (running.exitCode !== null) fail(`the service exited ${running.exitCode} before it was healthy`, log);
      try {
        execFileSync(process.execPath, ['-e', HEALTH_CHECK], { env: { ...env, PATH: process.env.PATH } });
        break;
      } catch {
        if (performance.now() - started > 180_000) fail('not healthy within 180 s', log);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    step('healthy; checking offers, a page, its stylesheet and the published loader');
    const offers = await expectOk(
      `${base}/v1/campaigns/offers?type=post-purchase`,
      { headers: { 'X-Api-Key': DEMO_BRAND_KEY, 'X-Platform-Id': SERVICE_PLATFORM_ID } },
      'offers',
      () => log,
    );
    if (!Array.isArray(((await offers.json()) as { offers?: unknown }).offers)) fail('the offers answer holds no offers list', log);
    const page = await (await expectOk(`${base}/dashboard`, {}, 'the dashboard page', () => log)).text();
    const assets = [...page.matchAll(/\/assets\/[\w.-]+/g)].map(([path]) => path);
    if (assets.length === 0) fail('the dashboard page links no prebuilt assets', log);
    for (const asset of assets) await expectOk(`${base}${asset}`, {}, 'a prebuilt asset', () => log);
    await expectOk(`${base}/plugin/v2.0.0/loader.js`, {}, 'the published loader', () => log);

    running.kill('SIGTERM');
    const code = await exited;
    service = undefined;
    if (code !== 0) fail(`the service exited ${code} on SIGTERM`, log);
    step('passed');
  } finally {
    if (service?.exitCode === null) service.kill('SIGKILL');
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runContainerCheck();
