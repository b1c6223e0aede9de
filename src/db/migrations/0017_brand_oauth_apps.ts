import { sql, type Kysely } from 'kysely';

/**
 * OAuth apps a brand registers itself on the dashboard's Integrations page: the brand that owns
 * the registration (null for the clients support registers), so it can list and delete them.
 * And the referral links that lead to a brand's store, by that brand, for its "Your offer" page.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table oauth_clients add column owner_company_id text references companies (id) on delete cascade`.execute(db);
  await sql`
    create index oauth_clients_owner_idx on oauth_clients (owner_company_id, created_at)
    where owner_company_id is not null
  `.execute(db);
  await sql`create index referral_links_partner_idx on referral_links (partner_id, created_at desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists referral_links_partner_idx`.execute(db);
  await sql`alter table oauth_clients drop column if exists owner_company_id`.execute(db);
}
