import { sql, type Kysely } from 'kysely';

/**
 * A sign-up waits for its address to be confirmed (issue 23): the answer to a sign-up no longer
 * tells whether the address has an account, so an account is made only when the link mailed to a
 * free address is opened and answered. Only the token's hash is kept, with what the sign-up asked
 * for (the password already hashed, an invitation code's hash or the store it claims).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sign_up_requests (
      token_hash text primary key,
      email text not null,
      password_hash text not null,
      invitation_code_hash text,
      domain text,
      business_name text,
      categories text[],
      expires_at timestamptz not null,
      created_at timestamptz not null default now(),
      check ((invitation_code_hash is null) <> (domain is null)),
      check ((domain is null) = (business_name is null) and (domain is null) = (categories is null))
    )`.execute(db);
  await sql`create index sign_up_requests_email on sign_up_requests (email, created_at)`.execute(db);
  await sql`create index sign_up_requests_expiry on sign_up_requests (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists sign_up_requests`.execute(db);
}
