import { sql, type Kysely } from 'kysely';

/**
 * The sandbox commerce platform (stores, catalog, orders, discount codes: what a real platform
 * would hold on its side) and the service's own record of each merchant onboarding through the
 * plugin: the durable setup job and the merchant's consent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sandbox_stores (
      domain text primary key,
      business_name text not null,
      tagline text,
      logo_image_url text,
      category text,
      country text,
      app_status text not null default 'not_installed' check (app_status in ('not_installed', 'installed', 'uninstalled')),
      plan_approved_at timestamptz,
      welcome_discount_percent integer check (welcome_discount_percent in (10, 15, 20, 25)),
      import_failures_left integer not null default 0 check (import_failures_left >= 0),
      created_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table sandbox_products (
      store_domain text not null references sandbox_stores (domain) on delete cascade,
      id text not null,
      title text not null,
      image_url text,
      price_cents integer not null check (price_cents >= 0),
      status text not null check (status in ('active', 'draft')),
      primary key (store_domain, id)
    )`.execute(db);

  await sql`
    create table sandbox_orders (
      store_domain text not null references sandbox_stores (domain) on delete cascade,
      id text not null,
      product_id text not null,
      quantity integer not null check (quantity > 0),
      total_cents integer not null check (total_cents >= 0),
      placed_at timestamptz not null,
      primary key (store_domain, id)
    )`.execute(db);

  await sql`
    create table sandbox_discount_codes (
      store_domain text not null references sandbox_stores (domain) on delete cascade,
      code text not null,
      percent integer not null check (percent in (10, 15, 20, 25)),
      once_per_customer boolean not null,
      created_at timestamptz not null default now(),
      primary key (store_domain, code)
    )`.execute(db);

  // One setup per store; a row is claimed with a lease so a crashed worker's job is picked up again.
  await sql`
    create table setup_jobs (
      domain text primary key,
      status text not null default 'pending' check (status in ('pending', 'done')),
      step text not null default 'import' check (step in ('import', 'offer', 'match', 'done')),
      attempts integer not null default 0,
      started_at timestamptz not null default now(),
      next_attempt_at timestamptz not null default now(),
      locked_until timestamptz,
      last_error text,
      completed_at timestamptz
    )`.execute(db);
  await sql`create index setup_jobs_due_idx on setup_jobs (next_attempt_at) where status = 'pending'`.execute(db);

  await sql`
    create table merchant_stores (
      domain text primary key,
      company_id text references companies (id) on delete set null,
      best_sellers jsonb not null default '[]',
      existing_discount_percent integer check (existing_discount_percent in (10, 15, 20, 25)),
      consented_at timestamptz,
      discount_percent integer check (discount_percent in (10, 15, 20, 25)),
      discount_code text,
      turned_off_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check ((consented_at is null) = (discount_code is null))
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['merchant_stores', 'setup_jobs', 'sandbox_discount_codes', 'sandbox_orders', 'sandbox_products', 'sandbox_stores']) {
    await sql`drop table if exists ${sql.table(table)} cascade`.execute(db);
  }
}
