import { type Static, Type } from 'typebox';

/**
 * Every environment variable the service reads, as a TypeBox schema: its type, limits, default and
 * description. `loadConfig` (src/config.ts) validates the environment against it, and
 * docs/configuration.md is written from it (`npm run docs:config`), so the two cannot drift.
 *
 * Beyond JSON Schema, a variable's schema may carry:
 * - `problem`: what a refusal says after the name, where the constraint alone would not tell a person
 *   (for a variable checked in src/config.ts, the rule that check holds it to);
 * - `secret: true`: may hold a credential, so a refusal never repeats the value;
 * - `defaultText`: how the documentation states a default computed from other variables.
 * Checks that span variables or the file system (HOST, BASE_URL, DATA_DIR, TRUST_PROXY, the
 * database limits' order, the Shopify trio) are in src/config.ts; the descriptions state them.
 */

export const DEFAULT_SERVICE_PLATFORM_ID = '5e1f0a4c-0000-4000-8000-000000000001';
/** What the features need: the catalog, orders (eligibility, best sellers, order webhooks) and the discount code. */
export const DEFAULT_SHOPIFY_SCOPES = ['read_products', 'read_orders', 'write_discounts'];
export const DEFAULT_SHOPIFY_API_VERSION = '2026-10';
/** The app's listing on the Shopify App Store, by its handle in shopify.app.toml. */
export const SHOPIFY_APP_STORE_LISTING = 'https://apps.shopify.com/brand-partner-collaborations';
/** The most proxies TRUST_PROXY may count in front of the service. */
export const MAX_TRUSTED_PROXY_HOPS = 10;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const integer = (minimum: number, maximum: number, fallback: number, description: string) =>
  Type.Integer({ minimum, maximum, default: fallback, description });
const AT_LEAST_16 = { minLength: 16, problem: 'must be at least 16 characters long', secret: true };

/** The properties in the order refusals are listed in. */
export const ENV_SCHEMA = Type.Object({
  PORT: integer(0, 65535, 3000, 'HTTP port (0 picks a free one)'),
  HOST: Type.String({
    default: '127.0.0.1',
    problem: 'must be an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a host name',
    description:
      'Interface to listen on (`0.0.0.0` in a container): an IP address (IPv6 without brackets, `::1`, `::`) or a host name. ' +
      'Anything else is refused at start; an address the machine does not have ends the start with `cannot listen on HOST=… PORT=…`',
  }),
  SERVICE_ENV: Type.Enum(['test', 'dev', 'prod'], {
    default: 'test',
    description:
      'Selects the key prefixes (`svc_test_`/`svc_platform_test_` for test and dev, `svc_live_`/`svc_platform_live_` for prod); ' +
      'prod refuses keys with a given plaintext (fixtures) and loads no demo data. Test and dev hosts have the sandbox ' +
      'commerce platform (`/sandbox`); prod has no commerce platform until a real one is configured: no `/sandbox` path ' +
      '(404), no store claims at sign-up, no store setup, and the plugin says no commerce platform is connected ' +
      '(docs/security.md, "What proves that a person acts for a brand")',
  }),
  BASE_URL: Type.Optional(
    Type.String({
      defaultText: '`http://HOST:PORT`',
      problem: 'must be an absolute http or https URL',
      description:
        'Public URL of the service, http or https; used in referral links, OAuth metadata, sandbox image addresses and ' +
        'the printed banner (give the worker the same). A trailing slash is dropped',
    }),
  ),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      problem: 'must start with postgres:// or postgresql://',
      secret: true,
      description: '`postgres://…` runs on a PostgreSQL server; unset runs on the embedded PGlite (one process: no scale-out)',
    }),
  ),
  DATA_DIR: Type.String({
    default: './data',
    problem: 'must be a writable directory, or one that can be created (when DATABASE_URL is not set)',
    description:
      'Where PGlite keeps its files (`DATA_DIR/pglite`). Without `DATABASE_URL` it must be a writable directory, or ' +
      'creatable under one; a file or an unwritable place is refused at start. Not checked with `DATABASE_URL`',
  }),
  DATABASE_CONNECT_TIMEOUT_MS: integer(
    100,
    60_000,
    1500,
    'Longest a statement waits for a database connection: a free one from the pool, or a new one opened (on PGlite: its ' +
      'one connection). Then 503 `service_unavailable`',
  ),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(
    100,
    600_000,
    2000,
    'PostgreSQL cancels a statement of a request running longer (`statement_timeout`); answered 503. The longest request ' +
      'statement measured is the 365-day CSV export, 0.24 s (docs/performance-dashboard.md)',
  ),
  DATABASE_QUERY_TIMEOUT_MS: integer(
    200,
    600_000,
    2500,
    "The service stops waiting for a statement's answer (node-postgres `query_timeout`) and drops the connection: the " +
      'database or the path to it went silent. Must be longer than `DATABASE_STATEMENT_TIMEOUT_MS`, so that a merely slow ' +
      'statement is ended by PostgreSQL, with a certain outcome. A request waits at most `DATABASE_CONNECT_TIMEOUT_MS` + ' +
      '`DATABASE_QUERY_TIMEOUT_MS` (4 s by default) on a database that stopped answering, within the 5 s of docs/operations.md',
  ),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: integer(
    1000,
    3_600_000,
    10_000,
    'PostgreSQL ends a session left inside a transaction this long (`idle_in_transaction_session_timeout`), so a client ' +
      'that vanished mid-transaction does not hold its locks',
  ),
  DATABASE_KEEPALIVE_MS: integer(
    1000,
    600_000,
    5000,
    "Idle time before TCP keepalive probes a database connection, on both ends (the server's `tcp_keepalives_idle`, " +
      '`_interval`, 3 probes); also how often the LISTEN connection of cache invalidation is asked a question, to notice ' +
      'it went silent',
  ),
  DATABASE_JOB_STATEMENT_TIMEOUT_MS: integer(
    1000,
    3_600_000,
    60_000,
    'Statement limit of migrations, background jobs (scoring, sealing), seed files, the CLI and the worker process, ' +
      'which may rightly run longer than a request may wait; their client-side limit is this plus the same margin ' +
      '(`DATABASE_QUERY_TIMEOUT_MS` − `DATABASE_STATEMENT_TIMEOUT_MS`). On PostgreSQL the API process runs them on a pool ' +
      'of 2 connections of their own',
  ),
  REDIS_URL: Type.Optional(
    Type.String({
      pattern: '^rediss?://',
      problem: 'must start with redis:// or rediss://',
      secret: true,
      description:
        '`redis://…`: shared rate-limit counters and cache invalidation across instances; unset uses in-process counters ' +
        'and PostgreSQL LISTEN/NOTIFY (or nothing on PGlite, which is single-process). A Redis database number in the URL ' +
        '(`/3`) separates deployments sharing one server',
    }),
  ),
  REDIS_COMMAND_TIMEOUT_MS: integer(
    10,
    10_000,
    250,
    'How long a Redis command may go unanswered before it counts as failed. A rate-limit check that fails is counted in ' +
      'process instead, and Redis is left alone for 5 s before it is asked again, so a Redis that stops answering without ' +
      'closing its connections costs one timeout every few seconds, not one per request',
  ),
  TRUST_PROXY: Type.Optional(
    Type.String({
      problem:
        `must be a number of proxies (1 to ${MAX_TRUSTED_PROXY_HOPS}) or a comma-separated list of proxy addresses and CIDR ` +
        'ranges such as 10.0.0.0/8, ' +
        'or loopback, linklocal, uniquelocal',
      description:
        'Which peers may name the client in `X-Forwarded-For`, and so the address every per-address limit counts and ' +
        'every log line shows. Unset: nobody, the TCP peer is the client. A number (1 to 10): the nearest N peers are ' +
        'proxies. A comma-separated list of addresses and CIDR ranges (`10.0.0.0/8, fd00::/8`; also `loopback`, ' +
        '`linklocal`, `uniquelocal`): the load balancers. `true` is refused (anyone could choose their address). How to ' +
        'set it and what goes wrong otherwise: docs/operations.md, "Behind a load balancer"',
    }),
  ),
  SERVICE_PLATFORM_ID: Type.String({
    default: DEFAULT_SERVICE_PLATFORM_ID,
    pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    problem: 'must be a UUID',
    description:
      "The service's own platform id, sent as `X-Platform-Id` by a brand showing offers on its own site; its catalog row " +
      'is ensured active with `post-purchase` at start',
  }),
  ADMIN_TOKEN: Type.Optional(
    Type.String({
      ...AT_LEAST_16,
      description: 'Enables the admin API under `/admin` (`Authorization: Bearer <ADMIN_TOKEN>`); unset disables it (404). Never logged',
    }),
  ),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      ...AT_LEAST_16,
      description:
        'On a prod host, `/metrics` answers only `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise), and is off (404) ' +
        'while unset; test and dev hosts serve it openly',
    }),
  ),
  SEED_FILE: Type.Optional(Type.String({ description: 'A fixture file (docs/fixtures.md) loaded at start instead of the demo data' })),
  LOG_LEVEL: Type.Enum([...LOG_LEVELS], {
    default: 'info',
    description:
      'pino level of every log line; `warn` on a busy instance, where a line per request costs the offers endpoint CPU ' +
      '(the benchmarks run at `warn`)',
  }),
  RATE_LIMIT_PER_MINUTE: integer(
    1,
    1_000_000,
    600,
    'Default rate limit per caller per minute for routes without their own: per brand, platform key or admin token when ' +
      'one is presented and valid, else per client address (docs/support.md for the admin token)',
  ),
  OFFERS_RATE_LIMIT_PER_MINUTE: integer(
    1,
    1_000_000,
    3000,
    'Offers requests per brand per minute (SPEC 8); over it: 429 `rate_limited` with `Retry-After` (docs/offers.md)',
  ),
  RUN_BACKGROUND_JOBS: Type.Boolean({
    default: true,
    description:
      '`false` makes an API-only instance (`npm run start:api`): no recommendation scoring, no store setup; the worker ' +
      'process (`npm run start:worker`) runs them. `false` needs `DATABASE_URL`: on PGlite no worker process can share the ' +
      'database (docs/operations.md)',
  }),
  SETUP_DELAYED_AFTER_SECONDS: integer(1, 86_400, 120, "Store setup running longer than this shows the plugin's `delayed` stage"),
  STORE_MIN_ORDERS: integer(0, 1_000_000, 10, 'Orders a store needs to be eligible for cross-promotion'),
  SETUP_POLL_MS: integer(
    10,
    60_000,
    1000,
    'How often a setup worker looks for due setup jobs (and the Shopify webhook worker for due deliveries; a new delivery ' +
      'wakes it at once)',
  ),
  SETUP_RETRY_MS: integer(
    10,
    600_000,
    5000,
    'Delay before a failed setup step (or Shopify webhook delivery) is retried; it doubles per attempt, up to a minute',
  ),
  SETUP_LEASE_MS: integer(
    300,
    3_600_000,
    60_000,
    "How long a worker's claim on a setup job lasts unless renewed (it is renewed while a step runs); a crashed worker's " +
      'job resumes after it. Also the lease of a Shopify webhook delivery being worked off',
  ),
  PLUGIN_RECHECK_MS: integer(
    500,
    3_600_000,
    2500,
    "How often the plugin looks at the store again while the merchant works in the commerce platform's tab (it also " +
      'looks when they come back)',
  ),
  SANDBOX_IMPORT_MS: integer(
    0,
    600_000,
    3000,
    'Simulated import time of the sandbox commerce platform, so the setting-up screen is visible in the demo (0 in tests)',
  ),
  DEMO_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      defaultText: '`PORT + 1` (`0` when `PORT` is `0`)',
      description:
        'Port of the demo tech-platform host page (a second origin). At every start on a test or dev host the demo platform ' +
        "(Checkout Co) approves the origins the page is served from (the base URL's host, `localhost` and `127.0.0.1` at " +
        'this port) and its plugin page moves to this port, so the plugin demo works with any `PORT`/`DEMO_PORT`. A taken ' +
        'port stops the start before the database is opened, naming `DEMO_PORT`. `0` leaves it off; a prod host never starts it',
    }),
  ),
  ORDERS_WEBHOOK_SECRET: Type.Optional(
    Type.String({
      ...AT_LEAST_16,
      defaultText: 'unset; `npm start` on test and dev makes one per run',
      description:
        'Shared secret for HMAC-SHA256 signatures of the orders webhook (`POST /webhooks/commerce/orders`); unset, the ' +
        'webhook answers 503. `npm start` on a test or dev host generates one for the run when it is unset, so the ' +
        "sandbox's orders reach the webhook; set it to keep one across restarts or to share it between instances on one database",
    }),
  ),
  ORDERS_WEBHOOK_TOLERANCE_SECONDS: integer(1, 86_400, 300, 'How far a signed webhook timestamp may be from now, against replays'),
  COMMISSION_BASIS_POINTS: integer(
    0,
    10_000,
    500,
    "The service's share of the first order of each new customer a partner refers, in basis points (500 = 5%)",
  ),
  ATTRIBUTION_WINDOW_DAYS: integer(
    1,
    365,
    14,
    "An order is attributed to a showing of the partner's offer only if the shopper clicked it (or, where the store " +
      "turned view-through on, was shown it) on the order's UTC day or up to this many days before; an order outside the " +
      'window is recorded and not attributed (docs/attribution.md)',
  ),
  OAUTH_REFRESH_GRACE_SECONDS: integer(
    0,
    300,
    30,
    'How long a rotated OAuth refresh token still returns the pair that replaced it (concurrent refreshes); after it, its ' +
      'use revokes the authorization. `0`: no grace, any second use revokes (docs/oauth.md)',
  ),
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://\\S+$',
      problem: 'must start with smtp:// or smtps://',
      secret: true,
      description:
        'Outbound mail (password resets): `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://…:465`; never ' +
        'logged. Unset: test and dev hosts keep mail in the development mailbox (`/account/dev-mailbox`, served only to a ' +
        'browser on the machine running the service); a prod host answers reset requests with 503 (docs/dashboard.md)',
    }),
  ),
  MAIL_FROM: Type.Optional(
    Type.String({
      pattern: '^(?=[^\\r\\n]{1,200}$)[^\\r\\n]*@',
      problem: 'must be one line holding an email address, such as "Brand Desk <desk@example.com>"',
      defaultText: '`Partner Collaboration <no-reply@HOST of BASE_URL>`',
      description: 'Sender of every mail',
    }),
  ),
  SANDBOX_STOREFRONTS: Type.Boolean({
    default: false,
    defaultText: '`false`; `true` under `npm start` on test and dev',
    description:
      "`true` (test and dev only; refused in prod) sends referral links to the partner's sandbox storefront " +
      '(`/sandbox/shop/{domain}/discount/{code}`, the code applied) with the referral token, so a demo shopper can order ' +
      'there and the sandbox posts the order to the signed webhook. `npm start` on a test or dev host sets it when it is ' +
      'unset; `false` turns it off',
  }),
  SHOPIFY_API_KEY: Type.Optional(
    Type.String({
      description:
        "The Shopify app's client id (Partner dashboard). With `SHOPIFY_API_SECRET` and `TOKEN_ENCRYPTION_KEY` it turns " +
        'Shopify on (docs/shopify.md); all three unset: Shopify is off and every `/commerce/shopify/...` path answers 404. ' +
        'Some without the others is refused at start',
    }),
  ),
  SHOPIFY_API_SECRET: Type.Optional(
    Type.String({
      ...AT_LEAST_16,
      problem: "must be at least 16 characters long (the app's client secret)",
      description:
        "The app's client secret: it checks the HMAC of OAuth callbacks and webhooks and signs the OAuth state cookie; never logged",
    }),
  ),
  SHOPIFY_SCOPES: Type.Array(Type.String({ pattern: '^(read|write|unauthenticated_read|unauthenticated_write)_[a-z_]+$' }), {
    default: DEFAULT_SHOPIFY_SCOPES,
    problem: 'must be comma-separated access scopes such as read_products',
    description:
      'Access scopes the install asks for: the catalog, orders (eligibility, best sellers, order webhooks) and the discount ' +
      'code; billing needs none',
  }),
  SHOPIFY_BULK_CONCURRENCY: integer(
    1,
    5,
    5,
    "Bulk queries the service runs at once per Shopify store (Shopify's limit since 2026-01 is five): setup reads the catalog " +
      'beside the units-sold count split by date into the rest; `1` runs them one after another, unsplit',
  ),
  SHOPIFY_BULK_POLL_MS: integer(
    10,
    60_000,
    1000,
    "How often a bulk query still running at Shopify is polled until it completes (a store's setup reads its catalog and " +
      'orders through them)',
  ),
  SHOPIFY_API_VERSION: Type.String({
    default: DEFAULT_SHOPIFY_API_VERSION,
    pattern: '^\\d{4}-(01|04|07|10)$',
    problem: `must be a Shopify API version such as ${DEFAULT_SHOPIFY_API_VERSION}`,
    description: 'The Admin API version every call names',
  }),
  SHOPIFY_APP_LISTING_URL: Type.String({
    default: SHOPIFY_APP_STORE_LISTING,
    pattern: '^https://[^\\s/?#]+\\.[^\\s/?#]+(/\\S*)?$',
    problem: "must be an https URL (the app's listing on the Shopify App Store, or a development store's install link)",
    description:
      "Where the plugin's install step sends a Shopify store's merchant, in a new tab (Shopify's pages refuse to be framed): " +
      "the app's listing on the Shopify App Store, whose handle is shopify.app.toml's. A test or dev host can give a " +
      "development store's install link from the Partner dashboard instead. Once Shopify reports the install, the plugin " +
      'moves on to the plan by itself (docs/plugin.md)',
  }),
  TOKEN_ENCRYPTION_KEY: Type.Optional(
    Type.String({
      pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$',
      problem: 'must be 32 random bytes, as 64 hex digits or base64 (openssl rand -base64 32)',
      secret: true,
      description:
        "The AES-256-GCM key of the stores' offline access tokens at rest. Never logged; changing it disconnects every " +
        'store (they install again)',
    }),
  ),
});

/** The environment once validated: each variable with a default is present, each without one may be missing. */
export type Env = Static<typeof ENV_SCHEMA>;
export type EnvName = keyof Env & string;

/** A variable's schema as the refusals and the documentation read it: JSON Schema with the extra keys above. */
export interface VariableSchema {
  type?: 'integer' | 'string' | 'boolean' | 'array';
  description: string;
  default?: unknown;
  defaultText?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  enum?: string[];
  problem?: string;
  secret?: boolean;
}

export const ENV_VARIABLES = ENV_SCHEMA.properties as unknown as Record<EnvName, VariableSchema>;

/** The rule a value must meet, as its refusal states it after the variable's name; undefined when any text will do. */
export function ruleOf(schema: VariableSchema): string | undefined {
  if (schema.problem !== undefined) return schema.problem;
  if (schema.type === 'integer') return `must be an integer from ${schema.minimum} to ${schema.maximum}`;
  if (schema.type === 'boolean') return 'must be true or false';
  if (schema.enum !== undefined) return `must be one of ${schema.enum.join(', ')}`;
  return undefined;
}
