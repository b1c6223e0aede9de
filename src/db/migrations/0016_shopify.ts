import { sql, type Kysely } from 'kysely';

/**
 * Shopify, the first real commerce platform (docs/shopify.md): the stores that installed the app
 * (offline access token encrypted at rest, subscription state), the OAuth requests in flight (each
 * callback taken once), webhook deliveries (deduplicated by Shopify's webhook id and worked off as
 * durable jobs with leases, like setup_jobs) and the usage records charged (one per idempotency key).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table shopify_shops (
      shop text primary key,
      access_token_encrypted text,
      scopes text,
      installed_at timestamptz,
      uninstalled_at timestamptz,
      disconnected_at timestamptz,
      subscription_id text,
      subscription_status text,
      plan_approved_at timestamptz,
      usage_line_item_id text,
      usage_currency text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table shopify_oauth_requests (
      state_hash text primary key,
      shop text not null,
      challenge text,
      return_to text,
      claim_id uuid,
      created_at timestamptz not null
    )`.execute(db);
  await sql`create index shopify_oauth_requests_created on shopify_oauth_requests (created_at)`.execute(db);
  await sql`
    create table shopify_ownership_confirmations (
      claim_id uuid primary key,
      shop text not null,
      confirmed_at timestamptz not null
    )`.execute(db);
  await sql`
    create table shopify_webhook_deliveries (
      webhook_id text primary key,
      shop text not null,
      topic text not null,
      payload jsonb,
      status text not null default 'pending' check (status in ('pending', 'done')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      locked_until timestamptz,
      lease_id uuid,
      last_error text,
      received_at timestamptz not null,
      completed_at timestamptz
    )`.execute(db);
  await sql`create index shopify_webhook_deliveries_due on shopify_webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(
    db,
  );
  await sql`create index shopify_webhook_deliveries_shop on shopify_webhook_deliveries (shop)`.execute(db);
  await sql`
    create table shopify_usage_records (
      idempotency_key text primary key,
      shop text not null,
      order_id text not null,
      amount_cents bigint not null check (amount_cents > 0),
      currency text not null,
      usage_record_id text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index shopify_usage_records_shop on shopify_usage_records (shop)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'shopify_usage_records',
    'shopify_webhook_deliveries',
    'shopify_ownership_confirmations',
    'shopify_oauth_requests',
    'shopify_shops',
  ]) {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
  }
}
