import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeOnBothEngines } from '../../test/support/harness.js';
import { uniqueId } from '../../test/support/factories.js';
import { waitUntil } from '../../test/support/service-process.js';
import { insertCompanies, settleScores } from '../../test/support/bulk-seeds.js';
import { claimQueuedBrands } from './dal.js';
import { drainScoringQueue } from './scorer.js';

describeOnBothEngines('recommendation scorer', (use) => {
  const scoresAmong = async (ids: string[]) =>
    (
      await use()
        .db.selectFrom('recommendation_scores')
        .select(['company_id', 'candidate_id', 'match_rate'])
        .where('company_id', 'in', ids)
        .where('candidate_id', 'in', ids)
        .execute()
    ).sort((x, y) => `${x.company_id}>${x.candidate_id}`.localeCompare(`${y.company_id}>${y.candidate_id}`));
  const queued = async () => (await use().db.selectFrom('scoring_queue').select('company_id').execute()).map((row) => row.company_id);

  it('scores a new brand against every brand in both directions and empties the queue', async () => {
    const ids = [uniqueId('s1'), uniqueId('s2'), uniqueId('s3')];
    await insertCompanies(
      use().db,
      ids.map((id) => ({ id })),
    );
    await settleScores(use().db);
    expect(await queued()).toEqual([]);
    const expected = ids.flatMap((a) => ids.filter((b) => b !== a).map((b) => ({ company_id: a, candidate_id: b, match_rate: 0 })));
    expect(await scoresAmong(ids)).toEqual(
      expected.sort((x, y) => `${x.company_id}>${x.candidate_id}`.localeCompare(`${y.company_id}>${y.candidate_id}`)),
    );
  });

  it('lets several workers share the queue without scoring a brand twice or losing one', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => uniqueId(`w${i}`));
    await insertCompanies(
      use().db,
      ids.map((id) => ({ id })),
    );
    await sql`update companies set country = 'Germany' where id = any(${ids}::text[])`.execute(use().db);
    const counts = await Promise.all([drainScoringQueue(use().db), drainScoringQueue(use().db), drainScoringQueue(use().db)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(ids.length);
    await settleScores(use().db);
    const scores = await scoresAmong(ids);
    expect(scores).toHaveLength(ids.length * (ids.length - 1));
    // Country matches (25); every other factor is unknown on both sides and gives nothing.
    expect(scores.every((row) => row.match_rate === 25)).toBe(true);
  });

  it('scores the newer profile when it changes while the brand is in a batch being scored', async () => {
    const [id, buddy] = [uniqueId('race'), uniqueId('buddy')];
    await insertCompanies(use().db, [{ id }, { id: buddy }]);
    await sql`update companies set country = 'France' where id = ${buddy}`.execute(use().db);
    await settleScores(use().db);
    let profileChange: Promise<unknown> | undefined;
    await use()
      .db.transaction()
      .execute(async (trx) => {
        await sql`insert into scoring_queue (company_id) values (${id})`.execute(trx);
        expect(await claimQueuedBrands(trx, 1000)).toContain(id);
        // Another writer changes the profile while the batch is open; its trigger waits for this batch.
        profileChange = use().db.updateTable('companies').set({ country: 'France' }).where('id', '=', id).execute();
        // On PostgreSQL the batch commits only once the change is seen waiting for it. PGlite has one
        // connection, which the change waits for: there it comes after the batch.
        if (use().kind === 'postgres') {
          await waitUntil(
            async () =>
              (
                await sql<{
                  n: number;
                }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(
                  use().db,
                )
              ).rows[0]!.n > 0,
            60_000,
          );
        }
      });
    await profileChange;
    await settleScores(use().db);
    expect(await scoresAmong([id, buddy])).toEqual(
      [
        { company_id: buddy, candidate_id: id, match_rate: 25 },
        { company_id: id, candidate_id: buddy, match_rate: 25 },
      ].sort((x, y) => `${x.company_id}>${x.candidate_id}`.localeCompare(`${y.company_id}>${y.candidate_id}`)),
    );
  });
});
