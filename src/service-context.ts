import type { Db } from './db/database.js';
import type { InvalidationTopic } from './cache/invalidation.js';
import type { ServiceEnv } from './config.js';

/** Where a change is announced: the invalidation bus, or a transaction that announces its changes once committed. */
export interface Publisher {
  publish(topic: InvalidationTopic): Promise<void>;
}

/** What a domain's service writes with: the database (or a transaction of it) and where it announces what it changed. */
export interface DataContext {
  db: Db;
  bus: Publisher;
}

/**
 * A DataContext and the host's environment, which key issuing needs. The admin API, the CLI, the
 * fixture loader and the test factories all hand this context to the services.
 */
export interface ServiceContext extends DataContext {
  serviceEnv: ServiceEnv;
}

/**
 * Runs `work` in one transaction whose invalidations go out once it has committed, and not at all
 * when it rolls back: a cache reloaded between the write and the commit would otherwise keep the
 * old rows. Called inside a transaction already, `work` joins it.
 */
export async function inTransaction<C extends DataContext, T>(ctx: C, work: (tx: C) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx);
  const topics = new Set<InvalidationTopic>();
  const deferred: Publisher = {
    publish: async (topic) => {
      topics.add(topic);
    },
  };
  const result = await ctx.db.transaction().execute((trx) => work({ ...ctx, db: trx, bus: deferred }));
  for (const topic of topics) await ctx.bus.publish(topic);
  return result;
}
