import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export type ServiceEnv = 'test' | 'dev' | 'prod';

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  /** How long anything may wait on the database (docs/operations.md, failure behaviour). */
  database: DatabaseLimits;
  redisUrl: string | undefined;
  /** How long a Redis command may take before it counts as failed (rate limits then count in process). */
  redisCommandTimeoutMs: number;
  /**
   * Which peers may name the client in X-Forwarded-For: nobody (false), the nearest N proxies (a
   * hop count), or the proxies at these addresses and CIDR ranges. Every per-address limit and
   * every logged client address rests on it (docs/operations.md, "Behind a load balancer").
   */
  trustProxy: TrustProxy;
  serviceEnv: ServiceEnv;
  servicePlatformId: string;
  adminToken: string | undefined;
  /** The Bearer token /metrics asks for on a prod host (issue 23); without it /metrics is off there. Open on test and dev. */
  metricsToken: string | undefined;
  seedFile: string | undefined;
  logLevel: string;
  defaultRateLimitPerMinute: number;
  /** The embedded plugin and merchant onboarding (DESIGN 4). */
  plugin: {
    /** Setup running longer than this shows the delayed stage. */
    setupDelayedAfterSeconds: number;
    /** Orders a store needs before it is eligible. */
    storeMinOrders: number;
    /** How often the setup worker looks for due jobs. */
    setupPollMs: number;
    /** First retry delay of a failed setup step; doubles per attempt, capped at a minute. */
    setupRetryMs: number;
    /** How long a worker's claim on a setup job lasts unless renewed; a dead worker's job resumes after it. */
    setupLeaseMs: number;
    /** How often the plugin looks at the store again while the merchant works in the commerce platform's tab. */
    recheckMs: number;
    /** How long the sandbox commerce platform takes to hand over a store's data, as real platforms do. */
    sandboxImportMs: number;
    /** Port of the demo host page (a pretend tech platform on a second origin); 0 disables it. */
    demoPort: number;
  };
  /** Offers requests per minute per brand (SPEC 8: 3,000). */
  offersRateLimitPerMinute: number;
  /**
   * Whether this process also runs the background jobs (recommendation scoring, store setup).
   * API instances of a scaled-out deployment turn it off and leave the jobs to `src/worker.ts`.
   */
  runBackgroundJobs: boolean;
  /** Orders delivered by the commerce platform (DESIGN 4: commission on a new customer's first order). */
  orders: {
    /** Shared secret of the signed order webhook; the webhook is off without it. */
    webhookSecret: string | undefined;
    /** How far a webhook's signed timestamp may be from now, against replays of old deliveries. */
    webhookToleranceSeconds: number;
    /** The service's share of a new customer's first order, in basis points (500 = 5%). */
    commissionBasisPoints: number;
    /** How many UTC days after a click (or, where the store allows it, a view) an order is still attributed to it. */
    attributionWindowDays: number;
  };
  /** The OAuth 2 server (docs/oauth.md). */
  oauth: {
    /**
     * How long a just-rotated refresh token still answers with its successor pair, so concurrent
     * refreshes succeed; past it, the token's reuse revokes the grant. 0: any reuse revokes it.
     */
    refreshGraceSeconds: number;
  };
  /** Outbound mail (password resets): SMTP when configured, else the development mailbox outside prod. */
  mail: {
    /** smtp:// or smtps:// URL with any credentials; never logged. */
    smtpUrl: string | undefined;
    /** The From address of every message. */
    from: string;
  };
  /**
   * Referral links lead to the partner's store on the sandbox commerce platform (/sandbox/shop/…)
   * instead of its own domain, where a sandbox store has no site. Test and dev hosts only.
   */
  sandboxStorefronts: boolean;
  /** Shopify, the first real commerce platform (docs/shopify.md); undefined (off, its routes 404) unless configured. */
  shopify: ShopifyConfig | undefined;
}

export interface ShopifyConfig {
  /** The app's client id and secret from the Partner dashboard; the secret signs OAuth callbacks and webhooks. */
  apiKey: string;
  apiSecret: string;
  /** The access scopes the app asks for: the least the features need. */
  scopes: string[];
  /** The Admin API version every call names. */
  apiVersion: string;
  /** AES-256-GCM key (32 bytes) that encrypts the stores' offline access tokens at rest; never logged. */
  tokenEncryptionKey: Buffer;
}

/** What the features need: the catalog, orders (eligibility, best sellers, order webhooks) and the discount code. */
export const DEFAULT_SHOPIFY_SCOPES = ['read_products', 'read_orders', 'write_discounts'];
export const DEFAULT_SHOPIFY_API_VERSION = '2026-10';
const SHOPIFY_SCOPE = /^(read|write|unauthenticated_read|unauthenticated_write)_[a-z_]+$/;

/** Every wait on the database is bounded by these; see DatabaseBounds in src/db/database.ts for where each applies. */
export interface DatabaseLimits {
  /** Waiting for a pooled connection, opening a new one included. */
  connectTimeoutMs: number;
  /** PostgreSQL's own limit on one statement of a request (statement_timeout). */
  statementTimeoutMs: number;
  /** The client's limit on one statement: past it the connection is dropped. Longer than statementTimeoutMs. */
  queryTimeoutMs: number;
  /** PostgreSQL ends a session left inside a transaction this long (idle_in_transaction_session_timeout). */
  idleInTransactionTimeoutMs: number;
  /** Idle time before a connection is probed: TCP keepalive, and a query on the LISTEN connection. */
  keepAliveMs: number;
  /** Statement limit of background jobs and migrations, which may rightly run longer than a request. */
  jobStatementTimeoutMs: number;
}

/** The service's own platform: what a brand sends as X-Platform-Id when showing offers on its own site. */
export const DEFAULT_SERVICE_PLATFORM_ID = '5e1f0a4c-0000-4000-8000-000000000001';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** TRUST_PROXY as Fastify's trustProxy takes it, without `true` (anyone could name their address). */
export type TrustProxy = false | number | string[];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates the environment; every bad value is reported at once, each with its own message. */
/**
 * What `npm start` adds on a test or dev host so the demo's shopping path works with no settings:
 * referral links lead to the sandbox storefronts, and the sandbox's orders reach the order webhook
 * signed with a secret made for this run (set ORDERS_WEBHOOK_SECRET to keep one across restarts
 * or share it between instances). A variable that is set, even to false, is left as it is.
 */
export function withStartDefaults(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; generatedWebhookSecret: boolean } {
  const serviceEnv = env.SERVICE_ENV?.trim() || 'test';
  if (serviceEnv === 'prod') return { env, generatedWebhookSecret: false };
  const unset = (name: string) => env[name] === undefined || env[name]!.trim() === '';
  const generatedWebhookSecret = unset('ORDERS_WEBHOOK_SECRET');
  return {
    env: {
      ...env,
      ...(unset('SANDBOX_STOREFRONTS') ? { SANDBOX_STOREFRONTS: 'true' } : {}),
      ...(generatedWebhookSecret ? { ORDERS_WEBHOOK_SECRET: crypto.randomBytes(24).toString('base64url') } : {}),
    },
    generatedWebhookSecret,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const blankToUndefined = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const integerIn = (name: string, fallback: number, min: number, max: number): number => {
    const raw = blankToUndefined(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };

  const port = integerIn('PORT', 3000, 0, 65535);
  const host = blankToUndefined('HOST') ?? '127.0.0.1';
  const hostProblem = listenHostProblem(host);
  if (hostProblem) problems.push(`HOST ${hostProblem} (got "${host}")`);

  const serviceEnvRaw = blankToUndefined('SERVICE_ENV') ?? 'test';
  let serviceEnv: ServiceEnv = 'test';
  if (serviceEnvRaw === 'test' || serviceEnvRaw === 'dev' || serviceEnvRaw === 'prod') {
    serviceEnv = serviceEnvRaw;
  } else {
    problems.push(`SERVICE_ENV must be one of test, dev, prod (got "${serviceEnvRaw}")`);
  }

  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : net.isIPv6(host) ? `[${host}]` : host;
  const baseUrlSet = blankToUndefined('BASE_URL');
  let baseUrl = baseUrlSet ?? `http://${displayHost}:${port}`;
  try {
    const parsed = new URL(baseUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      problems.push(`BASE_URL must be an http or https URL (got "${baseUrl}")`);
    }
    baseUrl = baseUrl.replace(/\/+$/, '');
  } catch {
    // A default built from a bad HOST is already reported as HOST.
    if (baseUrlSet !== undefined || !hostProblem) problems.push(`BASE_URL must be an absolute URL (got "${baseUrl}")`);
  }

  const databaseUrl = blankToUndefined('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }

  const dataDir = path.resolve(blankToUndefined('DATA_DIR') ?? './data');
  // Only PGlite keeps its files there; with DATABASE_URL the directory is never used.
  const dataDirIssue = databaseUrl === undefined ? dataDirProblem(dataDir) : null;
  if (dataDirIssue)
    problems.push(`DATA_DIR ${dataDirIssue} (got "${dataDir}"; it holds the embedded database when DATABASE_URL is not set)`);

  const database: DatabaseLimits = {
    connectTimeoutMs: integerIn('DATABASE_CONNECT_TIMEOUT_MS', 1500, 100, 60_000),
    statementTimeoutMs: integerIn('DATABASE_STATEMENT_TIMEOUT_MS', 2000, 100, 600_000),
    queryTimeoutMs: integerIn('DATABASE_QUERY_TIMEOUT_MS', 2500, 200, 600_000),
    idleInTransactionTimeoutMs: integerIn('DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 10_000, 1000, 3_600_000),
    keepAliveMs: integerIn('DATABASE_KEEPALIVE_MS', 5000, 1000, 600_000),
    jobStatementTimeoutMs: integerIn('DATABASE_JOB_STATEMENT_TIMEOUT_MS', 60_000, 1000, 3_600_000),
  };
  // The server must give up on a statement first: its error is a certain outcome and keeps the
  // connection, while a client that gives up cannot know whether the statement took effect.
  if (database.queryTimeoutMs <= database.statementTimeoutMs) {
    problems.push(
      'DATABASE_QUERY_TIMEOUT_MS must be longer than DATABASE_STATEMENT_TIMEOUT_MS ' +
        `(got ${database.queryTimeoutMs} and ${database.statementTimeoutMs})`,
    );
  }

  const redisUrl = blankToUndefined('REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    problems.push('REDIS_URL must start with redis:// or rediss://');
  }
  const redisCommandTimeoutMs = integerIn('REDIS_COMMAND_TIMEOUT_MS', 250, 10, 10_000);

  const trustProxy = readTrustProxy(blankToUndefined('TRUST_PROXY'), (problem) => problems.push(`TRUST_PROXY ${problem}`));

  const servicePlatformId = blankToUndefined('SERVICE_PLATFORM_ID') ?? DEFAULT_SERVICE_PLATFORM_ID;
  if (!isUuid(servicePlatformId)) {
    problems.push(`SERVICE_PLATFORM_ID must be a UUID (got "${servicePlatformId}")`);
  }

  const adminToken = blankToUndefined('ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) {
    problems.push('ADMIN_TOKEN must be at least 16 characters long');
  }

  const metricsToken = blankToUndefined('METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16) {
    problems.push('METRICS_TOKEN must be at least 16 characters long');
  }

  const logLevel = blankToUndefined('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }

  const defaultRateLimitPerMinute = integerIn('RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000);
  const plugin = {
    setupDelayedAfterSeconds: integerIn('SETUP_DELAYED_AFTER_SECONDS', 120, 1, 86_400),
    storeMinOrders: integerIn('STORE_MIN_ORDERS', 10, 0, 1_000_000),
    setupPollMs: integerIn('SETUP_POLL_MS', 1000, 10, 60_000),
    setupRetryMs: integerIn('SETUP_RETRY_MS', 5000, 10, 600_000),
    setupLeaseMs: integerIn('SETUP_LEASE_MS', 60_000, 300, 3_600_000),
    recheckMs: integerIn('PLUGIN_RECHECK_MS', 2500, 500, 3_600_000),
    sandboxImportMs: integerIn('SANDBOX_IMPORT_MS', 3000, 0, 600_000),
    demoPort: integerIn('DEMO_PORT', port === 0 ? 0 : port + 1, 0, 65535),
  };
  const offersRateLimitPerMinute = integerIn('OFFERS_RATE_LIMIT_PER_MINUTE', 3000, 1, 1_000_000);

  const runBackgroundJobsRaw = blankToUndefined('RUN_BACKGROUND_JOBS') ?? 'true';
  if (runBackgroundJobsRaw !== 'true' && runBackgroundJobsRaw !== 'false') {
    problems.push(`RUN_BACKGROUND_JOBS must be true or false (got "${runBackgroundJobsRaw}")`);
  }
  const runBackgroundJobs = runBackgroundJobsRaw !== 'false';
  // PGlite's files belong to one process, so no worker process could take the jobs over.
  if (!runBackgroundJobs && databaseUrl === undefined) {
    problems.push('RUN_BACKGROUND_JOBS=false needs DATABASE_URL: on PGlite no worker process can share the database');
  }

  const webhookSecret = blankToUndefined('ORDERS_WEBHOOK_SECRET');
  if (webhookSecret !== undefined && webhookSecret.length < 16) problems.push('ORDERS_WEBHOOK_SECRET must be at least 16 characters long');
  const orders = {
    webhookSecret,
    webhookToleranceSeconds: integerIn('ORDERS_WEBHOOK_TOLERANCE_SECONDS', 300, 1, 86_400),
    commissionBasisPoints: integerIn('COMMISSION_BASIS_POINTS', 500, 0, 10_000),
    attributionWindowDays: integerIn('ATTRIBUTION_WINDOW_DAYS', 14, 1, 365),
  };

  const oauth = { refreshGraceSeconds: integerIn('OAUTH_REFRESH_GRACE_SECONDS', 30, 0, 300) };

  const smtpUrl = blankToUndefined('SMTP_URL');
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) problems.push('SMTP_URL must start with smtp:// or smtps://');
  let mailFrom = blankToUndefined('MAIL_FROM');
  if (mailFrom === undefined) {
    try {
      mailFrom = `Partner Collaboration <no-reply@${new URL(baseUrl).hostname}>`;
    } catch {
      mailFrom = 'Partner Collaboration <no-reply@localhost>';
    }
  } else if (!/^[^\r\n]{1,200}$/.test(mailFrom) || !/@/.test(mailFrom)) {
    problems.push('MAIL_FROM must be one line holding an email address, such as "Brand Desk <desk@example.com>"');
  }

  const sandboxStorefrontsRaw = blankToUndefined('SANDBOX_STOREFRONTS') ?? 'false';
  if (sandboxStorefrontsRaw !== 'true' && sandboxStorefrontsRaw !== 'false') {
    problems.push(`SANDBOX_STOREFRONTS must be true or false (got "${sandboxStorefrontsRaw}")`);
  } else if (sandboxStorefrontsRaw === 'true' && serviceEnv === 'prod') {
    problems.push('SANDBOX_STOREFRONTS=true is for test and dev hosts: in prod, referral links lead to the stores themselves');
  }

  const shopify = readShopify(blankToUndefined, (problem) => problems.push(problem));

  if (problems.length > 0) throw new ConfigError(problems);

  return {
    port,
    host,
    baseUrl,
    databaseUrl,
    dataDir,
    database,
    redisUrl,
    redisCommandTimeoutMs,
    trustProxy,
    serviceEnv,
    servicePlatformId: servicePlatformId.toLowerCase(),
    adminToken,
    metricsToken,
    seedFile: blankToUndefined('SEED_FILE'),
    logLevel,
    defaultRateLimitPerMinute,
    plugin,
    offersRateLimitPerMinute,
    runBackgroundJobs,
    orders,
    oauth,
    mail: { smtpUrl, from: mailFrom },
    sandboxStorefronts: sandboxStorefrontsRaw === 'true',
    shopify,
  };
}

/**
 * The Shopify settings: all of SHOPIFY_API_KEY, SHOPIFY_API_SECRET and TOKEN_ENCRYPTION_KEY, or
 * none (Shopify off). Some without the others is a mistake, reported rather than taken as off.
 */
function readShopify(read: (name: string) => string | undefined, report: (problem: string) => void): ShopifyConfig | undefined {
  const apiKey = read('SHOPIFY_API_KEY');
  const apiSecret = read('SHOPIFY_API_SECRET');
  const encryptionKey = read('TOKEN_ENCRYPTION_KEY');
  const required = { SHOPIFY_API_KEY: apiKey, SHOPIFY_API_SECRET: apiSecret, TOKEN_ENCRYPTION_KEY: encryptionKey };
  const missing = Object.entries(required)
    .filter(([, value]) => value === undefined)
    .map(([name]) => name);
  if (missing.length === 3) return undefined;
  if (missing.length > 0) {
    report(`${missing.join(' and ')} must be set too: Shopify needs SHOPIFY_API_KEY, SHOPIFY_API_SECRET and TOKEN_ENCRYPTION_KEY together`);
    return undefined;
  }
  const key = /^[0-9a-f]{64}$/i.test(encryptionKey!) ? Buffer.from(encryptionKey!, 'hex') : Buffer.from(encryptionKey!, 'base64');
  if (key.length !== 32 || !/^([0-9a-f]{64}|[A-Za-z0-9+/]{43}=)$/i.test(encryptionKey!)) {
    report('TOKEN_ENCRYPTION_KEY must be 32 random bytes, as 64 hex digits or base64 (openssl rand -base64 32)');
    return undefined;
  }
  if (apiSecret!.length < 16) report("SHOPIFY_API_SECRET must be at least 16 characters long (the app's client secret)");
  const scopesRaw = read('SHOPIFY_SCOPES');
  const scopes = scopesRaw ? scopesRaw.split(',').map((scope) => scope.trim()) : DEFAULT_SHOPIFY_SCOPES;
  const badScope = scopes.find((scope) => !SHOPIFY_SCOPE.test(scope));
  if (badScope !== undefined) report(`SHOPIFY_SCOPES must be comma-separated access scopes such as read_products (got "${badScope}")`);
  const apiVersion = read('SHOPIFY_API_VERSION') ?? DEFAULT_SHOPIFY_API_VERSION;
  if (!/^\d{4}-(01|04|07|10)$/.test(apiVersion)) {
    report(`SHOPIFY_API_VERSION must be a Shopify API version such as ${DEFAULT_SHOPIFY_API_VERSION} (got "${apiVersion}")`);
  }
  return { apiKey: apiKey!, apiSecret: apiSecret!, scopes, apiVersion, tokenEncryptionKey: key };
}

const MAX_TRUSTED_PROXY_HOPS = 10;
/** Ranges @fastify/proxy-addr knows by name. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** The TRUST_PROXY setting; a value it cannot be is reported (after the variable's name) and trusts nobody. */
function readTrustProxy(raw: string | undefined, report: (problem: string) => void): TrustProxy {
  if (raw === undefined) return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops >= 1 && hops <= MAX_TRUSTED_PROXY_HOPS) return hops;
    report(`as a number of proxies must be from 1 to ${MAX_TRUSTED_PROXY_HOPS} (got "${raw}"); leave it unset to trust no proxy`);
    return false;
  }
  if (/^(true|yes|on|all|\*)$/i.test(raw)) {
    report(
      `cannot be "${raw}": trusting every peer lets any client choose the address its limits are counted by; ` +
        "give the load balancers' addresses or CIDR ranges (or the number of proxies in front of the service)",
    );
    return false;
  }
  if (/^(false|no|off|none)$/i.test(raw)) {
    report(`cannot be "${raw}": leave it unset to trust no proxy`);
    return false;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !isProxyAddress(entry));
  if (bad === undefined) return entries;
  report(
    `must be a number of proxies (1 to ${MAX_TRUSTED_PROXY_HOPS}) or a comma-separated list of proxy addresses and CIDR ranges ` +
      `such as 10.0.0.0/8, or loopback, linklocal, uniquelocal (got "${bad}")`,
  );
  return false;
}

/** An address, a CIDR range (10.0.0.0/8, fd00::/8) or a range @fastify/proxy-addr knows by name. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** Why the server could not listen on `host`, as far as its spelling tells; null when it looks right. */
function listenHostProblem(host: string): string | null {
  if (net.isIP(host) !== 0 || HOST_NAME.test(host)) return null;
  if (/^\[.*\]$/.test(host) && net.isIPv6(host.slice(1, -1))) return 'must be written without brackets (for example ::1 or ::)';
  return 'must be an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a host name';
}

/**
 * Why the embedded database could not keep its files in `dir`, or null: it must be a directory
 * this process can write, or be creatable under the nearest existing parent.
 */
function dataDirProblem(dir: string): string | null {
  for (let current = dir; ; current = path.dirname(current)) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && path.dirname(current) !== current) continue;
      return `cannot be used: ${(error as Error).message}`;
    }
    const where = current === dir ? 'is' : `cannot be created: ${current} is`;
    if (!stat.isDirectory()) return `${where} a file, not a directory`;
    try {
      fs.accessSync(current, fs.constants.W_OK);
    } catch {
      return `${where} not writable by this process`;
    }
    return null;
  }
}
