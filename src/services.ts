import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { InvalidationBus } from './cache/invalidation.js';
import type { Authenticator } from './auth/authenticator.js';
import type { UsageRecorder } from './auth/usage-recorder.js';

/** What every domain is given: configuration, storage and the shared layers. */
export interface Services {
  config: Config;
  db: Db;
  dbKind: 'postgres' | 'pglite';
  bus: InvalidationBus;
  auth: Authenticator;
  usage: UsageRecorder;
  redis: Redis | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
