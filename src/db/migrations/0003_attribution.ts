import { sql, type Kysely } from 'kysely';

/**
 * Referral links and the daily attribution counters (views, clicks, orders) credited to the
 * platform that displayed an offer. Counters keep no foreign keys: they are the billing history
 * of a platform and must outlive a deleted campaign or brand. A key's count is the sum over its
 * shards: concurrent group-commit writes each add to their own shard row, never waiting on each
 * other's row locks.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table referral_links (
      token text primary key,
      platform_id uuid not null references platforms (id) on delete cascade,
      campaign_id text not null references campaigns (id) on delete cascade,
      brand_id text not null references companies (id) on delete cascade,
      partner_id text not null references companies (id) on delete cascade,
      created_at timestamptz not null default now(),
      unique (platform_id, campaign_id, brand_id, partner_id)
    )`.execute(db);

  await sql`
    create table attribution_counters (
      platform_id uuid not null,
      day date not null,
      campaign_id text not null,
      brand_id text not null,
      partner_id text not null,
      shard smallint not null default 0,
      views bigint not null default 0 check (views >= 0),
      clicks bigint not null default 0 check (clicks >= 0),
      orders bigint not null default 0 check (orders >= 0),
      primary key (platform_id, day, campaign_id, brand_id, partner_id, shard)
    )`.execute(db);
  // Ranking offers by click-through reads a partner's recent counters across all showings.
  await sql`create index attribution_counters_partner_idx on attribution_counters (partner_id, day) include (views, clicks)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists attribution_counters`.execute(db);
  await sql`drop table if exists referral_links`.execute(db);
}
