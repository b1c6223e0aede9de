import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { processLogger } from '../http/logging.js';
import { DrainingWorker } from './draining-worker.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.js';
import { InvalidationBus } from '../cache/invalidation.js';
import type { CommerceAdapter } from '../commerce/adapter.js';
import { SetupWorker } from '../embed/setup-worker.js';
import * as dal from '../embed/dal.js';

interface LogLine {
  level: number;
  msg: string;
  err?: unknown;
  reason?: string;
  retryInMs?: number;
}

function capturingLogger(): { log: FastifyBaseLogger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as LogLine);
      done();
    },
  });
  return { log: processLogger('worker', 'info', 'json', sink) as unknown as FastifyBaseLogger, lines };
}

const WARN = 40;

class FailingWorker extends DrainingWorker {
  constructor(
    log: FastifyBaseLogger,
    private readonly failure: Error,
  ) {
    super({ pollMs: 1000, log, claimFailure: 'test worker could not claim a job' });
  }

  async runOnce(): Promise<boolean> {
    throw this.failure;
  }
}

describe('expected retries in the log', () => {
  it('a worker that cannot reach the database writes one warning line with the reason, no stack trace', async () => {
    const { log, lines } = capturingLogger();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(await new FailingWorker(log, refused).drain()).toBe(0);
    expect(lines).toEqual([
      expect.objectContaining({
        level: WARN,
        msg: 'test worker could not claim a job: the database is unavailable; will retry',
        reason: 'connect ECONNREFUSED 127.0.0.1:5432',
        retryInMs: 1000,
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('err');

    lines.length = 0;
    await new FailingWorker(log, new TypeError('x is not a function')).drain();
    expect(lines[0]).toMatchObject({ level: 50, msg: 'test worker could not claim a job', err: { type: 'TypeError' } });
  });

  describe('store setup', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase('postgres');
    });
    afterAll(async () => {
      await database.close();
    });

    it('a failed step that will be retried writes one warning line with the reason, no stack trace', async () => {
      const { log, lines } = capturingLogger();
      // The commerce platform, briefly away while the store is still installed.
      const platformAway = {
        status: async () => ({ installation: 'installed', planApproved: true }),
        profile: async () => {
          throw new Error('the store platform answered 503');
        },
      } as unknown as CommerceAdapter;
      const worker = new SetupWorker({
        db: database.db,
        adapter: platformAway,
        bus: new InvalidationBus(),
        log,
        pollMs: 1000,
        retryMs: 500,
        leaseMs: 60_000,
      });
      await dal.ensureSetupJob(database.db, 'away.example', new Date());
      expect(await worker.runOnce()).toBe(true);
      const retry = lines.find((line) => line.msg === 'store setup step failed; will retry');
      expect(retry).toMatchObject({ level: WARN, reason: 'the store platform answered 503', retryInMs: 500 });
      expect(retry).not.toHaveProperty('err');
    });
  });
});
