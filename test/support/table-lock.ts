import pg from 'pg';

/**
 * A table locked from the test's own PostgreSQL connection, so that a race a test needs lands
 * every time: the service's writes to the table wait for the lock, which makes the requests behind
 * them provably in flight until the test lets go, whatever the machine's load.
 */
export class TableLock {
  private constructor(
    private readonly client: pg.Client,
    private readonly table: string,
  ) {}

  /** Locks `table` in EXCLUSIVE mode: others still read it, every insert, update and delete waits. */
  static async take(databaseUrl: string, table: string): Promise<TableLock> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('begin');
    await client.query(`lock table ${client.escapeIdentifier(table)} in exclusive mode`);
    return new TableLock(client, table);
  }

  /** Statements of other sessions waiting for this lock now. */
  async waiting(): Promise<number> {
    const result = await this.client.query<{ n: number }>(
      `select count(*)::int as n from pg_locks
       where locktype = 'relation' and not granted and relation = $1::regclass
         and database = (select oid from pg_database where datname = current_database())`,
      [this.table],
    );
    return result.rows[0]!.n;
  }

  /** Ends the lock (nothing was written under it); the waiting statements go on. */
  async release(): Promise<void> {
    await this.client.query('rollback');
    await this.client.end();
  }
}
