import { sql, type Kysely } from 'kysely';

/**
 * A store's own domains (issue 25): the hosts shoppers know a store by (a Shopify store's primary
 * domain, `brand.com`), each linked to the store's domain at its commerce platform
 * (`brand.myshopify.com`), which names the store everywhere else (its onboarding record, its
 * company, its orders). The plugin, a sign-up and the dashboard find the store by either. One host
 * leads to one store; a store may have several. Written from what the platform says, never from
 * what a caller types.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table store_domains (
      domain text primary key,
      store_domain text not null,
      is_primary boolean not null default false,
      updated_at timestamptz not null default now(),
      check (domain <> store_domain)
    )`.execute(db);
  await sql`create index store_domains_store on store_domains (store_domain)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists store_domains`.execute(db);
}
