import { sql, type Kysely } from 'kysely';

/**
 * Shopify webhooks as Shopify delivers them (issue 25): one event reaches the app once per
 * subscription, each delivery with its own X-Shopify-Webhook-Id and the same X-Shopify-Event-Id,
 * so a delivery is also unique by its shop, topic and event id (null for deliveries recorded before,
 * which stay unique by webhook id alone). The raw body of a delivery that stopped is erased after a
 * set time: body_erased_at says when, and the row keeps only the ids support needs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table shopify_webhook_deliveries
      add column event_id text,
      add column body_erased_at timestamptz`.execute(db);
  await sql`
    create unique index shopify_webhook_deliveries_event on shopify_webhook_deliveries (shop, topic, event_id)
    where event_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists shopify_webhook_deliveries_event`.execute(db);
  await sql`
    alter table shopify_webhook_deliveries
      drop column if exists event_id,
      drop column if exists body_erased_at`.execute(db);
}
