import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_SERVICE_PLATFORM_ID, loadConfig, withStartDefaults } from './config.js';
import { ENV_SCHEMA, ENV_VARIABLES } from './config-schema.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('has working defaults for a fresh machine', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      baseUrl: 'http://127.0.0.1:3000',
      databaseUrl: undefined,
      serviceEnv: 'test',
      servicePlatformId: DEFAULT_SERVICE_PLATFORM_ID,
      adminToken: undefined,
      seedFile: undefined,
    });
    expect(config.dataDir).toMatch(/\/data$/);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      BASE_URL: 'https://api.example/',
      DATABASE_URL: 'postgres://u@db/x',
      DATA_DIR: '/tmp/svc',
      REDIS_URL: 'redis://127.0.0.1:6379',
      SERVICE_ENV: 'prod',
      SERVICE_PLATFORM_ID: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE',
      ADMIN_TOKEN: 'a-long-admin-token-value',
      SEED_FILE: 'fixtures/demo.json',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      baseUrl: 'https://api.example',
      databaseUrl: 'postgres://u@db/x',
      dataDir: '/tmp/svc',
      redisUrl: 'redis://127.0.0.1:6379',
      serviceEnv: 'prod',
      servicePlatformId: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
      adminToken: 'a-long-admin-token-value',
      seedFile: 'fixtures/demo.json',
    });
  });

  it('reports every bad value at once, each with its own message', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      BASE_URL: 'not a url',
      DATABASE_URL: 'mysql://x',
      REDIS_URL: 'http://x',
      SERVICE_ENV: 'staging',
      SERVICE_PLATFORM_ID: '42',
      ADMIN_TOKEN: 'short',
      LOG_LEVEL: 'loud',
    });
    expect(problems).toEqual([
      'PORT must be an integer from 0 to 65535 (got "eighty")',
      'SERVICE_ENV must be one of test, dev, prod (got "staging")',
      'BASE_URL must be an absolute URL (got "not a url")',
      'DATABASE_URL must start with postgres:// or postgresql://',
      'REDIS_URL must start with redis:// or rediss://',
      'SERVICE_PLATFORM_ID must be a UUID (got "42")',
      'ADMIN_TOKEN must be at least 16 characters long',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ]);
  });

  it('refuses a port out of range and a non-http base URL', () => {
    expect(problemsOf({ PORT: '70000' })).toEqual(['PORT must be an integer from 0 to 65535 (got "70000")']);
    expect(problemsOf({ BASE_URL: 'ftp://x.example' })).toEqual(['BASE_URL must be an http or https URL (got "ftp://x.example")']);
  });

  it('reads the mail settings and keeps sandbox storefronts off prod', () => {
    expect(loadConfig({ BASE_URL: 'https://svc.example' }).mail).toEqual({
      smtpUrl: undefined,
      from: 'Partner Collaboration <no-reply@svc.example>',
    });
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example:465', MAIL_FROM: 'Desk <desk@svc.example>' }).mail).toEqual({
      smtpUrl: 'smtps://u:p@mail.example:465',
      from: 'Desk <desk@svc.example>',
    });
    expect(problemsOf({ SMTP_URL: 'http://mail.example' })).toEqual(['SMTP_URL must start with smtp:// or smtps://']);
    expect(problemsOf({ MAIL_FROM: 'no address' })).toEqual([
      expect.stringMatching(/^MAIL_FROM must be one line holding an email address/),
    ]);
    expect(loadConfig({ SANDBOX_STOREFRONTS: 'true', SERVICE_ENV: 'dev' }).sandboxStorefronts).toBe(true);
    expect(problemsOf({ SANDBOX_STOREFRONTS: 'true', SERVICE_ENV: 'prod' })).toEqual([
      expect.stringMatching(/^SANDBOX_STOREFRONTS=true is for test and dev hosts/),
    ]);
    expect(problemsOf({ SANDBOX_STOREFRONTS: 'yes' })).toEqual(['SANDBOX_STOREFRONTS must be true or false (got "yes")']);
  });

  it('npm start turns the shopping demo on for test and dev hosts (storefronts, a per-run webhook secret), never over a setting', () => {
    for (const SERVICE_ENV of [undefined, 'test', 'dev']) {
      const started = withStartDefaults({ SERVICE_ENV });
      expect(started.generatedWebhookSecret).toBe(true);
      const config = loadConfig(started.env);
      expect(config.sandboxStorefronts).toBe(true);
      expect(config.orders.webhookSecret).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(withStartDefaults({ SERVICE_ENV }).env.ORDERS_WEBHOOK_SECRET).not.toBe(config.orders.webhookSecret);
    }
    const chosen = withStartDefaults({ SANDBOX_STOREFRONTS: 'false', ORDERS_WEBHOOK_SECRET: 'a-secret-of-my-own' });
    expect(chosen.generatedWebhookSecret).toBe(false);
    expect(loadConfig(chosen.env)).toMatchObject({ sandboxStorefronts: false, orders: { webhookSecret: 'a-secret-of-my-own' } });
    const prod = withStartDefaults({ SERVICE_ENV: 'prod' });
    expect(prod).toEqual({ env: { SERVICE_ENV: 'prod' }, generatedWebhookSecret: false });
  });

  it('reads the refresh-token grace window in seconds: 30 by default, 0 disables it, at most 300', () => {
    expect(loadConfig({}).oauth).toEqual({ refreshGraceSeconds: 30 });
    expect(loadConfig({ OAUTH_REFRESH_GRACE_SECONDS: '0' }).oauth.refreshGraceSeconds).toBe(0);
    expect(loadConfig({ OAUTH_REFRESH_GRACE_SECONDS: '300' }).oauth.refreshGraceSeconds).toBe(300);
    for (const value of ['301', '-1', '1.5', '30s', 'off']) {
      expect(problemsOf({ OAUTH_REFRESH_GRACE_SECONDS: value })).toEqual([
        `OAUTH_REFRESH_GRACE_SECONDS must be an integer from 0 to 300 (got "${value}")`,
      ]);
    }
  });

  it('trusts no proxy by default, and reads TRUST_PROXY as a number of proxies or their addresses and ranges', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: ' ' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5' }).trustProxy).toEqual(['10.0.0.5']);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7 ,fd00::/8,::1,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      '::1',
      'loopback',
    ]);
  });

  it('refuses a TRUST_PROXY that would trust everyone or that names no proxy, saying what to give instead', () => {
    expect(problemsOf({ TRUST_PROXY: 'true' })).toEqual([
      'TRUST_PROXY cannot be "true": trusting every peer lets any client choose the address its limits are counted by; ' +
        "give the load balancers' addresses or CIDR ranges (or the number of proxies in front of the service)",
    ]);
    expect(problemsOf({ TRUST_PROXY: '*' })).toEqual([expect.stringMatching(/^TRUST_PROXY cannot be "\*": trusting every peer/)]);
    expect(problemsOf({ TRUST_PROXY: 'false' })).toEqual(['TRUST_PROXY cannot be "false": leave it unset to trust no proxy']);
    expect(problemsOf({ TRUST_PROXY: '0' })).toEqual([
      'TRUST_PROXY as a number of proxies must be from 1 to 10 (got "0"); leave it unset to trust no proxy',
    ]);
    expect(problemsOf({ TRUST_PROXY: '11' })).toEqual([
      expect.stringMatching(/^TRUST_PROXY as a number of proxies must be from 1 to 10 \(got "11"\)/),
    ]);
    for (const [value, bad] of [
      ['lb.internal', 'lb.internal'],
      ['10.0.0.0/33', '10.0.0.0/33'],
      ['fd00::/129', 'fd00::/129'],
      ['10.0.0.1,,10.0.0.2', ''],
      ['10.0.0.0/8/1', '10.0.0.0/8/1'],
      ['10.0.0.1 10.0.0.2', '10.0.0.1 10.0.0.2'],
    ]) {
      expect(problemsOf({ TRUST_PROXY: value! }), value).toEqual([
        'TRUST_PROXY must be a number of proxies (1 to 10) or a comma-separated list of proxy addresses and CIDR ranges such as ' +
          `10.0.0.0/8, or loopback, linklocal, uniquelocal (got "${bad}")`,
      ]);
    }
  });

  it('bounds each Redis command: 250 ms by default, 10 ms to 10 s when set', () => {
    expect(loadConfig({}).redisCommandTimeoutMs).toBe(250);
    expect(loadConfig({ REDIS_COMMAND_TIMEOUT_MS: '400' }).redisCommandTimeoutMs).toBe(400);
    expect(() => loadConfig({ REDIS_COMMAND_TIMEOUT_MS: '5' })).toThrow(/REDIS_COMMAND_TIMEOUT_MS/);
    expect(() => loadConfig({ REDIS_COMMAND_TIMEOUT_MS: 'soon' })).toThrow(/REDIS_COMMAND_TIMEOUT_MS/);
  });

  it("reads the database bounds, and refuses a client-side limit that would not outlast the server's", () => {
    expect(loadConfig({}).database).toEqual({
      connectTimeoutMs: 1500,
      statementTimeoutMs: 2000,
      queryTimeoutMs: 2500,
      idleInTransactionTimeoutMs: 10_000,
      keepAliveMs: 5000,
      jobStatementTimeoutMs: 60_000,
    });
    expect(
      loadConfig({
        DATABASE_CONNECT_TIMEOUT_MS: '800',
        DATABASE_STATEMENT_TIMEOUT_MS: '1000',
        DATABASE_QUERY_TIMEOUT_MS: '1200',
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '3000',
        DATABASE_KEEPALIVE_MS: '2000',
        DATABASE_JOB_STATEMENT_TIMEOUT_MS: '300000',
      }).database,
    ).toEqual({
      connectTimeoutMs: 800,
      statementTimeoutMs: 1000,
      queryTimeoutMs: 1200,
      idleInTransactionTimeoutMs: 3000,
      keepAliveMs: 2000,
      jobStatementTimeoutMs: 300_000,
    });
    expect(problemsOf({ DATABASE_STATEMENT_TIMEOUT_MS: '3000' })).toEqual([
      'DATABASE_QUERY_TIMEOUT_MS must be longer than DATABASE_STATEMENT_TIMEOUT_MS (got 2500 and 3000)',
    ]);
    expect(problemsOf({ DATABASE_CONNECT_TIMEOUT_MS: '0' })).toEqual([
      'DATABASE_CONNECT_TIMEOUT_MS must be an integer from 100 to 60000 (got "0")',
    ]);
  });

  it('accepts IP addresses and host names for HOST, and bases the default BASE_URL on them', () => {
    for (const host of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'api-1.internal.example']) {
      expect(problemsOf({ HOST: host })).toEqual([]);
    }
    expect(loadConfig({ HOST: '::1', PORT: '8080' }).baseUrl).toBe('http://[::1]:8080');
  });

  it('refuses a HOST the server could not listen on, naming the variable', () => {
    expect(problemsOf({ HOST: '[::1]' })).toEqual(['HOST must be written without brackets (for example ::1 or ::) (got "[::1]")']);
    for (const host of ['http://localhost', 'localhost:3000', 'my host', '-leading.example', 'a..b', '999.1.1.1.1.']) {
      expect(problemsOf({ HOST: host })).toEqual([
        `HOST must be an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a host name (got "${host}")`,
      ]);
    }
  });

  describe('DATA_DIR', () => {
    const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), 'config-data-dir-'));

    it('accepts an existing directory, or one that can be created under an existing one', () => {
      const dir = scratch();
      expect(problemsOf({ DATA_DIR: dir })).toEqual([]);
      expect(problemsOf({ DATA_DIR: path.join(dir, 'not', 'yet', 'there') })).toEqual([]);
      expect(fs.existsSync(path.join(dir, 'not'))).toBe(false);
    });

    it('refuses a file, or a path under a file, with a message naming the variable', () => {
      const file = path.join(scratch(), 'a-file');
      fs.writeFileSync(file, '');
      expect(problemsOf({ DATA_DIR: file })).toEqual([
        `DATA_DIR is a file, not a directory (got "${file}"; it holds the embedded database when DATABASE_URL is not set)`,
      ]);
      expect(problemsOf({ DATA_DIR: path.join(file, 'data') })).toEqual([
        `DATA_DIR cannot be created: ${file} is a file, not a directory (got "${path.join(file, 'data')}"; ` +
          'it holds the embedded database when DATABASE_URL is not set)',
      ]);
    });

    it('is not checked when DATABASE_URL is set, since PostgreSQL does not use it', () => {
      const file = path.join(scratch(), 'a-file');
      fs.writeFileSync(file, '');
      expect(problemsOf({ DATA_DIR: file, DATABASE_URL: 'postgres://u@db/x' })).toEqual([]);
    });
  });
});

describe('the environment schema', () => {
  const variables = Object.entries(ENV_VARIABLES);

  it('describes every variable, and gives a default to each one that is not optional', () => {
    for (const [name, schema] of variables) expect(schema.description, name).toEqual(expect.stringMatching(/^\S.{10,}/));
    for (const name of ENV_SCHEMA.required) expect(ENV_VARIABLES[name].default, name).toBeDefined();
  });

  it('gives every variable with a default a valid one, so an unset variable never refuses a start', () => {
    expect(problemsOf({})).toEqual([]);
    for (const [name, schema] of variables.filter(([, schema]) => schema.default !== undefined)) {
      const text = Array.isArray(schema.default) ? schema.default.join(',') : String(schema.default);
      expect(problemsOf({ [name]: text }), name).toEqual([]);
    }
  });

  it('reads integers as plain decimal digits only, after trimming', () => {
    expect(loadConfig({ PORT: ' 8080 ' }).port).toBe(8080);
    for (const value of ['+80', '1e3', '0x50', '80.0', '-0', '８０']) {
      expect(problemsOf({ PORT: value }), value).toEqual([`PORT must be an integer from 0 to 65535 (got "${value}")`]);
    }
    expect(problemsOf({ PORT: '99999999999999999999' })).toEqual(['PORT must be an integer from 0 to 65535 (got "99999999999999999999")']);
  });

  it('never repeats a secret or a URL that may hold credentials in a refusal', () => {
    const problems = problemsOf({
      ADMIN_TOKEN: 'hunter2',
      METRICS_TOKEN: 'hunter3',
      ORDERS_WEBHOOK_SECRET: 'hunter4',
      DATABASE_URL: 'mysql://root:hunter5@db/x',
      REDIS_URL: 'http://:hunter6@cache',
      SMTP_URL: 'http://u:hunter7@mail',
      SHOPIFY_API_KEY: 'app-key',
      SHOPIFY_API_SECRET: 'hunter8',
      TOKEN_ENCRYPTION_KEY: 'hunter9',
    });
    expect(problems).toHaveLength(8);
    expect(problems.join('\n')).not.toMatch(/hunter/);
  });

  it('takes a refused variable as unset, so a rule between variables does not report it twice', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://x', RUN_BACKGROUND_JOBS: 'false' })).toEqual([
      'DATABASE_URL must start with postgres:// or postgresql://',
    ]);
    expect(problemsOf({ DATABASE_QUERY_TIMEOUT_MS: 'soon', DATABASE_STATEMENT_TIMEOUT_MS: '5000' })).toEqual([
      'DATABASE_QUERY_TIMEOUT_MS must be an integer from 200 to 600000 (got "soon")',
    ]);
    expect(problemsOf({ RUN_BACKGROUND_JOBS: 'no', SANDBOX_STOREFRONTS: 'on', SERVICE_ENV: 'prod' })).toEqual([
      'RUN_BACKGROUND_JOBS must be true or false (got "no")',
      'SANDBOX_STOREFRONTS must be true or false (got "on")',
    ]);
  });

  it('checks the Shopify scopes and version even while Shopify is off, naming the bad scope', () => {
    expect(problemsOf({ SHOPIFY_SCOPES: 'read_products,,write_discounts' })).toEqual([
      'SHOPIFY_SCOPES must be comma-separated access scopes such as read_products (got "")',
    ]);
    expect(problemsOf({ SHOPIFY_API_VERSION: '2026-11' })).toEqual([
      'SHOPIFY_API_VERSION must be a Shopify API version such as 2026-10 (got "2026-11")',
    ]);
    expect(loadConfig({ SHOPIFY_SCOPES: ' read_products , read_orders ' }).shopify).toBeUndefined();
  });

  it('reads the token encryption key as 64 hex digits or base64 of 32 bytes', () => {
    const shopify = { SHOPIFY_API_KEY: 'app-key', SHOPIFY_API_SECRET: 'app-secret-0123456789' };
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, index) => index * 7));
    for (const TOKEN_ENCRYPTION_KEY of [bytes.toString('hex'), bytes.toString('hex').toUpperCase(), bytes.toString('base64')]) {
      expect(loadConfig({ ...shopify, TOKEN_ENCRYPTION_KEY }).shopify?.tokenEncryptionKey, TOKEN_ENCRYPTION_KEY).toEqual(bytes);
    }
    for (const TOKEN_ENCRYPTION_KEY of [
      bytes.toString('hex').slice(2),
      bytes.subarray(1).toString('base64'),
      bytes.toString('base64url'),
    ]) {
      expect(problemsOf({ ...shopify, TOKEN_ENCRYPTION_KEY }), TOKEN_ENCRYPTION_KEY).toEqual([
        'TOKEN_ENCRYPTION_KEY must be 32 random bytes, as 64 hex digits or base64 (openssl rand -base64 32)',
      ]);
    }
  });

  it('puts the demo host page beside the service: PORT + 1, or off when PORT picks a free port', () => {
    expect(loadConfig({ PORT: '4000' }).plugin.demoPort).toBe(4001);
    expect(loadConfig({ PORT: '0' }).plugin.demoPort).toBe(0);
    expect(loadConfig({ PORT: '4000', DEMO_PORT: '0' }).plugin.demoPort).toBe(0);
  });
});
