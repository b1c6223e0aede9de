import { pino } from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { jobBounds, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { InvalidationBus } from './cache/invalidation.js';
import { connectRedis } from './cache/redis.js';
import { scoringLoop } from './recommendations/scorer.js';
import { performanceSealer } from './dashboard/sealer.js';
import { commerceAdapterFor } from './commerce/host.js';
import { SetupWorker } from './plugin/setup-worker.js';

/**
 * The background worker process (`npm run start:worker`): every job runner of the service, with
 * no HTTP server. API instances started with RUN_BACKGROUND_JOBS=false leave their jobs to it.
 * Any number of workers may run: scoring batches are claimed with skip locked and setup jobs
 * with a lease, so two workers never take the same work.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.logLevel, name: 'worker' });
  if (!config.databaseUrl) {
    throw new ConfigError(['the worker needs DATABASE_URL (PostgreSQL): PGlite\'s files belong to the one server process, which runs the jobs itself']);
  }
  // The worker answers no requests: every statement of it may take as long as a job may.
  const bounds = jobBounds(config.database);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, poolSize: 4, bounds });
  await migrateToLatest(database.db);

  // Setup publishes new offers; API instances must hear it to drop their offer caches.
  const bus = new InvalidationBus();
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, bus, log, 'invalidations still travel over PostgreSQL') : undefined;
  await bus.connectRemote({ postgres: { url: config.databaseUrl, db: database.db, bounds } }, log);

  const scoring = scoringLoop(database.db, log);
  const sealer = performanceSealer(database.db, log);
  // Store setup reads stores from the host's commerce platform; a host with none (prod until one is configured) has no setup to run.
  const adapter = commerceAdapterFor(config, database.db);
  const setup = adapter
    ? new SetupWorker({
        db: database.db,
        adapter,
        bus,
        log,
        pollMs: config.plugin.setupPollMs,
        retryMs: config.plugin.setupRetryMs,
        leaseMs: config.plugin.setupLeaseMs,
      })
    : undefined;
  scoring.start({ keepProcessAlive: true });
  sealer.start({ keepProcessAlive: true, runNow: true });
  setup?.start();
  log.info(`worker started: recommendation scoring, performance sealing, ${setup ? 'store setup' : 'no store setup (no commerce platform connected)'}`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'worker shutting down: finishing the jobs in flight');
    const forceExit = setTimeout(() => {
      log.error('worker shutdown took longer than 20 s; exiting');
      process.exit(1);
    }, 20_000);
    forceExit.unref();
    try {
      // A batch or step in flight commits or rolls back as a whole; stopping waits for it.
      await Promise.all([scoring.stop(), sealer.stop(), setup?.stop()]);
      await bus.close();
      redis?.disconnect();
      await database.close();
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'error during worker shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `Worker failed to start: ${String(error?.stack ?? error)}`}\n`);
  process.exit(1);
});
