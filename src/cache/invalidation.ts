import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';

export type InvalidationTopic = 'credentials' | 'platforms' | 'offers' | 'campaigns' | 'partnerships';

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

  async connectRemote(options: { redis?: { publisher: Redis; subscriber: Redis }; postgresUrl?: string }, log: FastifyBaseLogger) {
    const receive = (message: string) => {
      const [origin, topic] = message.split(':');
      if (origin !== this.instanceId && topic) this.events.emit(topic as InvalidationTopic);
    };
    if (options.redis) this.remotes.push(await RedisChannel.connect(options.redis.publisher, options.redis.subscriber, receive));
    if (options.postgresUrl) this.remotes.push(await PostgresChannel.connect(options.postgresUrl, receive, log));
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

class PostgresChannel implements RemoteChannel {
  private client: pg.Client | undefined;
  private closed = false;

  private constructor(
    private readonly url: string,
    private readonly receive: (message: string) => void,
    private readonly log: FastifyBaseLogger,
  ) {}

  static async connect(url: string, receive: (message: string) => void, log: FastifyBaseLogger) {
    const channel = new PostgresChannel(url, receive, log);
    await channel.listen();
    return channel;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (notification) => {
      if (notification.payload) this.receive(notification.payload);
    });
    client.on('error', (error) => {
      this.log.warn({ err: error }, 'invalidation listener lost its connection; reconnecting');
      this.reconnectSoon();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.client = client;
  }

  private reconnectSoon() {
    this.client = undefined;
    if (this.closed) return;
    setTimeout(() => {
      if (!this.closed) this.listen().catch(() => this.reconnectSoon());
    }, 1_000).unref();
  }

  async send(message: string) {
    await this.client?.query('select pg_notify($1, $2)', [CHANNEL, message]).catch(() => undefined);
  }

  async close() {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }
}
