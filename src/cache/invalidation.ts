import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { clientSettings, type DatabaseBounds, type Db } from '../db/database.js';
import { PreparingClient } from '../db/prepared.js';

const INVALIDATION_TOPICS = ['credentials', 'platforms', 'offers', 'campaigns', 'partnerships', 'store_domains'] as const;

export type InvalidationTopic = (typeof INVALIDATION_TOPICS)[number];

/** Where an instance on PostgreSQL sends and hears invalidations. */
export interface PostgresInvalidations {
  url: string;
  /** Notices go out through the pool, which replaces a connection that went silent. */
  db: Db;
  bounds: DatabaseBounds;
}

const CHANNEL = 'svc_invalidate';

/**
 * Tells every instance that cached data changed. Locally it is an event; across processes it
 * travels over PostgreSQL LISTEN/NOTIFY when the database is a server, and also over Redis
 * pub/sub when REDIS_URL is set (PGlite is single-process, so local events are all it needs).
 * Both at once, so that a Redis outage does not leave other instances serving revoked keys or
 * closed offers: a change is written to PostgreSQL, so its notice can always travel there too.
 */
export class InvalidationBus {
  private readonly events = new EventEmitter();
  private readonly instanceId = Math.random().toString(36).slice(2);
  private remotes: RemoteChannel[] = [];

  constructor() {
    this.events.setMaxListeners(100);
  }

  on(topic: InvalidationTopic, listener: () => void): () => void {
    this.events.on(topic, listener);
    return () => this.events.off(topic, listener);
  }

  /** Invalidates locally at once, then tells the other instances. */
  async publish(topic: InvalidationTopic): Promise<void> {
    this.events.emit(topic);
    await Promise.all(this.remotes.map((remote) => remote.send(`${this.instanceId}:${topic}`)));
  }

  async connectRemote(
    options: { redis?: { publisher: Redis; subscriber: Redis }; postgres?: PostgresInvalidations },
    log: FastifyBaseLogger,
  ) {
    const receive = (message: string) => {
      const [origin, topic] = message.split(':');
      if (origin !== this.instanceId && topic) this.events.emit(topic as InvalidationTopic);
    };
    // Notices sent while the listener was away are lost to it: everything cached may be stale.
    const invalidateEverything = () => {
      for (const topic of INVALIDATION_TOPICS) this.events.emit(topic);
    };
    if (options.redis) this.remotes.push(await RedisChannel.connect(options.redis.publisher, options.redis.subscriber, receive));
    if (options.postgres) this.remotes.push(await PostgresChannel.connect(options.postgres, receive, invalidateEverything, log));
  }

  async close(): Promise<void> {
    await Promise.all(this.remotes.map((remote) => remote.close()));
    this.remotes = [];
    this.events.removeAllListeners();
  }
}

interface RemoteChannel {
  send(message: string): Promise<void>;
  close(): Promise<void>;
}

class RedisChannel implements RemoteChannel {
  private constructor(private readonly publisher: Redis) {}

  static async connect(publisher: Redis, subscriber: Redis, receive: (message: string) => void) {
    await subscriber.subscribe(CHANNEL);
    subscriber.on('message', (_channel: string, message: string) => receive(message));
    return new RedisChannel(publisher);
  }

  async send(message: string) {
    await this.publisher.publish(CHANNEL, message).catch(() => undefined);
  }

  async close() {}
}

/**
 * LISTEN on a connection of its own. A connection that went silent (a frozen network path, a
 * black-holed host) closes nothing and raises no error, and a LISTEN connection never sends
 * anything by itself: so it is asked a question every keepAliveMs, and one not answered within
 * the query timeout counts as lost. A lost connection is dropped and replaced, retrying every
 * second; once listening again, every cache is invalidated, for the notices missed meanwhile.
 */
class PostgresChannel implements RemoteChannel {
  private client: PreparingClient | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly postgres: PostgresInvalidations,
    private readonly receive: (message: string) => void,
    private readonly onRelisten: () => void,
    private readonly log: FastifyBaseLogger,
  ) {}

  static async connect(
    postgres: PostgresInvalidations,
    receive: (message: string) => void,
    onRelisten: () => void,
    log: FastifyBaseLogger,
  ) {
    const channel = new PostgresChannel(postgres, receive, onRelisten, log);
    await channel.listen();
    return channel;
  }

  private async listen(): Promise<void> {
    const client = new PreparingClient({ ...clientSettings(this.postgres.bounds), connectionString: this.postgres.url });
    client.on('notification', (notification) => {
      if (notification.payload) this.receive(notification.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      client.drop();
      throw error;
    }
    if (this.closed) {
      client.drop();
      return;
    }
    this.client = client;
    this.heartbeat = setInterval(() => {
      client.query('select 1').catch((error: unknown) => this.lost(client, error));
    }, this.postgres.bounds.keepAliveMs).unref();
  }

  private lost(client: PreparingClient, error: unknown) {
    if (this.client !== client) return;
    this.client = undefined;
    clearInterval(this.heartbeat);
    client.drop();
    if (this.closed) return;
    this.log.warn({ err: error }, 'invalidation listener lost its connection; reconnecting');
    this.relistenSoon();
  }

  private relistenSoon() {
    setTimeout(() => {
      if (this.closed) return;
      this.listen().then(
        () => {
          this.log.info('invalidation listener is listening again');
          this.onRelisten();
        },
        () => this.relistenSoon(),
      );
    }, 1_000).unref();
  }

  async send(message: string) {
    await sql`select pg_notify(${CHANNEL}, ${message})`.execute(this.postgres.db).catch(() => undefined);
  }

  /** Drops the connection rather than ending it politely: a silent server would never answer the goodbye. */
  async close() {
    this.closed = true;
    clearInterval(this.heartbeat);
    this.client?.drop();
  }
}
