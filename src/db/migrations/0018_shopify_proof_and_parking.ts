import { sql, type Kysely } from 'kysely';

/**
 * Shopify, finished (issue 17):
 * - `merchant_tokens.challenge`: the challenge a token was traded for, so a link that carries it
 *   (the plugin's plan link) still proves the merchant after the app traded its confirmation.
 * - `shopify_shops.pending_subscription_id`, `pending_confirmation_url`, `pending_return_url`:
 *   the plan subscription waiting for the merchant at Shopify, reused instead of creating another.
 * - `setup_jobs.status` 'parked': the setup of a store that left (uninstalled, token revoked) waits
 *   for the store to come back instead of failing and being retried without a token.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table merchant_tokens add column challenge text`.execute(db);
  await sql`
    alter table shopify_shops
      add column pending_subscription_id text,
      add column pending_confirmation_url text,
      add column pending_return_url text`.execute(db);
  await sql`alter table setup_jobs drop constraint setup_jobs_status_check`.execute(db);
  await sql`alter table setup_jobs add constraint setup_jobs_status_check check (status in ('pending', 'done', 'parked'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update setup_jobs set status = 'pending' where status = 'parked'`.execute(db);
  await sql`alter table setup_jobs drop constraint setup_jobs_status_check`.execute(db);
  await sql`alter table setup_jobs add constraint setup_jobs_status_check check (status in ('pending', 'done'))`.execute(db);
  await sql`
    alter table shopify_shops
      drop column if exists pending_subscription_id,
      drop column if exists pending_confirmation_url,
      drop column if exists pending_return_url`.execute(db);
  await sql`alter table merchant_tokens drop column if exists challenge`.execute(db);
}
