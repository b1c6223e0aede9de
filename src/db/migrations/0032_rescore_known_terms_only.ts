import { sql, type Kysely } from 'kysely';

/**
 * The match rate counts only what two brands are known to share (issue 27): a factor either side
 * has not filled in gives nothing instead of half its weight. Every stored score was computed the
 * old way, so every brand goes back on the scoring queue; the scorer rewrites them in the
 * background, and the old rates are served until it has.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`insert into scoring_queue (company_id) select id from companies on conflict (company_id) do nothing`.execute(db);
}

/** The older scorer rescores whatever is queued; nothing to undo in the schema. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`insert into scoring_queue (company_id) select id from companies on conflict (company_id) do nothing`.execute(db);
}
