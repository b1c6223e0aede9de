import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../../test/support/databases.js';
import { startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { DashboardClient, DASHBOARD_PASSWORD } from '../../test/support/dashboard-client.js';
import { waitUntil } from '../../test/support/service-process.js';
import { createBrandUser } from './users.js';

/**
 * Issue 44 (low): the sign-up answered alike, then looked the address up; a free address's row
 * and link took longer than a taken address's warning, and on PGlite, whose one connection the
 * work held, the next request waited that much longer: a probe right after told free from taken.
 * Now both do the same statements, in the same order, before the answer, and only the one mail
 * after it. The statements are those each sign-up itself runs (its async context), not the
 * service's periodic jobs.
 */
for (const kind of DATABASE_KINDS) {
  describe(`sign-up's work for a free and a taken address [${kind}]`, () => {
    const signUp = new AsyncLocalStorage<string[]>();
    let context: TestContext;

    beforeAll(async () => {
      context = await startTestApp(kind, {}, { onQuery: (text) => signUp.getStore()?.push(text) });
    });
    afterAll(async () => {
      await stopTestApp(context);
    });

    /** The statements a sign-up ran before its answer, and all of them once its mail was written. */
    async function statementsOf(body: Record<string, unknown>) {
      const visitor = await new DashboardClient(context.app).start();
      const statements: string[] = [];
      const answer = await signUp.run(statements, () => visitor.post('/dashboard/api/sign-up', body));
      expect(answer.statusCode).toBe(202);
      const beforeAnswer = [...statements];
      await waitUntil(async () => statements.some((text) => /insert into "mail_outbox"/.test(text)), 30_000, 10);
      // The outbox's trim runs just after its insert.
      await waitUntil(async () => /delete from "mail_outbox"/.test(statements.at(-1) ?? ''), 30_000, 10);
      return { beforeAnswer, all: statements };
    }

    it('runs the same statements for either, the lookup inside the write before the answer, only the mail after it', async () => {
      const { companyId } = await createBrand(context.support);
      const taken = `${uniqueId('taken')}@alike.example`;
      await createBrandUser({ db: context.db }, companyId, { email: taken, password: DASHBOARD_PASSWORD });
      const free = taken.replace(/^taken/, 'frees');
      for (const rest of [
        { brand: { businessName: 'Alike Goods', domain: `${uniqueId('alike')}.example` } },
        { brand: { businessName: 'Alike Goods', domain: `${uniqueId('alike')}.example`, categories: ['home'] } },
      ]) {
        const forTaken = await statementsOf({ email: taken, ...rest });
        const forFree = await statementsOf({ email: free, ...rest });
        expect(forFree.all).toEqual(forTaken.all);
        for (const run of [forTaken, forFree]) {
          // The address is looked up inside the insert, before the answer, whatever it finds.
          expect(run.beforeAnswer.filter((text) => /^insert into "sign_up_requests"/.test(text))).toHaveLength(1);
          expect(run.beforeAnswer.some((text) => /not exists \(select "id" from "brand_users"/.test(text))).toBe(true);
          expect(run.all.slice(0, run.beforeAnswer.length)).toEqual(run.beforeAnswer);
          // After the answer, only the mail goes.
          expect(run.all.slice(run.beforeAnswer.length).every((text) => /"mail_outbox"/.test(text))).toBe(true);
        }
      }
      const waiting = await context.db.selectFrom('sign_up_requests').select('email').where('email', 'in', [taken, free]).execute();
      expect(waiting.map((row) => row.email)).toEqual([free, free]);
    });
  });
}
