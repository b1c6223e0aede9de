import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Value } from 'typebox/value';
import { ENV_SCHEMA, ENV_VARIABLES, type Env, type EnvName, MAX_TRUSTED_PROXY_HOPS, ruleOf, type VariableSchema } from './config-schema.js';

export {
  DEFAULT_SERVICE_PLATFORM_ID,
  DEFAULT_SHOPIFY_API_VERSION,
  DEFAULT_SHOPIFY_SCOPES,
  SHOPIFY_APP_STORE_LISTING,
} from './config-schema.js';

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
  /** Bulk queries run at once per store (at most Shopify's five). */
  bulkConcurrency: number;
  /** How often a running bulk query is polled. */
  bulkPollMs: number;
  /** AES-256-GCM key (32 bytes) that encrypts the stores' offline access tokens at rest; never logged. */
  tokenEncryptionKey: Buffer;
  /**
   * Where the plugin's install step sends a Shopify store's merchant: the app's App Store listing,
   * or a development store's install link.
   */
  appListingUrl: string;
}

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

/** A refusal, and the variable it is listed under (refusals follow the order of ENV_SCHEMA). */
interface Problem {
  variable: EnvName;
  message: string;
}

const VARIABLE_ORDER = Object.keys(ENV_VARIABLES);

/** The environment validated against ENV_SCHEMA; a refused variable takes its default, as if unset. */
interface ReadEnvironment {
  values: Env;
  problems: Problem[];
  /** Variables set to something other than blanks, refused ones included. */
  given: Set<EnvName>;
  refused: Set<EnvName>;
}

/** Reads and validates the environment; every bad value is reported at once, each with its own message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { values, problems, given, refused } = readEnvironment(env);
  const report = (variable: EnvName, message: string) => problems.push({ variable, message });
  const baseUrl = readBaseUrl(values, report);
  const trustProxy = readTrustProxy(values.TRUST_PROXY, (problem) => report('TRUST_PROXY', `TRUST_PROXY ${problem}`));
  const shopify = readShopify(values, given, refused, report);
  checkAcrossVariables(values, refused, report);
  if (problems.length > 0) {
    const rank = (problem: Problem) => VARIABLE_ORDER.indexOf(problem.variable);
    throw new ConfigError(problems.sort((a, b) => rank(a) - rank(b)).map((problem) => problem.message));
  }

  return {
    port: values.PORT,
    host: values.HOST,
    baseUrl,
    databaseUrl: values.DATABASE_URL,
    dataDir: path.resolve(values.DATA_DIR),
    database: {
      connectTimeoutMs: values.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: values.DATABASE_STATEMENT_TIMEOUT_MS,
      queryTimeoutMs: values.DATABASE_QUERY_TIMEOUT_MS,
      idleInTransactionTimeoutMs: values.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      keepAliveMs: values.DATABASE_KEEPALIVE_MS,
      jobStatementTimeoutMs: values.DATABASE_JOB_STATEMENT_TIMEOUT_MS,
    },
    redisUrl: values.REDIS_URL,
    redisCommandTimeoutMs: values.REDIS_COMMAND_TIMEOUT_MS,
    trustProxy,
    serviceEnv: values.SERVICE_ENV,
    servicePlatformId: values.SERVICE_PLATFORM_ID.toLowerCase(),
    adminToken: values.ADMIN_TOKEN,
    metricsToken: values.METRICS_TOKEN,
    seedFile: values.SEED_FILE,
    logLevel: values.LOG_LEVEL,
    defaultRateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE,
    plugin: {
      setupDelayedAfterSeconds: values.SETUP_DELAYED_AFTER_SECONDS,
      storeMinOrders: values.STORE_MIN_ORDERS,
      setupPollMs: values.SETUP_POLL_MS,
      setupRetryMs: values.SETUP_RETRY_MS,
      setupLeaseMs: values.SETUP_LEASE_MS,
      recheckMs: values.PLUGIN_RECHECK_MS,
      sandboxImportMs: values.SANDBOX_IMPORT_MS,
      demoPort: values.DEMO_PORT ?? (values.PORT === 0 ? 0 : values.PORT + 1),
    },
    offersRateLimitPerMinute: values.OFFERS_RATE_LIMIT_PER_MINUTE,
    runBackgroundJobs: values.RUN_BACKGROUND_JOBS,
    orders: {
      webhookSecret: values.ORDERS_WEBHOOK_SECRET,
      webhookToleranceSeconds: values.ORDERS_WEBHOOK_TOLERANCE_SECONDS,
      commissionBasisPoints: values.COMMISSION_BASIS_POINTS,
      attributionWindowDays: values.ATTRIBUTION_WINDOW_DAYS,
    },
    oauth: { refreshGraceSeconds: values.OAUTH_REFRESH_GRACE_SECONDS },
    mail: { smtpUrl: values.SMTP_URL, from: values.MAIL_FROM ?? defaultMailFrom(baseUrl) },
    sandboxStorefronts: values.SANDBOX_STOREFRONTS,
    shopify,
  };
}

function readEnvironment(env: NodeJS.ProcessEnv): ReadEnvironment {
  const given = new Set<EnvName>();
  const input: Record<string, unknown> = {};
  for (const name of VARIABLE_ORDER as EnvName[]) {
    const text = env[name]?.trim();
    if (!text) continue;
    given.add(name);
    input[name] = fromText(ENV_VARIABLES[name], text);
  }
  const withDefaults = Value.Default(ENV_SCHEMA, input) as Record<string, unknown>;
  const problems: Problem[] = [];
  const refused = new Set<EnvName>();
  for (const error of Value.Errors(ENV_SCHEMA, withDefaults)) {
    // "/PORT", or "/SHOPIFY_SCOPES/1" for an item of a list.
    const [, name, item] = error.instancePath.split('/') as [string, EnvName, string | undefined];
    if (refused.has(name)) continue;
    refused.add(name);
    const got = item === undefined ? env[name]!.trim() : (withDefaults[name] as string[])[Number(item)]!;
    problems.push({ variable: name, message: refusal(name, ENV_VARIABLES[name], error.message, got) });
    delete input[name];
  }
  // A refused variable's default fills the gap it left, so the checks after this one see a whole configuration.
  return { values: Value.Default(ENV_SCHEMA, input) as Env, problems, given, refused };
}

/** The value the schema checks: environment variables are text, so integers, booleans and lists are read from it. */
function fromText(schema: VariableSchema, text: string): unknown {
  if (schema.type === 'integer') return /^\d+$/.test(text) ? Number(text) : text;
  if (schema.type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  if (schema.type === 'array') return text.split(',').map((item) => item.trim());
  return text;
}

function refusal(name: EnvName, schema: VariableSchema, fallback: string, got: string): string {
  const rule = ruleOf(schema) ?? fallback;
  return schema.secret ? `${name} ${rule}` : `${name} ${rule} (got "${got}")`;
}

/** BASE_URL as given or made from HOST and PORT, without trailing slashes; HOST's spelling is checked here too. */
function readBaseUrl(values: Env, report: (variable: EnvName, message: string) => void): string {
  const host = values.HOST;
  const hostProblem = listenHostProblem(host);
  if (hostProblem) report('HOST', `HOST ${hostProblem} (got "${host}")`);
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : net.isIPv6(host) ? `[${host}]` : host;
  const baseUrl = values.BASE_URL ?? `http://${displayHost}:${values.PORT}`;
  let protocol: string;
  try {
    protocol = new URL(baseUrl).protocol;
  } catch {
    // A default built from a bad HOST is already reported as HOST.
    if (values.BASE_URL !== undefined || !hostProblem) report('BASE_URL', `BASE_URL must be an absolute URL (got "${baseUrl}")`);
    return baseUrl;
  }
  if (protocol !== 'http:' && protocol !== 'https:') report('BASE_URL', `BASE_URL must be an http or https URL (got "${baseUrl}")`);
  return baseUrl.replace(/\/+$/, '');
}

function defaultMailFrom(baseUrl: string): string {
  return `Partner Collaboration <no-reply@${new URL(baseUrl).hostname}>`;
}

/** The rules between variables; each runs only when the variables it reads passed their own checks. */
function checkAcrossVariables(values: Env, refused: Set<EnvName>, report: (variable: EnvName, message: string) => void): void {
  const valid = (...names: EnvName[]) => names.every((name) => !refused.has(name));
  // Only PGlite keeps its files there; with DATABASE_URL the directory is never used.
  const dataDirIssue = values.DATABASE_URL === undefined && valid('DATABASE_URL') ? dataDirProblem(path.resolve(values.DATA_DIR)) : null;
  if (dataDirIssue) {
    report(
      'DATA_DIR',
      `DATA_DIR ${dataDirIssue} (got "${path.resolve(values.DATA_DIR)}"; it holds the embedded database when DATABASE_URL is not set)`,
    );
  }
  // The server must give up on a statement first: its error is a certain outcome and keeps the
  // connection, while a client that gives up cannot know whether the statement took effect.
  if (
    valid('DATABASE_QUERY_TIMEOUT_MS', 'DATABASE_STATEMENT_TIMEOUT_MS') &&
    values.DATABASE_QUERY_TIMEOUT_MS <= values.DATABASE_STATEMENT_TIMEOUT_MS
  ) {
    report(
      'DATABASE_QUERY_TIMEOUT_MS',
      'DATABASE_QUERY_TIMEOUT_MS must be longer than DATABASE_STATEMENT_TIMEOUT_MS ' +
        `(got ${values.DATABASE_QUERY_TIMEOUT_MS} and ${values.DATABASE_STATEMENT_TIMEOUT_MS})`,
    );
  }
  // PGlite's files belong to one process, so no worker process could take the jobs over.
  if (!values.RUN_BACKGROUND_JOBS && values.DATABASE_URL === undefined && valid('DATABASE_URL')) {
    report('RUN_BACKGROUND_JOBS', 'RUN_BACKGROUND_JOBS=false needs DATABASE_URL: on PGlite no worker process can share the database');
  }
  if (values.SANDBOX_STOREFRONTS && values.SERVICE_ENV === 'prod') {
    report(
      'SANDBOX_STOREFRONTS',
      'SANDBOX_STOREFRONTS=true is for test and dev hosts: in prod, referral links lead to the stores themselves',
    );
  }
}

const SHOPIFY_TRIO = ['SHOPIFY_API_KEY', 'SHOPIFY_API_SECRET', 'TOKEN_ENCRYPTION_KEY'] as const;

/**
 * The Shopify settings: all of SHOPIFY_API_KEY, SHOPIFY_API_SECRET and TOKEN_ENCRYPTION_KEY, or
 * none (Shopify off). Some without the others is a mistake, reported rather than taken as off.
 */
function readShopify(
  values: Env,
  given: Set<EnvName>,
  refused: Set<EnvName>,
  report: (variable: EnvName, message: string) => void,
): ShopifyConfig | undefined {
  const missing = SHOPIFY_TRIO.filter((name) => !given.has(name));
  if (missing.length === SHOPIFY_TRIO.length) return undefined;
  if (missing.length > 0) {
    report(
      missing[0]!,
      `${missing.join(' and ')} must be set too: Shopify needs SHOPIFY_API_KEY, SHOPIFY_API_SECRET and TOKEN_ENCRYPTION_KEY together`,
    );
    return undefined;
  }
  if (SHOPIFY_TRIO.some((name) => refused.has(name))) return undefined;
  const key = values.TOKEN_ENCRYPTION_KEY!;
  return {
    apiKey: values.SHOPIFY_API_KEY!,
    apiSecret: values.SHOPIFY_API_SECRET!,
    scopes: values.SHOPIFY_SCOPES,
    apiVersion: values.SHOPIFY_API_VERSION,
    bulkConcurrency: values.SHOPIFY_BULK_CONCURRENCY,
    bulkPollMs: values.SHOPIFY_BULK_POLL_MS,
    appListingUrl: values.SHOPIFY_APP_LISTING_URL,
    // The schema's pattern admits 64 hex digits or 44 characters of base64: 32 bytes either way.
    tokenEncryptionKey: Buffer.from(key, key.length === 64 ? 'hex' : 'base64'),
  };
}

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
  report(`${ENV_VARIABLES.TRUST_PROXY.problem} (got "${bad}")`);
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
  return ENV_VARIABLES.HOST.problem!;
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
