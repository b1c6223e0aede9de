import { sql, type Kysely } from 'kysely';

/**
 * Shopify's expiring offline tokens (issue 25): the access token's expiry, the refresh token
 * (encrypted as the access token is) and its expiry, and why a store was disconnected, so the
 * merchant and support can be told. A store whose access token has no expiry holds a
 * non-expiring token, which the service exchanges for an expiring pair at its next use.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table shopify_shops
      add column access_token_expires_at timestamptz,
      add column refresh_token_encrypted text,
      add column refresh_token_expires_at timestamptz,
      add column disconnect_reason text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table shopify_shops
      drop column if exists access_token_expires_at,
      drop column if exists refresh_token_encrypted,
      drop column if exists refresh_token_expires_at,
      drop column if exists disconnect_reason`.execute(db);
}
