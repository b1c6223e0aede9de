import { sql, type Kysely } from 'kysely';

/**
 * Match scores between brands, computed by the matching engine, and the queue of brands whose
 * scores must be recomputed. Triggers fill the queue whenever a profile or a partnership changes,
 * so every writer (API, dashboard, fixtures, support) gets re-scoring without remembering to ask.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table recommendation_scores (
      company_id text not null references companies (id) on delete cascade,
      candidate_id text not null references companies (id) on delete cascade,
      match_rate integer not null check (match_rate between 0 and 100),
      scored_at timestamptz not null default now(),
      primary key (company_id, candidate_id)
    )`.execute(db);
  await sql`create index recommendation_scores_rank_idx on recommendation_scores (company_id, match_rate desc, candidate_id)`.execute(db);

  await sql`
    create table scoring_queue (
      company_id text primary key references companies (id) on delete cascade,
      queued_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create function queue_company_scoring() returns trigger language plpgsql as $$
    begin
      insert into scoring_queue (company_id) values (new.id) on conflict (company_id) do nothing;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger companies_queue_scoring
      after insert or update of business_size, country, categories, product_count, commerce_platform
      on companies for each row execute function queue_company_scoring()`.execute(db);

  await sql`
    create function queue_partnership_scoring() returns trigger language plpgsql as $$
    begin
      insert into scoring_queue (company_id) values (new.requester_id), (new.recipient_id)
        on conflict (company_id) do nothing;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger partnerships_queue_scoring
      after insert or update of status on partnerships
      for each row execute function queue_partnership_scoring()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists partnerships_queue_scoring on partnerships`.execute(db);
  await sql`drop trigger if exists companies_queue_scoring on companies`.execute(db);
  await sql`drop function if exists queue_partnership_scoring()`.execute(db);
  await sql`drop function if exists queue_company_scoring()`.execute(db);
  await sql`drop table if exists scoring_queue`.execute(db);
  await sql`drop table if exists recommendation_scores`.execute(db);
}
