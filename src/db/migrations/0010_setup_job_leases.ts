import { sql, type Kysely } from 'kysely';

/**
 * Each claim of a setup job gets its own lease id. A worker writes the job's next step only
 * while it still holds that lease, so a worker that lost its lease (paused, cut off from the
 * database) cannot overwrite the progress of the worker that took the job over.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table setup_jobs add column lease_id uuid`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table setup_jobs drop column if exists lease_id`.execute(db);
}
