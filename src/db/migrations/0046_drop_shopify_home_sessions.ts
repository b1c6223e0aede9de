import { sql, type Kysely } from 'kysely';

/**
 * The Shopify app home is embedded in the admin (issue 45): every request of it carries Shopify's
 * session token, so the browser sessions of the non-embedded home (migration 0036) have no use.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists shopify_home_sessions`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
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
