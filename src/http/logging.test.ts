import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { prettyFactory } from 'pino-pretty';
import { logFormatFor, loggerOptions, PRETTY_OPTIONS, processLogger, redactUrl } from './logging.js';

describe('log format', () => {
  it('writes readable lines to a terminal and JSON to anything else (a pipe, a file, the tests, CI)', () => {
    expect(logFormatFor({ isTTY: true })).toBe('pretty');
    expect(logFormatFor({ isTTY: false })).toBe('json');
    expect(logFormatFor({})).toBe('json');
    expect(loggerOptions('info', 'json')).not.toHaveProperty('stream');
    expect(loggerOptions('info', 'pretty')).toHaveProperty('stream');
  });

  it('shows a request in and its answer as one short line each with the request id, without process ids or JSON', () => {
    const format = prettyFactory({ ...PRETTY_OPTIONS, colorize: false });
    const time = Date.UTC(2025, 10, 2, 14, 31, 7);
    const base = { level: 30, time, pid: 4242, hostname: 'shop-host', reqId: 'req-1' };
    const incoming = format({ ...base, msg: 'incoming request', req: { method: 'GET', url: '/v1/partners?status=active', id: 'req-1' } });
    const completed = format({ ...base, msg: 'request completed', res: { statusCode: 200 }, responseTime: 3.6 });
    const failed = format({ ...base, msg: 'request completed', res: { statusCode: 404, error: 'not_found' }, responseTime: 1.2 });
    expect(incoming).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: → GET \/v1\/partners\?status=active req=req-1\n$/);
    expect(completed).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: ← 200 4 ms req=req-1\n$/);
    expect(failed).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: ← 404 not_found 1 ms req=req-1\n$/);
    for (const line of [incoming, completed, failed]) {
      expect(line).not.toMatch(/[{}]|4242|shop-host/);
    }
  });

  it('redacts one-time values in request lines and keeps the rest', () => {
    const R = '[REDACTED]';
    expect(redactUrl('/cb?state=s1&code=c1&shop=a.example&status=active')).toBe(
      '/cb?state=%5BREDACTED%5D&code=%5BREDACTED%5D&shop=a.example&status=active',
    );
    const redacted = redactUrl('/x?challenge=c&nonce=n&signature=s&sig=g&client_secret=z&statementMonth=2025-10');
    expect(new URLSearchParams(redacted.split('?')[1])).toEqual(
      new URLSearchParams({ challenge: R, nonce: R, signature: R, sig: R, client_secret: R, statementMonth: '2025-10' }),
    );
    expect(redactUrl('/v1/partners')).toBe('/v1/partners');
  });

  it('keeps other messages and their fields on one line', () => {
    const format = prettyFactory({ ...PRETTY_OPTIONS, colorize: false });
    const line = format({ level: 50, time: Date.now(), pid: 1, hostname: 'h', msg: 'could not record offer views', platformId: 'p-1' });
    expect(line).toMatch(/ERROR: could not record offer views \{"platformId":"p-1"\}\n$/);
    expect(line.trimEnd().split('\n')).toHaveLength(1);
  });

  it('gives the worker the same lines: readable in a terminal, JSON elsewhere, credentials redacted in both', () => {
    const written: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString());
        done();
      },
    });
    const headers = { authorization: 'Bearer svc_at_secret', 'x-api-key': 'svc_live_secret' };

    processLogger('worker', 'info', 'pretty', sink).info({ headers }, 'worker started: scoring, sealer');
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO \(worker\): worker started: scoring, sealer /);
    expect(written[0]).not.toContain('svc_');

    written.length = 0;
    processLogger('worker', 'info', 'json', sink).info({ headers }, 'worker started: scoring, sealer');
    const line = JSON.parse(written[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ name: 'worker', msg: 'worker started: scoring, sealer' });
    expect(line.headers).toEqual({ authorization: '[REDACTED]', 'x-api-key': '[REDACTED]' });

    processLogger('worker', 'warn', 'json', sink).info('not at warn');
    expect(written).toHaveLength(1);
  });
});
