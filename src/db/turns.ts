import { sql } from 'kysely';
import type { Db } from './database.js';

/**
 * Runs `work` while this process holds a PostgreSQL session advisory lock on `key`, taken on a
 * connection of its own, so that processes doing the same thing at once (instances starting
 * together on an empty database) take turns; the wait is bounded by the pool's statement timeout.
 * `work` uses the pool's other connections. PGlite has one connection and one process: it takes
 * no turns (`shared` false).
 */
export async function inTurns<T>(db: Db, key: string, shared: boolean, work: () => Promise<T>): Promise<T> {
  if (!shared) return work();
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(hashtextextended(${key}, 0))`.execute(connection);
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(connection);
    }
  });
}
