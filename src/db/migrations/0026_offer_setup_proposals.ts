import { sql, type Kysely } from 'kysely';

/**
 * What store setup proposes for a brand's offer (title, subtitle and image from its best sellers),
 * kept beside the offer: setup fills only an offer that was never written, so when the brand's
 * staff wrote one first the proposal waits here for the dashboard to show (issue 27).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table offers add column setup_proposal jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table offers drop column if exists setup_proposal`.execute(db);
}
