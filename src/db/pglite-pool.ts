import type { PGlite } from '@electric-sql/pglite';

/**
 * Presents PGlite (one in-process connection) as the small pool interface Kysely's
 * PostgresDialect expects. A connection is held exclusively from connect() to release(),
 * so a transaction never interleaves with other queries.
 */
export class PGlitePool {
  private queue: Array<() => void> = [];
  private busy = false;
  private ended = false;

  /**
   * `connectTimeoutMs`: the longest a caller waits for the connection, as pg's pool bounds its checkout.
   * `closesInstance`: false when the caller owns the instance and closes it itself.
   */
  constructor(
    readonly pglite: PGlite,
    private readonly connectTimeoutMs: number,
    private readonly options: { closesInstance: boolean } = { closesInstance: true },
  ) {}

  async connect(): Promise<PGlitePoolClient> {
    // An instance the pool does not close stays usable by its owner: an ended pool still refuses work.
    if (this.ended) throw new Error('Cannot use a pool after calling end on the pool');
    if (this.busy) await this.waitForTurn();
    this.busy = true;
    return new PGlitePoolClient(this.pglite, () => this.releaseConnection());
  }

  /** The same error as pg's pool, so both engines' timeouts are answered alike (src/http/error-handler.ts). */
  private waitForTurn(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(turn), 1);
        reject(new Error('timeout exceeded when trying to connect'));
      }, this.connectTimeoutMs);
      this.queue.push(turn);
    });
  }

  private releaseConnection(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.busy = false;
  }

  async end(): Promise<void> {
    this.ended = true;
    if (this.options.closesInstance) await this.pglite.close();
  }
}

class PGlitePoolClient {
  private released = false;

  constructor(
    private readonly pglite: PGlite,
    private readonly onRelease: () => void,
  ) {}

  async query(sqlText: string, parameters: readonly unknown[]) {
    const result = await this.pglite.query(sqlText, parameters as unknown[]);
    const isWrite = /^(INSERT|UPDATE|DELETE|MERGE)/i.test(result.command ?? '');
    return {
      command: result.command ?? 'SELECT',
      rowCount: isWrite ? (result.affectedRows ?? 0) : result.rows.length,
      rows: result.rows,
    };
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease();
  }
}
