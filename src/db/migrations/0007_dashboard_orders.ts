import { sql, type Kysely } from 'kysely';

/**
 * The brand dashboard (invitations to join a brand, password resets) and order intake: every
 * order the commerce platform delivers, credited to the platform that displayed the offer, and
 * each store's known customers, so only a new customer's first order carries the commission.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Secrets are stored as hashes only; a code or token works once and expires.
  await sql`
    create table brand_invitations (
      code_hash text primary key,
      company_id text not null references companies (id) on delete cascade,
      created_by uuid not null references brand_users (id) on delete cascade,
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table password_resets (
      token_hash text primary key,
      user_id uuid not null references brand_users (id) on delete cascade,
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);

  // Orders keep no foreign keys to campaigns or brands: like the counters, they are billing history.
  await sql`
    create table attributed_orders (
      store_domain text not null,
      order_id text not null,
      customer_ref text not null,
      total_cents bigint not null check (total_cents >= 0),
      currency text not null,
      placed_at timestamptz not null,
      platform_id uuid,
      campaign_id text,
      brand_id text,
      partner_id text,
      matched_by text check (matched_by in ('referral_link', 'discount_code')),
      new_customer boolean not null,
      commission_cents bigint not null default 0 check (commission_cents >= 0),
      received_at timestamptz not null default now(),
      primary key (store_domain, order_id)
    )`.execute(db);
  await sql`create index attributed_orders_brand_idx on attributed_orders (brand_id, placed_at) where platform_id is not null`.execute(db);
  await sql`create index attributed_orders_partner_idx on attributed_orders (partner_id, placed_at) where platform_id is not null`.execute(
    db,
  );
  await sql`
    create table store_customers (
      store_domain text not null,
      customer_ref text not null,
      first_order_id text not null,
      primary key (store_domain, customer_ref)
    )`.execute(db);

  // The performance page reads a showing brand's counters by day; the partner side has its index already.
  await sql`create index attribution_counters_brand_idx on attribution_counters (brand_id, day)
            include (platform_id, partner_id, views, clicks, orders)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists attribution_counters_brand_idx`.execute(db);
  await sql`drop table if exists store_customers`.execute(db);
  await sql`drop table if exists attributed_orders`.execute(db);
  await sql`drop table if exists password_resets`.execute(db);
  await sql`drop table if exists brand_invitations`.execute(db);
}
