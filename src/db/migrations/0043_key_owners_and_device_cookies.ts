import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

/**
 * Issue 44. A brand API key records who issued it (a staff account from the dashboard, support
 * through the admin API or the CLI, or a fixture file), so that staff see every key of their brand
 * with its origin; keys issued before this migration say nothing (null). A sign-in failure records
 * the trusted device it came from (the nonce of a valid device cookie, src/accounts/device-cookies.ts),
 * null for an unrecognised client: untrusted failures share one budget per account, a trusted
 * device keeps its own. The device cookies' HMAC key is made here, once per database, so every
 * instance signs and checks with the same one (docs/decisions.md, "Device cookies").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table brand_api_keys
      add column issued_by text check (issued_by in ('staff', 'support', 'fixture')),
      add column created_by_user_id uuid references brand_users (id) on delete set null`.execute(db);
  await sql`alter table sign_in_failures add column device text`.execute(db);
  await sql`
    create table service_secrets (
      name text primary key,
      secret text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`insert into service_secrets (name, secret) values ('device_cookie', ${randomBytes(32).toString('base64url')})`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists service_secrets`.execute(db);
  await sql`alter table sign_in_failures drop column if exists device`.execute(db);
  await sql`alter table brand_api_keys drop column if exists created_by_user_id, drop column if exists issued_by`.execute(db);
}
