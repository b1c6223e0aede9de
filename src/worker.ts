import { ConfigError, loadConfig } from './config.js';
import { jobBounds, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { composeRuntime } from './composition.js';
import { closeGracefully } from './graceful-shutdown.js';
import { logFormatFor, processLogger } from './http/logging.js';

/**
 * The background worker process (`npm run start:worker`): every job runner of the service, with
 * no HTTP server. API instances started with RUN_BACKGROUND_JOBS=false leave their jobs to it.
 * Any number of workers may run: scoring batches are claimed with skip locked and setup jobs
 * with a lease, so two workers never take the same work.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = processLogger('worker', config.logLevel, logFormatFor(process.stdout));
  if (!config.databaseUrl) {
    throw new ConfigError([
      "the worker needs DATABASE_URL (PostgreSQL): PGlite's files belong to the one server process, which runs the jobs itself",
    ]);
  }
  // The worker answers no requests: every statement of it may take as long as a job may.
  const bounds = jobBounds(config.database);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, poolSize: 4, bounds });
  await migrateToLatest(database.db);

  // Setup publishes new offers; API instances hear it over the bus to drop their offer caches.
  const runtime = await composeRuntime({
    config,
    database,
    bounds,
    log,
    redisFallback: 'invalidations still travel over PostgreSQL',
    jobs: { run: true, keepProcessAlive: true },
  });
  log.info(`worker started: ${runtime.jobs.describe()}`);

  closeGracefully(log, 'worker shutting down: finishing the jobs in flight', async () => {
    await runtime.close();
    await database.close();
  });
}

main().catch((error) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `Worker failed to start: ${String(error?.stack ?? error)}`}\n`);
  process.exit(1);
});
