import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { createTestDatabase, TEST_DATABASE_BOUNDS, TEST_POSTGRES_URL, type TestDatabase } from '../test/support/databases.js';
import { openDatabase } from './db/database.js';
import { InvalidationBus } from './cache/invalidation.js';
import { issuePlatformKey } from './auth/service.js';
import { registerOAuthClient } from './oauth/clients.js';
import { createBrand, savePlatform } from '../test/support/factories.js';
import { entryPointArgs } from '../test/support/service-process.js';
import { hashSecret } from './shared/keys.js';
import { LOCK_FILE_NAME } from './admin/data-dir-lock.js';
import { runCli } from './cli.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A hang guard, not a bound: the PGlite cases open a fresh database, and at load 17 on two cores one start took over 120 s. */
const SPAWNING_TIMEOUT = 240_000;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** When a CLI run is taken for hung and killed: starting it on PGlite beside a CPU burner can take most of a minute. */
const CLI_HANG_MS = 240_000;

/**
 * Runs a CLI command in this process (`runCli`, what `node dist/cli.js` runs) with only the
 * environment given, as support's shell would have it, and its output captured.
 */
async function cli(args: string[], env: Record<string, string>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SERVICE_ENV: 'test', ...env },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/** Runs the compiled CLI (dist/cli.js, built when stale) in a child process, as support would. */
function cliProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...entryPointArgs('cli'), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, SERVICE_ENV: 'test', ...env }, timeout: CLI_HANG_MS },
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

  const supportContext = () => ({ db: database.db, bus: new InvalidationBus(), serviceEnv: 'test' as const });

  const count = async (table: 'platforms' | 'platform_keys' | 'companies' | 'brand_api_keys' | 'sandbox_store_owners') =>
    Number(
      (
        await database.db
          .selectFrom(table)
          .select(({ fn }) => fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it(
    'creates a platform, issues its key, creates a company and a brand key, deactivates the platform',
    async () => {
      const created = await cli(
        [
          'platform',
          'create',
          '--name',
          'CLI Platform',
          '--approved-origins',
          'https://cli.example',
          '--plugin-page-url',
          'https://cli.example/partners',
        ],
        env,
      );
      expect(created.stderr).not.toMatch(/Error/);
      expect(created.code).toBe(0);
      const platform = JSON.parse(created.stdout);
      expect(platform).toMatchObject({ name: 'CLI Platform', active: true, approvedOrigins: ['https://cli.example'] });

      const issued = JSON.parse((await cli(['platform-key', 'issue', platform.id, '--expires-at', '2099-01-01T00:00:00Z'], env)).stdout);
      expect(issued.key).toMatch(/^svc_platform_test_/);
      const storedKey = await database.db.selectFrom('platform_keys').selectAll().where('id', '=', issued.keyId).executeTakeFirstOrThrow();
      expect(storedKey.key_hash).toBe(hashSecret(issued.key));
      expect(storedKey.expires_at?.toISOString()).toBe('2099-01-01T00:00:00.000Z');

      const company = await cli(
        [
          'company',
          'create',
          '--company-id',
          'cli-brand',
          '--domain',
          'https://www.CLI-Brand.example/',
          '--business-name',
          'CLI Brand',
          '--categories',
          'Apparel,Outdoor',
          '--product-count',
          '42',
        ],
        env,
      );
      expect(JSON.parse(company.stdout)).toMatchObject({
        companyId: 'cli-brand',
        domain: 'cli-brand.example',
        categories: ['Apparel', 'Outdoor'],
        productCount: 42,
      });
      const brandKey = JSON.parse((await cli(['brand-key', 'issue', 'cli-brand', '--name', 'Support issued'], env)).stdout);
      expect(brandKey).toMatchObject({ companyId: 'cli-brand', name: 'Support issued', key: expect.stringMatching(/^svc_test_/) });

      const deactivated = JSON.parse((await cli(['platform', 'deactivate', platform.id], env)).stdout);
      expect(deactivated.active).toBe(false);
      const stored = await database.db.selectFrom('platforms').select('active').where('id', '=', platform.id).executeTakeFirstOrThrow();
      expect(stored.active).toBe(false);
    },
    SPAWNING_TIMEOUT,
  );

  it(
    'seeds a fixture file idempotently',
    async () => {
      const file = path.join(tmp, 'seed.json');
      await fs.writeFile(
        file,
        JSON.stringify({
          brands: [
            {
              companyId: 'seeded-cli',
              domain: 'seeded-cli.example',
              businessName: 'Seeded',
              apiKeys: ['svc_test_cliSeededKey00000000001'],
            },
          ],
        }),
      );
      const first = JSON.parse((await cli(['seed', file], env)).stdout);
      expect(first.written).toMatchObject({ companies: 1, brandKeys: 1 });
      const second = JSON.parse((await cli(['seed', file], env)).stdout);
      expect(Object.values(second.written).every((n) => n === 0)).toBe(true);
    },
    SPAWNING_TIMEOUT,
  );

  it(
    'revokes a platform key and a brand key, and activates a deactivated platform',
    async () => {
      // Set up in this process; only the commands under test are spawned.
      const ctx = supportContext();
      const platform = { id: crypto.randomUUID() };
      await savePlatform(ctx, {
        id: platform.id,
        name: 'Revocations',
        active: false,
        offerTypes: ['post-purchase'],
        approvedOrigins: [],
        pluginPageUrl: null,
      });
      const platformKey = await issuePlatformKey(ctx, platform.id);
      const brandKey = await createBrand(ctx, { companyId: 'cli-revoke' });

      const revokedPlatformKey = await cli(['platform-key', 'revoke', platformKey.keyId], env);
      expect(revokedPlatformKey.code).toBe(0);
      expect(JSON.parse(revokedPlatformKey.stdout)).toEqual({ keyId: platformKey.keyId, revokedAt: expect.any(String) });
      const revokedBrandKey = JSON.parse((await cli(['brand-key', 'revoke', brandKey.keyId], env)).stdout);
      expect(revokedBrandKey.keyId).toBe(brandKey.keyId);
      const platformKeyRow = await database.db
        .selectFrom('platform_keys')
        .select('revoked_at')
        .where('id', '=', platformKey.keyId)
        .executeTakeFirstOrThrow();
      const brandKeyRow = await database.db
        .selectFrom('brand_api_keys')
        .select('revoked_at')
        .where('id', '=', brandKey.keyId)
        .executeTakeFirstOrThrow();
      expect(platformKeyRow.revoked_at?.toISOString()).toBe(JSON.parse(revokedPlatformKey.stdout).revokedAt);
      expect(brandKeyRow.revoked_at?.toISOString()).toBe(revokedBrandKey.revokedAt);

      const unknownKey = await cli(['brand-key', 'revoke', '00000000-0000-4000-8000-00000000beef'], env);
      expect(unknownKey.code).toBe(1);
      expect(unknownKey.stderr).toMatch(/Error \(not_found\): no brand key 00000000-0000-4000-8000-00000000beef/);

      const activated = await cli(['platform', 'activate', platform.id], env);
      expect(activated.code).toBe(0);
      expect(JSON.parse(activated.stdout)).toMatchObject({ id: platform.id, active: true });
      const stored = await database.db.selectFrom('platforms').select('active').where('id', '=', platform.id).executeTakeFirstOrThrow();
      expect(stored.active).toBe(true);
    },
    SPAWNING_TIMEOUT,
  );

  it(
    'registers public and confidential OAuth clients and lists them without secrets',
    async () => {
      const publicClient = await cli(
        [
          'oauth-client',
          'register',
          '--name',
          'CLI App',
          '--client-id',
          'cli-app',
          '--redirect-uri',
          'https://app.example/cb',
          '--redirect-uri',
          'http://127.0.0.1:8765/cb',
        ],
        env,
      );
      expect(publicClient.stderr).not.toMatch(/Error/);
      expect(JSON.parse(publicClient.stdout)).toEqual({
        clientId: 'cli-app',
        name: 'CLI App',
        redirectUris: ['https://app.example/cb', 'http://127.0.0.1:8765/cb'],
        confidential: false,
        companyId: null,
      });

      await createBrand(supportContext(), { companyId: 'cli-oauth-brand' });
      const confidential = JSON.parse(
        (
          await cli(
            [
              'oauth-client',
              'register',
              '--name',
              'Backend',
              '--redirect-uri',
              'https://backend.example/cb',
              '--confidential',
              '--company-id',
              'cli-oauth-brand',
            ],
            env,
          )
        ).stdout,
      );
      expect(confidential).toMatchObject({
        clientId: expect.stringMatching(/^oc_/),
        confidential: true,
        companyId: 'cli-oauth-brand',
        clientSecret: expect.stringMatching(/^svc_cs_/),
      });
      const stored = await database.db
        .selectFrom('oauth_clients')
        .select('secret_hash')
        .where('client_id', '=', confidential.clientId)
        .executeTakeFirstOrThrow();
      expect(stored.secret_hash).toBe(hashSecret(confidential.clientSecret));

      const listed = await cli(['oauth-client', 'list'], env);
      expect(listed.stdout).not.toContain(confidential.clientSecret);
      expect(
        JSON.parse(listed.stdout).data.map((client: { clientId: string; confidential: boolean }) => [client.clientId, client.confidential]),
      ).toEqual([
        ['cli-app', false],
        [confidential.clientId, true],
      ]);
    },
    SPAWNING_TIMEOUT,
  );

  it(
    'refuses a bad OAuth client registration with nothing written',
    async () => {
      const clients = () => database.db.selectFrom('oauth_clients').select('client_id').orderBy('client_id').execute();
      await registerOAuthClient(
        { db: database.db, serviceEnv: 'test' },
        { clientId: 'cli-taken', name: 'Taken', redirectUris: ['https://app.example/cb'], confidential: false },
      );
      const before = await clients();

      const plainHttp = await cli(['oauth-client', 'register', '--name', 'Insecure', '--redirect-uri', 'http://app.example/cb'], env);
      expect(plainHttp.code).toBe(1);
      expect(plainHttp.stderr).toMatch(/Error \(invalid_request\): redirect URI http:\/\/app\.example\/cb must use https/);

      const noName = await cli(['oauth-client', 'register', '--redirect-uri', 'https://app.example/cb'], env);
      expect(noName.code).toBe(2);
      expect(noName.stderr).toMatch(/--name is required/);

      const noRedirect = await cli(['oauth-client', 'register', '--name', 'Nowhere'], env);
      expect(noRedirect.code).toBe(1);
      expect(noRedirect.stderr).toMatch(/redirectUris must list 1 to 20 URIs/);

      const publicWithCompany = await cli(
        ['oauth-client', 'register', '--name', 'P', '--redirect-uri', 'https://p.example/cb', '--company-id', 'any-brand'],
        env,
      );
      expect(publicWithCompany.code).toBe(1);
      expect(publicWithCompany.stderr).toMatch(/companyId is only for confidential clients/);

      const taken = await cli(
        ['oauth-client', 'register', '--name', 'Again', '--client-id', 'cli-taken', '--redirect-uri', 'https://app.example/cb'],
        env,
      );
      expect(taken.code).toBe(1);
      expect(taken.stderr).toMatch(/Error \(client_exists\)/);

      expect(await clients()).toEqual(before);
    },
    SPAWNING_TIMEOUT,
  );

  it(
    'fails with a clear message, a non-zero exit code and nothing written',
    async () => {
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
    },
    SPAWNING_TIMEOUT,
  );

  it(
    "sets up a sandbox store's owner sign-in with a password shown once, and refuses it on prod with nothing written",
    async () => {
      const { companyId } = await createBrand(supportContext());
      const domain = `${companyId}.example`;
      const set = await cli(['sandbox-owner', 'set', domain, '--email', 'owner@brand.example'], env);
      expect(set.stderr).toBe('');
      expect(set.code).toBe(0);
      const { password, ...shown } = JSON.parse(set.stdout) as { domain: string; email: string; password: string };
      expect(shown).toEqual({ domain, email: 'owner@brand.example' });
      const owner = await database.db
        .selectFrom('sandbox_store_owners')
        .select(['email', 'password_hash'])
        .where('domain', '=', domain)
        .executeTakeFirstOrThrow();
      expect(owner.email).toBe('owner@brand.example');
      expect(owner.password_hash).toMatch(/^\$argon2id\$/);
      expect(owner.password_hash).not.toContain(password);

      const before = await count('sandbox_store_owners');
      const onProd = await cli(['sandbox-owner', 'set', 'other.example', '--email', 'owner@other.example'], {
        ...env,
        SERVICE_ENV: 'prod',
      });
      expect(onProd.code).toBe(2);
      expect(onProd.stderr).toMatch(/sandbox commerce platform runs on test and dev hosts only/);
      const badEmail = await cli(['sandbox-owner', 'set', 'other.example', '--email', 'not an email'], env);
      expect(badEmail.code).toBe(1);
      expect(badEmail.stderr).toMatch(/Error \(invalid_request\): email must be an email address/);
      expect(await count('sandbox_store_owners')).toBe(before);
    },
    SPAWNING_TIMEOUT,
  );

  it(
    "prints a brand's monthly statement as JSON or CSV, and refuses a malformed month or an unknown brand",
    async () => {
      const { companyId } = await createBrand(supportContext());
      const entry = {
        receiving_brand_id: companyId,
        showing_brand_id: 'shower',
        platform_id: crypto.randomUUID(),
        campaign_id: 'campaign',
        store_domain: `${companyId}.example`,
        order_id: '#1001',
        currency: 'USD',
        rate_basis_points: 500,
        customer: 'new' as const,
        customer_basis: 'store_history' as const,
        touch: 'click' as const,
        created_at: new Date('2026-11-05T10:00:00Z'),
      };
      await database.db
        .insertInto('commission_ledger')
        .values([
          { ...entry, kind: 'commission', amount_minor: 500, basis_minor: 10_000 },
          { ...entry, kind: 'reversal', event_id: 'refund-1', amount_minor: -100, basis_minor: 2_000 },
        ])
        .execute();

      const json = await cli(['statement', companyId, '2026-11'], env);
      expect(json.stderr).toBe('');
      expect(JSON.parse(json.stdout)).toMatchObject({
        companyId,
        month: '2026-11',
        currencies: [{ currency: 'USD', commissionMinor: 500, reversalsMinor: -100, netMinor: 400, entries: 2 }],
      });
      const csv = await cli(['statement', companyId, '2026-11', '--csv'], env);
      expect(csv.code).toBe(0);
      expect(csv.stdout.split('\r\n').filter((line) => line.startsWith('entry,'))).toHaveLength(2);
      expect(csv.stdout).toContain(`net${','.repeat(18)},400,4,USD`);

      const badMonth = await cli(['statement', companyId, '2026-13'], env);
      expect(badMonth.code).toBe(1);
      expect(badMonth.stderr).toMatch(/Error \(invalid_request\): month must be a calendar month, YYYY-MM/);
      const unknown = await cli(['statement', 'no-such-brand', '2026-11'], env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/Error \(not_found\): no company no-such-brand/);
      expect((await cli(['statement', companyId], env)).code).toBe(2);

      const adjusted = await cli(
        ['adjustment', 'post', companyId, '--amount-minor=-250', '--currency', 'eur', '--reason', 'Goodwill credit', '--posted-by', 'sam'],
        env,
      );
      expect(adjusted.stderr).toBe('');
      expect(JSON.parse(adjusted.stdout)).toMatchObject({ kind: 'adjustment', amountMinor: -250, currency: 'EUR', postedBy: 'sam' });
      const ledgerSize = async () => (await database.db.selectFrom('commission_ledger').select('id').execute()).length;
      const sizeBefore = await ledgerSize();
      const notIso = await cli(
        ['adjustment', 'post', companyId, '--amount-minor=5', '--currency', 'ZZZ', '--reason', 'x', '--posted-by', 'sam'],
        env,
      );
      expect(notIso.code).toBe(1);
      expect(notIso.stderr).toMatch(/Error \(invalid_currency\): currency ZZZ is not an ISO 4217 currency code/);
      expect(await ledgerSize()).toBe(sizeBefore);
      const closing = await cli(['statements', 'close'], env);
      expect(closing.stderr).toBe('');
      expect(JSON.parse(closing.stdout)).toEqual({ closed: expect.any(Array) });
      expect(JSON.parse((await cli(['statements', 'close'], env)).stdout)).toEqual({ closed: [] });
    },
    SPAWNING_TIMEOUT,
  );
});

describe('CLI on PGlite', () => {
  it('refuses a DATA_DIR held by a running service and points at the admin API', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-cli-lock-'));
    try {
      // This test process stands in for the running service: its pid is alive.
      await fs.writeFile(path.join(dataDir, LOCK_FILE_NAME), JSON.stringify({ pid: process.pid, holder: 'server' }));
      const result = await cliProcess(['platform', 'list'], { DATA_DIR: dataDir });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`the service \\(pid ${process.pid}\\) is running on .*admin API`, 's'));
      expect(await fs.readdir(dataDir)).toEqual([LOCK_FILE_NAME]);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm run migrate on a fresh database', () => {
  /** The documented command, through npm, as support runs it. */
  const migrate = (env: Record<string, string>) =>
    new Promise<CliResult>((resolve) => {
      execFile(
        'npm',
        ['run', '--silent', 'migrate'],
        { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, SERVICE_ENV: 'test', ...env }, timeout: CLI_HANG_MS },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });

  const expectMigratesOnceThenNothing = async (env: Record<string, string>, tables: () => Promise<string[]>) => {
    expect(await tables()).not.toContain('platform_brands');
    const first = await migrate(env);
    expect(first.code).toBe(0);
    const { applied } = JSON.parse(first.stdout) as { applied: string[] };
    expect(applied.length).toBeGreaterThan(0);
    expect(applied).toEqual([...applied].sort());
    expect(await tables()).toEqual(
      expect.arrayContaining(['platforms', 'platform_brands', 'companies', 'brand_api_keys', 'oauth_clients']),
    );
    // Run again in process: the documented command was proved above, this proves the migrator's record.
    const second = await cli(['migrate'], env);
    expect(JSON.parse(second.stdout)).toEqual({ applied: [] });
  };

  it(
    'PostgreSQL: applies every migration once, then nothing',
    async () => {
      const name = `svc_test_fresh_${crypto.randomBytes(6).toString('hex')}`;
      const url = new URL(TEST_POSTGRES_URL);
      url.pathname = `/${name}`;
      const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await admin.connect();
      await admin.query(`create database ${name}`);
      const fresh = new pg.Client({ connectionString: url.toString() });
      await fresh.connect();
      try {
        const tables = async () =>
          (
            await fresh.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public'")
          ).rows.map((row) => row.table_name);
        await expectMigratesOnceThenNothing({ DATABASE_URL: url.toString() }, tables);
      } finally {
        await fresh.end();
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    },
    SPAWNING_TIMEOUT,
  );

  it(
    'PGlite: applies every migration once in a new DATA_DIR, then nothing',
    async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-cli-migrate-'));
      try {
        const tables = async () => {
          if (!existsSync(path.join(dataDir, 'pglite'))) return [];
          const handle = await openDatabase({ dataDir, bounds: TEST_DATABASE_BOUNDS });
          try {
            const result = await sql<{
              table_name: string;
            }>`select table_name from information_schema.tables where table_schema = 'public'`.execute(handle.db);
            return result.rows.map((row) => row.table_name);
          } finally {
            await handle.close();
          }
        };
        await expectMigratesOnceThenNothing({ DATA_DIR: dataDir }, tables);
      } finally {
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    },
    SPAWNING_TIMEOUT,
  );
});
