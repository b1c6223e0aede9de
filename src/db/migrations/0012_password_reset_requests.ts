import { sql, type Kysely } from 'kysely';

/**
 * Password reset requests per client address, whatever the email, so a budget per address holds
 * across instances (src/accounts/throttle.ts). An email without an account is counted alike, so
 * running out of budget tells nothing about which emails have accounts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table password_reset_requests (
      id bigint generated always as identity primary key,
      ip text not null,
      requested_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index password_reset_requests_ip_idx on password_reset_requests (ip, requested_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists password_reset_requests`.execute(db);
}
