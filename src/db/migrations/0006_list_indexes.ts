import { sql, type Kysely } from 'kysely';

/**
 * Indexes for the brand lists. The campaign indexes carry the columns the effective status is
 * computed from, so counting and paging a brand's campaigns by status never reads the table;
 * they replace the foundation's narrower indexes on the same keys. Companies are walked newest
 * first when recommendations are filled with brands not yet scored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index campaigns_owner_list_idx on campaigns (owner_id, created_at, id) include (status, start_date, end_date)`.execute(
    db,
  );
  await sql`create index campaigns_partner_list_idx on campaigns (partner_id, created_at, id)
            include (status, start_date, end_date)`.execute(db);
  await sql`drop index campaigns_owner_idx`.execute(db);
  await sql`drop index campaigns_partner_idx`.execute(db);
  await sql`create index companies_newest_idx on companies (created_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists companies_newest_idx`.execute(db);
  await sql`create index campaigns_owner_idx on campaigns (owner_id, created_at, id)`.execute(db);
  await sql`create index campaigns_partner_idx on campaigns (partner_id, created_at, id)`.execute(db);
  await sql`drop index if exists campaigns_partner_list_idx`.execute(db);
  await sql`drop index if exists campaigns_owner_list_idx`.execute(db);
}
