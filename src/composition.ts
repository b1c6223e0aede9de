import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import { longestWaitMs, type DatabaseBounds, type DatabaseHandle, type Db } from './db/database.js';
import { InvalidationBus } from './cache/invalidation.js';
import { connectRedis } from './cache/redis.js';
import { Authenticator } from './auth/authenticator.js';
import { keyEnvironmentFor } from './shared/keys.js';
import { UsageRecorder } from './auth/usage-recorder.js';
import { Attribution } from './attribution/service.js';
import { commercePlatformsFor, type CommerceRegistry } from './commerce/registry.js';
import type { CommerceAdapter } from './commerce/adapter.js';
import { createOAuthModel, OAuthBearerVerifier, type OAuthModel } from './oauth/service.js';
import { PeriodicJob } from './jobs/periodic.js';
import { scoringLoop } from './recommendations/scorer.js';
import { performanceSealer } from './dashboard/sealer.js';
import { statementCloser } from './orders/statement-closer.js';
import { challengeConfirmed, Onboarding, SetupWorker } from './embed/service.js';
import type { ShopifyCommerce } from './commerce/shopify/adapter.js';
import { stoppedBodyEraser, WebhookReconciler, WebhookWorker } from './commerce/shopify/webhooks.js';
import { OffersCache } from './offers/cache.js';
import { loadOfferSet } from './offers/offer-set.js';
import {
  claimantOf,
  claimAsksStore,
  claimsAskingStore,
  declineClaimAtStore,
  mailerFor,
  type ClaimAskingStore,
  type Claimant,
  type Mailer,
} from './accounts/service.js';
import { OwnerGate } from './commerce/sandbox/service.js';
import { cookiePolicyFor } from './shared/cookies.js';

/** Configuration and the connections a process holds: databases, the invalidation bus, Redis. */
export interface Infrastructure {
  config: Config;
  /** The database requests use, with the request bounds. */
  db: Db;
  dbKind: 'postgres' | 'pglite';
  /** Where background jobs and startup loads run their longer statements; `db` on PGlite and in the worker. */
  jobDb: Db;
  bus: InvalidationBus;
  redis: Redis | undefined;
}

/**
 * Everything a process shares, built once here for the API process (src/app.ts) and the worker
 * (src/worker.ts) alike, and handed to the route plugins: no route plugin builds a shared service,
 * so their order does not matter.
 */
export interface Runtime extends Infrastructure {
  /** Brand keys, OAuth access tokens (through the OAuth model), platform keys, X-Platform-Id. */
  auth: Authenticator;
  usage: UsageRecorder;
  oauth: OAuthModel;
  /** Referral links and view and click counters (group commit), for the offers endpoint and the redirect. */
  attribution: Attribution;
  commerce: CommerceRegistry;
  /**
   * Whether a link's challenge proves the store's merchant (src/embed/merchant-tokens.ts): for a
   * commerce platform's routes the browser follows from the plugin, which carry no token.
   */
  challengeConfirmed(domain: string, challenge: string): Promise<boolean>;
  /**
   * The signed-in account of `request` when `claimId` is its pending claim of `domain`
   * (src/accounts/sessions.ts): for a commerce platform's routes, which bind the owner's
   * confirmation of a claim to the claimant's own session.
   */
  claimantOf(request: FastifyRequest, claimId: string, domain: string): Promise<Claimant | undefined>;
  /**
   * Dashboard sign-ups' claims of a store as its staff answer them where the commerce platform
   * proves who they are (the Shopify app home): the waiting ones, whether one still waits, and a decline.
   */
  storeClaims: {
    asking(domain: string): Promise<ClaimAskingStore[]>;
    waiting(claimId: string, domain: string): Promise<boolean>;
    decline(claimId: string, domain: string): Promise<boolean>;
  };
  jobs: BackgroundJobs;
  /** The brands' offers per platform in process memory, dropped by the bus: the offers endpoint's hot path. */
  offers: OffersCache;
  /** Where password reset mails go (src/accounts/mail.ts); none in prod without SMTP_URL. */
  mailer: Mailer | undefined;
  /** The sandbox platform's sign-in and form checks for its admin pages, on hosts that have the sandbox. */
  sandboxOwners: OwnerGate | undefined;
  /**
   * The plugin's onboarding, which hears the commerce platforms' events (install, plan, uninstall,
   * confirmations) in every process: a worker that retries a webhook or meets a revoked token hides
   * the store's offer as the API process would.
   */
  onboarding: Onboarding;
  /** Stops the jobs, settles the counters and key usage, then closes the bus and Redis (not the databases). */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  config: Config;
  database: DatabaseHandle;
  /** Background jobs and startup loads run here; `database` when omitted. */
  jobDatabase?: DatabaseHandle;
  /** The bounds `database` was opened with: the invalidation listener and the counter writes wait by them. */
  bounds: DatabaseBounds;
  log: FastifyBaseLogger;
  /** What the process does while Redis is unreachable, for its warning. */
  redisFallback: string;
  /**
   * Whether this process runs the background jobs (the worker always; an API instance unless
   * RUN_BACKGROUND_JOBS=false), and whether their timers keep it alive (the worker lives for them).
   */
  jobs: { run: boolean; keepProcessAlive: boolean };
}

/** The one place that builds the shared services and starts the background jobs. */
export async function composeRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, database, log } = options;
  const jobDb = (options.jobDatabase ?? database).db;
  const bus = new InvalidationBus();
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, bus, log, options.redisFallback, config.redisCommandTimeoutMs)
    : undefined;
  if (database.kind === 'postgres' && config.databaseUrl) {
    await bus.connectRemote({ postgres: { url: config.databaseUrl, db: database.db, bounds: options.bounds } }, log);
  }
  const usage = new UsageRecorder(database.db, log);
  usage.start();
  const oauth = createOAuthModel({
    db: database.db,
    onRevoked: () => bus.publish('credentials'),
    refreshGraceSeconds: config.oauth.refreshGraceSeconds,
  });
  const auth = new Authenticator(database.db, keyEnvironmentFor(config.serviceEnv), bus, usage, new OAuthBearerVerifier(oauth, bus));
  const attribution = new Attribution(database.db, config.baseUrl, longestWaitMs(options.bounds), log);
  const commerce = commercePlatformsFor(config, database.db, log, bus);
  // Store setup runs short steps, with the request bounds like the plugin calls that queue it.
  const jobs = new BackgroundJobs({
    db: jobDb,
    setupDb: database.db,
    bus,
    log,
    adapter: commerce.primary,
    plugin: config.plugin,
    shopify: commerce.shopify,
    orders: config.orders,
  });
  // An API-only instance leaves setup to the worker process (src/worker.ts); nudges then do nothing.
  const onboarding = new Onboarding({
    db: database.db,
    adapter: commerce.primary,
    bus,
    settings: config.plugin,
    nudgeWorker: () => jobs.nudgeSetup(),
    // A Shopify store installs the app from Shopify's own pages: its App Store listing.
    appListingUrl: (domain) => {
      const shopify = commerce.shopify;
      return shopify && config.shopify && commerce.forStore(domain) === shopify ? config.shopify.appListingUrl : null;
    },
  });
  commerce.primary?.onEvent((event) => onboarding.handleCommerceEvent(event));
  const offers = new OffersCache((brandId, platformId, now) => loadOfferSet(database.db, attribution, brandId, platformId, now), bus);
  const mailer = mailerFor(config, database.db);
  const sandboxOwners = commerce.sandbox ? new OwnerGate(database.db, cookiePolicyFor(config.baseUrl)) : undefined;
  if (options.jobs.run) jobs.start({ keepProcessAlive: options.jobs.keepProcessAlive });

  return {
    config,
    db: database.db,
    dbKind: database.kind,
    jobDb,
    bus,
    redis: redis?.client,
    auth,
    usage,
    oauth,
    attribution,
    commerce,
    challengeConfirmed: (domain, challenge) => challengeConfirmed(database.db, domain, challenge),
    claimantOf: (request, claimId, domain) => claimantOf(database.db, request, claimId, domain),
    storeClaims: {
      asking: (domain) => claimsAskingStore(database.db, domain),
      waiting: (claimId, domain) => claimAsksStore(database.db, claimId, domain),
      decline: (claimId, domain) => declineClaimAtStore(database.db, claimId, domain),
    },
    jobs,
    offers,
    mailer,
    sandboxOwners,
    onboarding,
    async close() {
      // A batch or setup step in flight commits or rolls back as a whole; stopping waits for it.
      await jobs.stop();
      // Requests in flight have finished when the app closes this; their last counter batch is awaited here.
      await attribution
        .close()
        .catch((error) => log.warn({ err: error }, 'a counter batch the database left unanswered could not be settled'));
      await usage.close().catch((error) => log.warn({ err: error }, 'could not record final key usage'));
      mailer?.close();
      await bus.close();
      redis?.disconnect();
    },
  };
}

/** Stores whose tokens the keeper renews per hourly round: at most one Shopify token request each. */
const TOKEN_KEEPER_BATCH = 500;
const TOKEN_KEEPER_INTERVAL_MS = 60 * 60_000;

/** Every background job: recommendation scoring, performance sealing, statement closing and store setup. */
export class BackgroundJobs {
  private readonly scoring: PeriodicJob;
  private readonly sealer: PeriodicJob;
  private readonly closer: PeriodicJob;
  /** Store setup reads stores from a commerce platform: a host with none has no setup to run. */
  private readonly setup: SetupWorker | undefined;
  /** Shopify's webhook deliveries (orders, refunds, compliance), when Shopify is configured. */
  private readonly shopifyWebhooks: WebhookWorker | undefined;
  /** Moves stores off non-expiring tokens and renews refresh tokens before they run out (docs/shopify.md, "Tokens"). */
  private readonly shopifyTokens: PeriodicJob | undefined;
  /** Erases the raw bodies of webhook deliveries that stopped a week ago (docs/shopify.md, "Webhooks"). */
  private readonly shopifyBodies: PeriodicJob | undefined;
  /** Subscribes again the webhook topics Shopify deleted after failed deliveries (docs/shopify.md, "Webhooks"). */
  private readonly shopifySubscriptions: PeriodicJob | undefined;

  constructor(options: {
    db: Db;
    setupDb: Db;
    bus: InvalidationBus;
    log: FastifyBaseLogger;
    adapter: CommerceAdapter | null;
    plugin: Config['plugin'];
    shopify?: ShopifyCommerce | undefined;
    orders: Pick<Config['orders'], 'commissionBasisPoints' | 'attributionWindowDays'>;
  }) {
    const { db, bus, log, adapter, plugin } = options;
    this.scoring = scoringLoop(db, log);
    this.sealer = performanceSealer(db, log);
    this.closer = statementCloser(db, log);
    this.setup = adapter
      ? new SetupWorker({
          db: options.setupDb,
          adapter,
          bus,
          log,
          pollMs: plugin.setupPollMs,
          retryMs: plugin.setupRetryMs,
          leaseMs: plugin.setupLeaseMs,
        })
      : undefined;
    this.shopifyWebhooks = options.shopify
      ? new WebhookWorker({
          shopify: options.shopify,
          db: options.setupDb,
          log,
          orders: options.orders,
          pollMs: plugin.setupPollMs,
          retryMs: plugin.setupRetryMs,
          leaseMs: plugin.setupLeaseMs,
        })
      : undefined;
    const shopify = options.shopify;
    this.shopifyTokens = shopify
      ? new PeriodicJob(
          async () => {
            await shopify.tokens.renewAgeing(TOKEN_KEEPER_BATCH);
          },
          TOKEN_KEEPER_INTERVAL_MS,
          (error) => log.error({ err: error }, 'Shopify token keeper failed; it runs again within the hour'),
        )
      : undefined;
    this.shopifyBodies = shopify ? stoppedBodyEraser(options.setupDb, log) : undefined;
    this.shopifySubscriptions = shopify ? new WebhookReconciler({ shopify, db: options.setupDb, log }).job() : undefined;
  }

  /** Each job runs at once, then on its timer. */
  start(options: { keepProcessAlive: boolean }): void {
    this.scoring.start({ keepProcessAlive: options.keepProcessAlive, runNow: true });
    this.sealer.start({ keepProcessAlive: options.keepProcessAlive, runNow: true });
    this.closer.start({ keepProcessAlive: options.keepProcessAlive, runNow: true });
    this.setup?.start();
    this.shopifyWebhooks?.start();
    this.shopifyTokens?.start({ keepProcessAlive: options.keepProcessAlive, runNow: true });
    this.shopifyBodies?.start({ keepProcessAlive: options.keepProcessAlive, runNow: true });
    // Not at start: the install subscribes, and a restart would otherwise read every store's subscriptions at once.
    this.shopifySubscriptions?.start({ keepProcessAlive: options.keepProcessAlive });
  }

  async stop(): Promise<void> {
    await Promise.all([
      this.scoring.stop(),
      this.sealer.stop(),
      this.closer.stop(),
      this.setup?.stop(),
      this.shopifyWebhooks?.stop(),
      this.shopifyTokens?.stop(),
      this.shopifyBodies?.stop(),
      this.shopifySubscriptions?.stop(),
    ]);
  }

  /** A Shopify webhook was recorded: its worker looks for work now. Nothing where the jobs do not run. */
  nudgeShopifyWebhooks(): void {
    this.shopifyWebhooks?.nudge();
  }

  /** A store's setup was queued: the setup worker looks for work now. Nothing where the jobs do not run. */
  nudgeSetup(): void {
    this.setup?.nudge();
  }

  describe(): string {
    const setup = this.setup ? 'store setup' : 'no store setup (no commerce platform connected)';
    const shopify = this.shopifyWebhooks ? ', Shopify webhooks and tokens' : '';
    return `recommendation scoring, performance sealing, statement closing, ${setup}${shopify}`;
  }
}
