import { sql, type Kysely } from 'kysely';

/**
 * A Shopify webhook delivery that cannot succeed stops (issue 25): status 'failed' after a bounded
 * number of attempts, or at once when its body cannot be booked, kept for support with when it
 * failed and its last error, instead of being retried for ever.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table shopify_webhook_deliveries drop constraint shopify_webhook_deliveries_status_check`.execute(db);
  await sql`
    alter table shopify_webhook_deliveries
      add constraint shopify_webhook_deliveries_status_check check (status in ('pending', 'done', 'failed')),
      add column failed_at timestamptz`.execute(db);
  await sql`create index shopify_webhook_deliveries_failed on shopify_webhook_deliveries (failed_at) where status = 'failed'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists shopify_webhook_deliveries_failed`.execute(db);
  await sql`update shopify_webhook_deliveries set status = 'pending' where status = 'failed'`.execute(db);
  await sql`alter table shopify_webhook_deliveries drop constraint shopify_webhook_deliveries_status_check`.execute(db);
  await sql`
    alter table shopify_webhook_deliveries
      add constraint shopify_webhook_deliveries_status_check check (status in ('pending', 'done')),
      drop column if exists failed_at`.execute(db);
}
