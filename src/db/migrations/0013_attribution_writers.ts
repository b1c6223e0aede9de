import { sql, type Kysely } from 'kysely';

/**
 * One row per group-commit writer (one per process and write slot): the number of its last batch
 * written or fenced off. Each counter write moves it on in the same statement, so after a write
 * whose answer never came back the writer can find out whether it took effect, take it back if
 * it did, and keep it from taking effect later if it did not (src/attribution/counter-writer.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table attribution_writers (
      writer_id uuid primary key,
      last_batch bigint not null,
      written_at timestamptz not null default now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists attribution_writers`.execute(db);
}
