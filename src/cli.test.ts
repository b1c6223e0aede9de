import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/support/databases.js';
import { hashSecret } from './auth/keys.js';
import { LOCK_FILE_NAME } from './support/data-dir-lock.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each run starts a Node process that compiles the CLI; a busy CI machine needs a few seconds per run. */
const SPAWNING_TIMEOUT = 120_000;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI in a child process, as support would. */
function cli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, SERVICE_ENV: 'test', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('CLI on PostgreSQL', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let tmp: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    env = { DATABASE_URL: database.url! };
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-cli-'));
  });

  afterAll(async () => {
    await database?.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  const count = async (table: 'platforms' | 'platform_keys' | 'companies' | 'brand_api_keys') =>
    Number((await database.db.selectFrom(table).select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  it('creates a platform, issues its key, creates a company and a brand key, deactivates the platform', async () => {
    const created = await cli(['platform', 'create', '--name', 'CLI Platform', '--approved-origins', 'https://cli.example', '--plugin-page-url', 'https://cli.example/partners'], env);
    expect(created.stderr).not.toMatch(/Error/);
    expect(created.code).toBe(0);
    const platform = JSON.parse(created.stdout);
    expect(platform).toMatchObject({ name: 'CLI Platform', active: true, approvedOrigins: ['https://cli.example'] });

    const issued = JSON.parse((await cli(['platform-key', 'issue', platform.id, '--expires-at', '2099-01-01T00:00:00Z'], env)).stdout);
    expect(issued.key).toMatch(/^svc_platform_test_/);
    const storedKey = await database.db.selectFrom('platform_keys').selectAll().where('id', '=', issued.keyId).executeTakeFirstOrThrow();
    expect(storedKey.key_hash).toBe(hashSecret(issued.key));
    expect(storedKey.expires_at?.toISOString()).toBe('2099-01-01T00:00:00.000Z');

    const company = await cli(['company', 'create', '--company-id', 'cli-brand', '--domain', 'https://www.CLI-Brand.example/', '--business-name', 'CLI Brand', '--categories', 'Apparel,Outdoor', '--product-count', '42'], env);
    expect(JSON.parse(company.stdout)).toMatchObject({ companyId: 'cli-brand', domain: 'cli-brand.example', categories: ['Apparel', 'Outdoor'], productCount: 42 });
    const brandKey = JSON.parse((await cli(['brand-key', 'issue', 'cli-brand', '--name', 'Support issued'], env)).stdout);
    expect(brandKey).toMatchObject({ companyId: 'cli-brand', name: 'Support issued', key: expect.stringMatching(/^svc_test_/) });

    const deactivated = JSON.parse((await cli(['platform', 'deactivate', platform.id], env)).stdout);
    expect(deactivated.active).toBe(false);
    const stored = await database.db.selectFrom('platforms').select('active').where('id', '=', platform.id).executeTakeFirstOrThrow();
    expect(stored.active).toBe(false);
  }, SPAWNING_TIMEOUT);

  it('seeds a fixture file idempotently', async () => {
    const file = path.join(tmp, 'seed.json');
    await fs.writeFile(file, JSON.stringify({ brands: [{ companyId: 'seeded-cli', domain: 'seeded-cli.example', businessName: 'Seeded', apiKeys: ['svc_test_cliSeededKey00000000001'] }] }));
    const first = JSON.parse((await cli(['seed', file], env)).stdout);
    expect(first.written).toMatchObject({ companies: 1, brandKeys: 1 });
    const second = JSON.parse((await cli(['seed', file], env)).stdout);
    expect(Object.values(second.written).every((n) => n === 0)).toBe(true);
  }, SPAWNING_TIMEOUT);

  it('fails with a clear message, a non-zero exit code and nothing written', async () => {
    const before = await Promise.all([count('platforms'), count('platform_keys'), count('companies'), count('brand_api_keys')]);

    const unknown = await cli(['platform-key', 'issue', '00000000-0000-4000-8000-00000000dead'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Error \(not_found\): no platform 00000000-0000-4000-8000-00000000dead/);
    expect(unknown.stdout).toBe('');

    const missing = await cli(['company', 'create', '--company-id', 'half', '--domain', 'half.example'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--business-name is required/);

    const badFixture = path.join(tmp, 'bad.json');
    await fs.writeFile(badFixture, JSON.stringify({ platforms: [{ id: 'nope', name: 'Bad' }] }));
    const seeded = await cli(['seed', badFixture], env);
    expect(seeded.code).toBe(1);
    expect(seeded.stderr).toMatch(/platforms\[0\]\.id must match format "uuid"/);

    expect(await Promise.all([count('platforms'), count('platform_keys'), count('companies'), count('brand_api_keys')])).toEqual(before);
  }, SPAWNING_TIMEOUT);
});

describe('CLI on PGlite', () => {
  it('refuses a DATA_DIR held by a running service and points at the admin API', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-cli-lock-'));
    try {
      // This test process stands in for the running service: its pid is alive.
      await fs.writeFile(path.join(dataDir, LOCK_FILE_NAME), JSON.stringify({ pid: process.pid, holder: 'server' }));
      const result = await cli(['platform', 'list'], { DATA_DIR: dataDir });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`the service \\(pid ${process.pid}\\) is running on .*admin API`, 's'));
      expect(await fs.readdir(dataDir)).toEqual([LOCK_FILE_NAME]);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
