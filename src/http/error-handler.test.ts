import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../../test/support/databases.js';
import { installErrorHandlers } from './error-handler.js';

/**
 * The safety net behind the validation layer: text the database refuses is the client's error.
 * A bare app whose one route hands its query parameter to the database unchecked stands in for
 * a route that forgot a check.
 */
for (const kind of DATABASE_KINDS) {
  describe(`database errors caused by the request's text [${kind}]`, () => {
    let database: TestDatabase;
    let app: FastifyInstance;

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      app = Fastify();
      installErrorHandlers(app, () => []);
      app.get<{ Querystring: { value: string; as: string } }>('/unchecked', async (request) => {
        const { value, as } = request.query;
        const queries: Record<string, () => Promise<unknown>> = {
          text: () => sql`select ${value}::text as v`.execute(database.db),
          jsonb: () => sql`select (${value}::jsonb) #>> '{}' as v`.execute(database.db),
          uuid: () => sql`select ${value}::uuid as v`.execute(database.db),
          divide: () => sql`select 1 / ${Number(value)}::int as v`.execute(database.db),
        };
        await queries[as]!();
        return { ok: true };
      });
      await app.ready();
    });

    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    const send = (as: string, value: string) =>
      app.inject({ method: 'GET', url: `/unchecked?${new URLSearchParams({ as, value }).toString()}` });

    it.each([
      ['a NUL character (22021)', 'text', 'a\u0000b'],
      ['a \\u0000 escape in JSON text (22P05)', 'jsonb', '"a\\u0000b"'],
      ['text that is no uuid (22P02)', 'uuid', 'not-a-uuid'],
    ])('answers %s with 400 invalid_request', async (_name, as, value) => {
      const response = await send(as, value);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('cannot be stored') });
    });

    it('still answers other database errors with 500, and clean text with 200', async () => {
      expect((await send('divide', '0')).statusCode).toBe(500);
      expect((await send('text', 'fine')).statusCode).toBe(200);
    });
  });
}
