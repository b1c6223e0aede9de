import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { InvalidationBus } from './invalidation.js';

export interface RedisConnection {
  /** The command connection (rate limits, publishing invalidations). */
  client: Redis;
  disconnect(): void;
}

/**
 * Connects to Redis and carries the invalidation bus over it. An unreachable Redis is logged with
 * what the process falls back to, never fatal: commands that fail while it is away are handled
 * where they are sent, and ioredis keeps reconnecting.
 */
export async function connectRedis(
  url: string,
  bus: InvalidationBus,
  log: FastifyBaseLogger,
  fallback: string,
  commandTimeoutMs: number,
): Promise<RedisConnection> {
  // Every wait is bounded: a Redis that stops answering without closing the connection (a frozen
  // path) fails each command after commandTimeoutMs instead of holding the request behind it.
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: Math.max(commandTimeoutMs, 1000),
    keepAlive: 5000,
  });
  const subscriber = client.duplicate();
  // Without a listener ioredis prints every failed connect and reconnect to stderr.
  for (const connection of [client, subscriber]) connection.on('error', () => {});
  await client.connect().catch((error) => log.warn({ err: error }, `Redis is unreachable; ${fallback}`));
  await subscriber.connect().catch(() => undefined);
  await bus
    .connectRemote({ redis: { publisher: client, subscriber } }, log)
    .catch((error) => log.warn({ err: error }, 'could not subscribe to Redis invalidations'));
  return {
    client,
    disconnect() {
      subscriber.disconnect();
      client.disconnect();
    },
  };
}
