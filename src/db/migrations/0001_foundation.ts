import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table platforms (
      id uuid primary key,
      name text not null,
      active boolean not null default true,
      offer_types text[] not null default '{post-purchase}',
      approved_origins text[] not null default '{}',
      plugin_page_url text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table platform_keys (
      id uuid primary key default gen_random_uuid(),
      platform_id uuid not null references platforms (id) on delete cascade,
      key_hash text not null unique,
      key_last_four text not null,
      environment text not null check (environment in ('test', 'live')),
      expires_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz not null default now(),
      last_used_at timestamptz
    )`.execute(db);
  await sql`create index platform_keys_platform_idx on platform_keys (platform_id)`.execute(db);

  await sql`
    create table platform_brands (
      platform_id uuid not null references platforms (id) on delete cascade,
      domain text not null check (char_length(domain) between 1 and 100),
      business_name text check (char_length(business_name) <= 100),
      status text not null check (status in ('active', 'closed')),
      end_date timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (platform_id, domain),
      check ((status = 'closed') = (end_date is not null))
    )`.execute(db);

  await sql`
    create table companies (
      id text primary key,
      domain text unique,
      business_name text,
      logo_image_url text,
      description text,
      business_size text,
      country text,
      categories text[] not null default '{}',
      product_count integer,
      commerce_platform text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table brand_api_keys (
      id uuid primary key default gen_random_uuid(),
      company_id text not null references companies (id) on delete cascade,
      name text not null,
      key_hash text not null unique,
      key_last_four text not null,
      environment text not null check (environment in ('test', 'live')),
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index brand_api_keys_company_idx on brand_api_keys (company_id)`.execute(db);

  await sql`
    create table platform_companies (
      platform_id uuid not null references platforms (id) on delete cascade,
      company_id text not null references companies (id) on delete cascade,
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      primary key (platform_id, company_id)
    )`.execute(db);

  await sql`
    create table partnerships (
      id uuid primary key default gen_random_uuid(),
      requester_id text not null references companies (id) on delete cascade,
      recipient_id text not null references companies (id) on delete cascade,
      status text not null check (status in ('pending', 'active', 'declined', 'removed')),
      message text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (requester_id <> recipient_id)
    )`.execute(db);
  // At most one open (pending or active) partnership per pair of brands, whichever side asked.
  await sql`
    create unique index partnerships_open_pair_idx
      on partnerships (least(requester_id, recipient_id), greatest(requester_id, recipient_id))
      where status in ('pending', 'active')`.execute(db);
  await sql`create index partnerships_requester_idx on partnerships (requester_id, status, created_at, id)`.execute(db);
  await sql`create index partnerships_recipient_idx on partnerships (recipient_id, status, created_at, id)`.execute(db);

  await sql`
    create table campaigns (
      id text primary key,
      partnership_id uuid references partnerships (id) on delete set null,
      owner_id text not null references companies (id) on delete cascade,
      partner_id text not null references companies (id) on delete cascade,
      name text,
      status text not null check (status in ('draft', 'scheduled', 'active', 'closed')),
      start_date timestamptz,
      end_date timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (owner_id <> partner_id)
    )`.execute(db);
  await sql`create index campaigns_owner_idx on campaigns (owner_id, created_at, id)`.execute(db);
  await sql`create index campaigns_partner_idx on campaigns (partner_id, created_at, id)`.execute(db);

  await sql`
    create table offers (
      company_id text primary key references companies (id) on delete cascade,
      title text not null,
      subtitle text,
      image_url text not null,
      discount_percent integer check (discount_percent in (10, 15, 20, 25)),
      discount_code text,
      live boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table oauth_clients (
      client_id text primary key,
      name text not null,
      secret_hash text,
      redirect_uris text[] not null,
      created_at timestamptz not null default now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'oauth_clients',
    'offers',
    'campaigns',
    'partnerships',
    'platform_companies',
    'brand_api_keys',
    'companies',
    'platform_brands',
    'platform_keys',
    'platforms',
  ]) {
    await sql`drop table if exists ${sql.table(table)} cascade`.execute(db);
  }
}
