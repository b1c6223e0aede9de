import net from 'node:net';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { freePort, spawnEntryPoint, waitUntil, type ChildService } from '../support/service-process.js';

export { waitUntil };

export type WorkerProcess = ChildService;

/** Starts the real background worker (`src/worker.ts`) as its own process; resolves once it says it started. */
export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  return spawnEntryPoint(
    'src/worker.ts',
    // vitest puts Vite's BASE_URL ("/") into the environment; the worker needs an absolute one.
    { ...process.env, LOG_LEVEL: 'info', BASE_URL: 'http://127.0.0.1', ...env },
    { captureStderr: true, isReady: async (output) => output.includes('worker started') },
  );
}

/**
 * A TCP proxy on loopback between the service and a shared server (PostgreSQL, Redis), so a test
 * can take that server away from one service without stopping it for everyone else. `cut` closes
 * every connection and refuses new ones, as a stopped server would; `restore` accepts again on
 * the same port.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target);
    await proxy.restore();
    return proxy;
  }

  async restore(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get connections(): number {
    return this.sockets.size;
  }
}

/** Row counts of every table of the service, to show a refused request wrote nothing. */
export async function tableCounts(db: Db): Promise<Record<string, number>> {
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely_%'
    order by table_name`.execute(db);
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    const row = await sql<{ n: number }>`select count(*)::int8 as n from ${sql.table(name)}`.execute(db);
    counts[name] = Number(row.rows[0]!.n);
  }
  return counts;
}

/** Views and clicks recorded across all platforms. */
export async function totalCounts(db: Db): Promise<{ views: number; clicks: number }> {
  const row = await sql<{ views: number; clicks: number }>`
    select coalesce(sum(views), 0)::int8 as views, coalesce(sum(clicks), 0)::int8 as clicks from attribution_counters`.execute(db);
  return { views: Number(row.rows[0]!.views), clicks: Number(row.rows[0]!.clicks) };
}
