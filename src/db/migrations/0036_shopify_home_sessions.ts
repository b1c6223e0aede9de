import { sql, type Kysely } from 'kysely';

/**
 * The app home at Shopify's App URL (issue 25, section 3): a browser's session for one shop, set
 * only by a verified OAuth callback of an install started at the App URL in that browser. Kept by
 * the SHA-256 of the cookie's random value; short-lived; gone when the store leaves or is erased.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table shopify_home_sessions (
      session_hash text primary key,
      shop text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null
    )`.execute(db);
  await sql`create index shopify_home_sessions_shop on shopify_home_sessions (shop)`.execute(db);
  await sql`create index shopify_home_sessions_expires on shopify_home_sessions (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists shopify_home_sessions`.execute(db);
}
