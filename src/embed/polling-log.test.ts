import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.js';
import { testConfig } from '../../test/support/harness.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.js';
import { createPlatform } from '../../test/support/factories.js';
import { injectTransport, StoreOwner } from '../../test/support/sandbox-owner.js';

const HOST = 'http://localhost:80';

interface LogLine {
  msg: string;
  reqId?: string;
  stage?: string;
  req?: { url: string };
  res?: { statusCode: number; error?: string };
}

describe("the embed app's polling in the log", () => {
  let database: TestDatabase;
  let app: App;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as LogLine);
        done();
      },
    });
    app = await buildApp({ config: testConfig({ LOG_LEVEL: 'info' }), database, logStream });
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const poll = (platformId: string, domain: string) =>
    app.inject({
      method: 'POST',
      url: '/plugin/v2/state',
      headers: {
        origin: HOST,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/json',
        'x-request-id': `poll-${lines.length}`,
      },
      payload: JSON.stringify({ platformId, domain }),
    });

  it('writes one line when the answered stage changes, none per poll, and every failed poll', async () => {
    const { platformId } = await createPlatform({ db: database.db, bus: app.runtime.bus, serviceEnv: 'test' }, { approvedOrigins: [HOST] });
    const domain = 'polled-shop.example';
    const before = lines.length;
    for (let i = 0; i < 3; i += 1) expect((await poll(platformId, domain)).json()).toMatchObject({ kind: 'stage', stage: 'install' });
    expect((await (await StoreOwner.signIn(injectTransport(app), domain)).post('install')).status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await poll(platformId, domain)).json()).toMatchObject({ kind: 'stage', stage: 'plan' });

    const polls = lines.slice(before).filter((line) => line.req?.url === '/plugin/v2/state' || line.stage !== undefined);
    expect(polls.map((line) => [line.msg, line.stage])).toEqual([
      [`plugin: ${domain} is at install`, 'install'],
      [`plugin: ${domain} is at plan`, 'plan'],
    ]);
    expect(lines.slice(before).filter((line) => line.msg === 'request completed' && line.reqId?.startsWith('poll-'))).toEqual([]);

    const refused = await poll(platformId, 'not a domain');
    expect(refused.statusCode).toBe(400);
    const refusedLines = lines.filter((line) => line.reqId === refused.headers['x-request-id']);
    expect(refusedLines.map((line) => [line.msg, line.res])).toEqual([
      ['request completed', { statusCode: 400, error: 'invalid_request' }],
    ]);
  });
});
