import { sql, type Kysely } from 'kysely';

/**
 * A claim of a Shopify store is confirmed inside the embedded app (issue 45): the session token
 * names the staff member who confirmed (`sub`), kept with the confirmation. Rows confirmed on the
 * OAuth callback's page have none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table shopify_ownership_confirmations add column staff_id text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table shopify_ownership_confirmations drop column staff_id`.execute(db);
}
