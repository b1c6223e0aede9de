import net from 'node:net';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, withStartDefaults, type Config } from './config.js';
import { jobBounds, openDatabase, requestBounds } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { prepareStartupData } from './demo/startup.js';
import { FixtureError } from './demo/loader.js';
import { acquireDataDirLock, DataDirLockedError } from './admin/data-dir-lock.js';
import { DemoListenError, startDemoHost } from './embed/service.js';
import { closeGracefully } from './graceful-shutdown.js';

/** The service could not bind its address; the message says which variables to check. */
class ListenError extends Error {}

/**
 * Fails fast, before the database is opened and migrated, when a port the service will listen on
 * is taken: the message names the variable that sets it.
 */
async function checkPortFree(host: string, port: number, variable: 'PORT' | 'DEMO_PORT', hint: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error) =>
      reject(new ListenError(`cannot listen on HOST=${host} ${variable}=${port} (${error.message}). ${hint}`)),
    );
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Whether the demo's shopping path (referral link → sandbox storefront → order → webhook) works here, and why not. */
function shoppingBanner(config: Config, generatedWebhookSecret: boolean): string[] {
  if (config.serviceEnv === 'prod') return [];
  const storefronts = config.sandboxStorefronts
    ? `referral links open the sandbox storefronts (${config.baseUrl}/sandbox)`
    : 'referral links lead to the stores themselves (SANDBOX_STOREFRONTS=false)';
  const webhook = !config.orders.webhookSecret
    ? 'the order webhook is off'
    : generatedWebhookSecret
      ? 'their orders reach the order webhook (secret made for this run; set ORDERS_WEBHOOK_SECRET to keep one)'
      : 'their orders reach the order webhook (ORDERS_WEBHOOK_SECRET)';
  return [`  Shopping demo:   ${storefronts}; ${webhook}`];
}

async function main(): Promise<void> {
  const started = withStartDefaults(process.env);
  const config = loadConfig(started.env);
  await checkPortFree(config.host, config.port, 'PORT', 'Check HOST and PORT.');
  if (config.serviceEnv !== 'prod') {
    await checkPortFree(config.host, config.plugin.demoPort, 'DEMO_PORT', 'Check DEMO_PORT (0 turns the plugin demo off).');
  }
  // PGlite's files take one process at a time; the CLI checks this lock and points at the admin API.
  if (!config.databaseUrl) process.on('exit', acquireDataDirLock(config.dataDir, 'server'));
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, bounds: requestBounds(config.database) });
  // Migrations and background jobs may rightly run statements longer than a request may wait:
  // on PostgreSQL they get a small pool of their own with the job bounds. PGlite has one
  // connection, and no statement timeout to lengthen.
  const jobDatabase = config.databaseUrl
    ? await openDatabase({ databaseUrl: config.databaseUrl, poolSize: 2, bounds: jobBounds(config.database) })
    : database;
  await migrateToLatest(jobDatabase.db);
  const app = await buildApp({ config, database, jobDatabase });
  const { runtime } = app;
  // A seed file may be large: loading it is a job, with the job bounds.
  const startup = await prepareStartupData({ ...runtime, db: runtime.jobDb }, app.log);

  let closeDemo = async () => {};
  closeGracefully(app.log, 'shutting down: no new connections, finishing requests in flight', async () => {
    await closeDemo();
    await app.close();
    await database.close();
    if (jobDatabase !== database) await jobDatabase.close();
  });

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ListenError(`cannot listen on HOST=${config.host} PORT=${config.port} (${reason}). Check HOST and PORT.`);
  }
  const demo = await startDemoHost(runtime);
  closeDemo = demo.close;
  const where = database.kind === 'pglite' ? `PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)';
  const lines = [
    '',
    `Partner collaboration service (${config.serviceEnv}) on ${where}`,
    `  Base URL:        ${config.baseUrl}`,
    `  Dashboard:       ${config.baseUrl}/dashboard   (brand staff: sign up, partnerships, campaigns, keys, performance)`,
    `  API reference:   ${config.baseUrl}/docs   (OpenAPI: ${config.baseUrl}/v1/openapi.json)`,
    `  Health:          ${config.baseUrl}/healthz  ${config.baseUrl}/readyz  ${config.baseUrl}/metrics`,
    `  Admin API:       ${
      config.adminToken ? `${config.baseUrl}/admin (Authorization: Bearer $ADMIN_TOKEN)` : 'disabled (set ADMIN_TOKEN to enable)'
    }`,
    ...startup.banner,
    ...demo.banner,
    ...shoppingBanner(config, started.generatedWebhookSecret),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof FixtureError) {
    process.stderr.write(`${error.message}\n`);
  } else if (error instanceof ListenError || error instanceof DemoListenError) {
    process.stderr.write(`Failed to start: ${error.message}\n`);
  } else if (error instanceof DataDirLockedError) {
    process.stderr.write(`Failed to start: ${error.message}. Stop that process or set another DATA_DIR.\n`);
  } else {
    process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
