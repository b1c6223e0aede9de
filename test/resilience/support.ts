import net from 'node:net';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { freePort, spawnEntryPoint, waitUntil, type ChildService } from '../support/service-process.js';

export { waitUntil };

export type WorkerProcess = ChildService;

/** Starts the real background worker (`dist/worker.js`) as its own process; resolves once it says it started. */
export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  return spawnEntryPoint(
    'worker',
    // vitest puts Vite's BASE_URL ("/") into the environment; the worker needs an absolute one.
    { ...process.env, LOG_LEVEL: 'info', BASE_URL: 'http://127.0.0.1', ...env },
    { captureStderr: true, isReady: async (output) => output.includes('worker started') },
  );
}

type Direction = 'toServer' | 'toClient';

/** One connection through the proxy: the client's socket, the server's, and what each direction holds back. */
class ProxiedConnection {
  upstream: net.Socket | undefined;
  readonly frozen = new Set<Direction>();
  readonly held: Record<Direction, Buffer[]> = { toServer: [], toClient: [] };
  /** The sending side closed while its direction was frozen: delivered after what it held. */
  readonly endHeld: Record<Direction, boolean> = { toServer: false, toClient: false };
  /** Black-holed: nothing is forwarded or kept, and it is reset when the proxy is restored. */
  blackHoled = false;

  constructor(readonly client: net.Socket) {}

  target(direction: Direction): net.Socket | undefined {
    return direction === 'toServer' ? this.upstream : this.client;
  }

  forward(direction: Direction, chunk: Buffer): void {
    if (this.blackHoled) return;
    if (this.frozen.has(direction)) this.held[direction].push(chunk);
    else this.target(direction)?.write(chunk);
  }

  end(direction: Direction): void {
    if (this.blackHoled) return;
    if (this.frozen.has(direction)) this.endHeld[direction] = true;
    else this.target(direction)?.end();
  }

  /** Delivers what a frozen direction held, in order, as a network path coming back does. */
  thaw(): void {
    for (const direction of [...this.frozen]) {
      this.frozen.delete(direction);
      for (const chunk of this.held[direction].splice(0)) this.target(direction)?.write(chunk);
      if (this.endHeld[direction]) this.target(direction)?.end();
    }
  }

  destroy(): void {
    this.client.destroy();
    this.upstream?.destroy();
  }
}

/**
 * A TCP proxy on loopback between the service and a shared server (PostgreSQL, Redis), so a test
 * can take that server away from one service without stopping it for everyone else.
 * - `cut` closes every connection and refuses new ones, as a stopped server would.
 * - `freeze` makes the path silent without closing anything: bytes are held, not forwarded (both
 *   directions, or only the answers); new connections are frozen too, or forwarded as usual
 *   (a firewall or NAT that lost the state of the connections it had).
 * - `blackHole` makes the server vanish: established connections forward nothing, and new ones
 *   are accepted and never answered, as when SYNs are dropped.
 * - `restore` ends every fault: accepts again, delivers what frozen connections held (a late
 *   statement may reach the server after its client gave up), and resets black-holed ones (the
 *   server comes back without their state).
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly links = new Set<ProxiedConnection>();
  private freezeNew: Direction[] = [];
  private blackHoleNew = false;

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
    this.freezeNew = [];
    this.blackHoleNew = false;
    for (const link of this.links) {
      if (link.blackHoled) {
        link.destroy();
        this.links.delete(link);
      } else {
        link.thaw();
        if (link.client.destroyed) this.links.delete(link);
      }
    }
    if (this.server) return;
    const server = net.createServer({ allowHalfOpen: true }, (client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  private accept(client: net.Socket): void {
    const link = new ProxiedConnection(client);
    this.links.add(link);
    // A frozen or black-holed connection stays listed after its client left: restore still
    // delivers what it held, or resets the server's side.
    client.on('close', () => {
      if (link.frozen.size === 0 && !link.blackHoled) this.links.delete(link);
    });
    client.on('error', () => link.end('toServer'));
    client.on('data', (chunk: Buffer) => link.forward('toServer', chunk));
    client.on('end', () => link.end('toServer'));
    if (this.blackHoleNew) {
      link.blackHoled = true;
      return;
    }
    for (const direction of this.freezeNew) link.frozen.add(direction);
    const upstream = net.connect({ port: this.target.port, host: this.target.host, allowHalfOpen: true });
    link.upstream = upstream;
    upstream.on('error', () => link.end('toClient'));
    upstream.on('data', (chunk: Buffer) => link.forward('toClient', chunk));
    upstream.on('end', () => link.end('toClient'));
    upstream.on('close', () => {
      if (!link.frozen.has('toClient')) client.destroy();
    });
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const link of this.links) link.destroy();
    this.links.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  freeze(options: { answersOnly?: boolean; newConnections?: 'frozen' | 'forwarded' } = {}): void {
    const directions: Direction[] = options.answersOnly ? ['toClient'] : ['toServer', 'toClient'];
    for (const link of this.links) for (const direction of directions) link.frozen.add(direction);
    this.freezeNew = options.newConnections === 'forwarded' ? [] : directions;
  }

  blackHole(): void {
    for (const link of this.links) link.blackHoled = true;
    this.blackHoleNew = true;
  }

  /** Connections open through the proxy now. */
  get connections(): number {
    return this.links.size;
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
