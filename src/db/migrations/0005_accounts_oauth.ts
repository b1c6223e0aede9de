import { sql, type Kysely } from 'kysely';

/**
 * Brand staff accounts (users, sessions, failed sign-ins for rate limiting) and the OAuth 2
 * server's storage: grants (one per consent or client-credentials issuance; revoking a grant
 * revokes every token of its family), authorization codes, access and refresh tokens. Every
 * secret is stored as a hash; the only recoverable material is the sealed successor of a rotated
 * refresh token, encrypted with a key derived from that (unstored) refresh token.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // A confidential client bound to a brand may use client_credentials and acts for that brand.
  await sql`alter table oauth_clients add column company_id text references companies (id) on delete cascade`.execute(db);

  await sql`
    create table brand_users (
      id uuid primary key default gen_random_uuid(),
      company_id text not null references companies (id) on delete cascade,
      email text not null unique check (email = lower(email) and char_length(email) between 3 and 254),
      display_name text check (char_length(display_name) <= 100),
      password_hash text not null,
      created_at timestamptz not null default now(),
      last_sign_in_at timestamptz
    )`.execute(db);
  await sql`create index brand_users_company_idx on brand_users (company_id)`.execute(db);

  await sql`
    create table user_sessions (
      id uuid primary key default gen_random_uuid(),
      user_id uuid not null references brand_users (id) on delete cascade,
      token_hash text not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index user_sessions_user_idx on user_sessions (user_id)`.execute(db);

  await sql`
    create table sign_in_failures (
      id bigint generated always as identity primary key,
      email text not null,
      ip text not null,
      failed_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index sign_in_failures_email_idx on sign_in_failures (email, failed_at)`.execute(db);
  await sql`create index sign_in_failures_ip_idx on sign_in_failures (ip, failed_at)`.execute(db);

  await sql`
    create table oauth_grants (
      id uuid primary key default gen_random_uuid(),
      client_id text not null references oauth_clients (client_id) on delete cascade,
      company_id text not null references companies (id) on delete cascade,
      user_id uuid references brand_users (id) on delete cascade,
      platform_id uuid references platforms (id) on delete cascade,
      scope text[] not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz,
      revoked_reason text
    )`.execute(db);
  await sql`create index oauth_grants_company_idx on oauth_grants (company_id)`.execute(db);

  await sql`
    create table oauth_authorization_codes (
      code_hash text primary key,
      grant_id uuid not null references oauth_grants (id) on delete cascade,
      redirect_uri text not null,
      code_challenge text not null,
      code_challenge_method text not null check (code_challenge_method = 'S256'),
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table oauth_access_tokens (
      id uuid primary key default gen_random_uuid(),
      token_hash text not null unique,
      grant_id uuid not null references oauth_grants (id) on delete cascade,
      expires_at timestamptz not null,
      revoked_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index oauth_access_tokens_grant_idx on oauth_access_tokens (grant_id)`.execute(db);

  await sql`
    create table oauth_refresh_tokens (
      id uuid primary key default gen_random_uuid(),
      token_hash text not null unique,
      grant_id uuid not null references oauth_grants (id) on delete cascade,
      expires_at timestamptz not null,
      rotated_at timestamptz,
      successor_sealed text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index oauth_refresh_tokens_grant_idx on oauth_refresh_tokens (grant_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'oauth_refresh_tokens',
    'oauth_access_tokens',
    'oauth_authorization_codes',
    'oauth_grants',
    'sign_in_failures',
    'user_sessions',
    'brand_users',
  ]) {
    await sql`drop table if exists ${sql.table(table)} cascade`.execute(db);
  }
  await sql`alter table oauth_clients drop column if exists company_id`.execute(db);
}
