import { pino } from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { ScoringLoop } from './scorer.js';

/**
 * A scoring worker as its own process (`tsx src/recommendations/worker.ts`), for when scoring
 * should not compete with API requests. It shares the queue with the scorer each API instance
 * runs; it needs PostgreSQL, since PGlite's files belong to the one server process.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.logLevel, name: 'scoring-worker' });
  if (!config.databaseUrl) {
    log.error('the scoring worker needs DATABASE_URL (PostgreSQL); with PGlite the server scores in-process');
    process.exit(1);
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, poolSize: 2 });
  const loop = new ScoringLoop(database.db, log);
  loop.start({ keepProcessAlive: true });
  log.info('scoring worker started');
  const shutdown = async () => {
    await loop.stop();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

main().catch((error) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error?.stack ?? error)}\n`);
  process.exit(1);
});
