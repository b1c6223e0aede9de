import { sql, type Kysely } from 'kysely';

/**
 * Shopify's install no longer proves anything by itself (issue 23): a store that has the app is
 * sent straight back by Shopify, so any page could make its merchant's browser "install" again.
 * - `shopify_oauth_requests.claimant_session_id`: the dashboard session that started an install
 *   carrying a sign-up's claim; the callback and the confirmation must come from that session.
 * - `shopify_oauth_requests.platform_id`: the tech platform whose plugin link started the install,
 *   named on the confirmation page.
 * - `shopify_confirmation_requests`: what a verified callback asks the store's staff (a claim, a
 *   plugin's challenge), answered by a POST with the CSRF token of the page that showed it; by the
 *   SHA-256 of the random token the page's form carries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table shopify_oauth_requests add column claimant_session_id uuid, add column platform_id uuid`.execute(db);
  await sql`create index shopify_oauth_requests_shop on shopify_oauth_requests (shop, created_at)`.execute(db);
  await sql`
    create table shopify_confirmation_requests (
      token_hash text primary key,
      shop text not null,
      shop_name text not null,
      claim_id uuid,
      claimant_session_id uuid,
      claimant_email text,
      challenge text,
      platform_id uuid,
      platform_name text,
      return_to text,
      created_at timestamptz not null,
      check (claim_id is not null or challenge is not null),
      check ((claim_id is null) = (claimant_session_id is null))
    )`.execute(db);
  await sql`create index shopify_confirmation_requests_created on shopify_confirmation_requests (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists shopify_confirmation_requests`.execute(db);
  await sql`drop index if exists shopify_oauth_requests_shop`.execute(db);
  await sql`alter table shopify_oauth_requests drop column if exists claimant_session_id, drop column if exists platform_id`.execute(db);
}
