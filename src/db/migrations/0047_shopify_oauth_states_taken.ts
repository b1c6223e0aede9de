import { sql, type Kysely } from 'kysely';

/**
 * Issue 44: an install start writes nothing to the database. What the install carries (the
 * plugin's challenge, a claim, the return path) rides in a signed cookie of the browser that
 * started it, so no table of installs in flight is left for a stranger to fill (`shopify_oauth_requests`
 * kept each shop's newest 10 and at most 10,000 in all). What stays server-side is the other half
 * of "once": the state of a callback Shopify signed, taken by its first answer (an install, or a
 * refusal that spends it), so a replay of that callback finds it taken. Only a callback whose
 * HMAC verified writes a row; rows go after the install window (10 minutes).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists shopify_oauth_requests`.execute(db);
  await sql`
    create table shopify_oauth_states_taken (
      state_hash text primary key,
      shop text not null,
      taken_at timestamptz not null
    )`.execute(db);
  await sql`create index shopify_oauth_states_taken_at on shopify_oauth_states_taken (taken_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists shopify_oauth_states_taken`.execute(db);
  await sql`
    create table shopify_oauth_requests (
      state_hash text primary key,
      shop text not null,
      challenge text,
      return_to text,
      claim_id uuid,
      claimant_session_id uuid,
      platform_id uuid,
      created_at timestamptz not null
    )`.execute(db);
  await sql`create index shopify_oauth_requests_created on shopify_oauth_requests (created_at)`.execute(db);
  await sql`create index shopify_oauth_requests_shop on shopify_oauth_requests (shop, created_at)`.execute(db);
}
