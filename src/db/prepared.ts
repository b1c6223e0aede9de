import pg from 'pg';
import type { RawBuilder } from 'kysely';
import type { Db } from './database.js';

/** SQL text → statement name, for the statements that run often enough to keep prepared. */
const statementNames = new Map<string, string>();

/**
 * Runs `query` as a named statement on PostgreSQL: each connection parses and plans it once and
 * then only binds and executes it, which took a tenth of a millisecond off every group commit of
 * the offers endpoint (docs/performance-offers.md). Each name holds a plan on every connection,
 * so this is for a handful of hot statements whose text never changes. PGlite runs it as usual.
 */
export async function executePrepared<Row>(db: Db, name: string, query: RawBuilder<Row>): Promise<Row[]> {
  const compiled = query.compile(db);
  statementNames.set(compiled.sql, name);
  return (await db.executeQuery(compiled)).rows;
}

type QueryArguments = [config: unknown, values?: unknown, callback?: unknown];

/**
 * The pool's client class: a query whose text was given to executePrepared goes out as a named
 * statement. Kysely passes text and values only, so the name is looked up here.
 */
export class PreparingClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config);
    const query = this.query.bind(this) as (...args: QueryArguments) => unknown;
    this.query = ((...[config, values, callback]: QueryArguments) => {
      const name = typeof config === 'string' && Array.isArray(values) ? statementNames.get(config) : undefined;
      return name ? query({ name, text: config, values }, callback) : query(config, values, callback);
    }) as pg.Client['query'];
  }
}
