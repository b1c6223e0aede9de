import { sql, type Kysely } from 'kysely';

/**
 * Why an offer is hidden, when a store leaving hid it (issue 25): the store, by its domain at its
 * commerce platform, whose app was uninstalled (or whose access ended) while the offer was live.
 * The store's return (installed again, its plan approved) shows exactly the offers that name it;
 * an offer hidden for any other reason (the merchant turned it off, a draft) names none, so the
 * return never overrides a choice. A live offer never names one. The partial index finds a
 * returning store's offers without reading the others.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table offers add column left_with_store text`.execute(db);
  await sql`
    alter table offers add constraint offers_left_with_store_hidden
      check (left_with_store is null or not live)`.execute(db);
  await sql`create index offers_left_with_store on offers (left_with_store) where left_with_store is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists offers_left_with_store`.execute(db);
  await sql`alter table offers drop constraint if exists offers_left_with_store_hidden`.execute(db);
  await sql`alter table offers drop column if exists left_with_store`.execute(db);
}
