import { sql, type Kysely } from 'kysely';

/**
 * Proof of store ownership before an account acts for a brand (a staff account may exist without
 * a brand while its claim waits for the store owner), the development mailbox, the offer each
 * side shows in one campaign, and the sandbox commerce platform's side of all three: store owner
 * sign-in, ownership confirmations, storefront orders and their webhook delivery.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table brand_users alter column company_id drop not null`.execute(db);

  await sql`
    create table brand_claims (
      id uuid primary key default gen_random_uuid(),
      user_id uuid not null references brand_users (id) on delete cascade,
      domain text not null check (char_length(domain) between 1 and 100),
      business_name text not null check (char_length(business_name) between 1 and 100),
      categories text[] not null default '{}',
      status text not null default 'pending' check (status in ('pending', 'verified', 'declined', 'refused')),
      confirm_url text,
      created_at timestamptz not null default now(),
      decided_at timestamptz
    )`.execute(db);
  // One open claim per account: a new one replaces it.
  await sql`create unique index brand_claims_pending_idx on brand_claims (user_id) where status = 'pending'`.execute(db);

  // Only written when no SMTP server is configured, which the configuration allows outside prod only.
  await sql`
    create table mail_outbox (
      id bigint generated always as identity primary key,
      recipient text not null,
      subject text not null,
      body text not null,
      created_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table campaign_offers (
      campaign_id text not null references campaigns (id) on delete cascade,
      company_id text not null references companies (id) on delete cascade,
      title text not null check (char_length(title) between 1 and 80),
      subtitle text check (char_length(subtitle) <= 120),
      image_url text not null check (char_length(image_url) <= 2000),
      include_discount boolean not null,
      updated_at timestamptz not null default now(),
      primary key (campaign_id, company_id)
    )`.execute(db);

  await sql`
    create table sandbox_store_owners (
      domain text primary key references sandbox_stores (domain) on delete cascade,
      email text not null,
      password_hash text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table sandbox_owner_sessions (
      token_hash text primary key,
      domain text not null references sandbox_stores (domain) on delete cascade,
      expires_at timestamptz not null
    )`.execute(db);
  await sql`
    create table sandbox_ownership_requests (
      id uuid primary key,
      domain text not null references sandbox_stores (domain) on delete cascade,
      requested_by text not null,
      return_to text not null,
      status text not null default 'pending' check (status in ('pending', 'confirmed', 'declined')),
      created_at timestamptz not null default now(),
      decided_at timestamptz
    )`.execute(db);

  await sql`alter table sandbox_stores add column orders_webhook_since timestamptz`.execute(db);
  await sql`
    alter table sandbox_orders
      add column customer_email text,
      add column discount_code text,
      add column referral_token text,
      add column webhook_status integer`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table sandbox_orders
      drop column if exists webhook_status,
      drop column if exists referral_token,
      drop column if exists discount_code,
      drop column if exists customer_email`.execute(db);
  await sql`alter table sandbox_stores drop column if exists orders_webhook_since`.execute(db);
  for (const table of [
    'sandbox_ownership_requests',
    'sandbox_owner_sessions',
    'sandbox_store_owners',
    'campaign_offers',
    'mail_outbox',
    'brand_claims',
  ]) {
    await sql`drop table if exists ${sql.table(table)} cascade`.execute(db);
  }
  await sql`delete from brand_users where company_id is null`.execute(db);
  await sql`alter table brand_users alter column company_id set not null`.execute(db);
}
