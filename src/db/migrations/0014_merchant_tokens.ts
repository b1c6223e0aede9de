import { sql, type Kysely } from 'kysely';

/**
 * What lets the embed app act for a store (docs/plugin.md, "Acting for the store"): the commerce
 * platform's word that the store's owner, signed in there, finished an action the plugin's link
 * started, kept by the hash of the embed app's secret (the link's state); and the short-lived
 * store-bound tokens the app gets for that secret. Only hashes are stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table merchant_confirmations (
      challenge text primary key,
      domain text not null,
      confirmed_at timestamptz not null
    )`.execute(db);
  await sql`create index merchant_confirmations_domain on merchant_confirmations (domain)`.execute(db);
  await sql`
    create table merchant_tokens (
      token_hash text primary key,
      domain text not null,
      platform_id uuid not null references platforms (id) on delete cascade,
      expires_at timestamptz not null
    )`.execute(db);
  await sql`create index merchant_tokens_domain on merchant_tokens (domain)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists merchant_tokens`.execute(db);
  await sql`drop table if exists merchant_confirmations`.execute(db);
}
