import pg from 'pg';
import type { QueryResult, RawBuilder } from 'kysely';
import type { Db } from './database.js';

/** SQL text → statement name, for the statements that run often enough to keep prepared. */
const statementNames = new Map<string, string>();

/**
 * Runs `query` as a named statement on PostgreSQL: each connection parses and plans it once and
 * then only binds and executes it, which took a tenth of a millisecond off every group commit of
 * the offers endpoint (docs/performance-offers.md). Each name holds a plan on every connection,
 * so this is for a handful of hot statements whose text never changes. PGlite runs it as usual.
 */
export async function executePrepared<Row>(db: Db, name: string, query: RawBuilder<Row>): Promise<QueryResult<Row>> {
  const compiled = query.compile(db);
  statementNames.set(compiled.sql, name);
  return db.executeQuery(compiled);
}

type QueryArguments = [config: unknown, values?: unknown, callback?: unknown];

/** The message of node-postgres's error when a statement's answer does not come within query_timeout. */
const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

/**
 * The pool's client class: a query whose text was given to executePrepared goes out as a named
 * statement. Kysely passes text and values only, so the name is looked up here.
 *
 * A statement whose answer did not come within query_timeout also ends the connection:
 * node-postgres would keep it, with the unanswered statement still ahead of anything sent next,
 * so the next request given this connection would wait out the same silence. Ended, it is
 * dropped by the pool when released, and a transaction's rollback fails at once instead of waiting.
 */
export class PreparingClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config);
    const query = this.query.bind(this) as (...args: QueryArguments) => unknown;
    this.query = ((...[config, values, callback]: QueryArguments) => {
      const name = typeof config === 'string' && Array.isArray(values) ? statementNames.get(config) : undefined;
      const result = name ? query({ name, text: config, values }, callback) : query(config, values, callback);
      return result instanceof Promise ? result.catch((error: unknown) => this.dropOnTimeout(error)) : result;
    }) as pg.Client['query'];
  }

  /**
   * Ends the connection at once, without waiting for a goodbye a silent server would never
   * answer. end() marks the client as ending before this returns, so the pool discards it when
   * it is released a moment later instead of handing it to the next caller.
   */
  drop(): void {
    this.end().catch(() => undefined);
    (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }

  private dropOnTimeout(error: unknown): never {
    if (error instanceof Error && error.message === QUERY_TIMEOUT_MESSAGE) this.drop();
    throw error;
  }
}
