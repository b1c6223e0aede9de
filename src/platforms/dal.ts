import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countWritten, jsonRows } from '../db/bulk.js';
import type { PlatformsTable } from '../db/schema.js';
import type { SyncBrandRow } from './sync.js';

export interface PlatformInput {
  id: string;
  name: string;
  active: boolean;
  offerTypes: string[];
  approvedOrigins: string[];
  pluginPageUrl: string | null;
}

export interface PlatformRow extends PlatformInput {
  createdAt: string;
  updatedAt: string;
}

const toPlatform = (row: Selectable<PlatformsTable>): PlatformRow => ({
  id: row.id,
  name: row.name,
  active: row.active,
  offerTypes: row.offer_types,
  approvedOrigins: row.approved_origins,
  pluginPageUrl: row.plugin_page_url,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const platformColumns = (platform: Omit<PlatformInput, 'id'>) => ({
  name: platform.name,
  active: platform.active,
  offer_types: platform.offerTypes,
  approved_origins: platform.approvedOrigins,
  plugin_page_url: platform.pluginPageUrl,
});

/** Inserts a new platform; undefined when the id is taken. */
export async function insertPlatform(db: Db, platform: PlatformInput): Promise<PlatformRow | undefined> {
  const row = await db
    .insertInto('platforms')
    .values({ id: platform.id, ...platformColumns(platform) })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
  return row && toPlatform(row);
}

export async function updatePlatform(db: Db, platform: PlatformInput): Promise<PlatformRow | undefined> {
  const row = await db
    .updateTable('platforms')
    .set({ ...platformColumns(platform), updated_at: sql`now()` })
    .where('id', '=', platform.id)
    .returningAll()
    .executeTakeFirst();
  return row && toPlatform(row);
}

export async function findPlatform(db: Db, platformId: string): Promise<PlatformRow | undefined> {
  const row = await db.selectFrom('platforms').selectAll().where('id', '=', platformId).executeTakeFirst();
  return row && toPlatform(row);
}

export async function listPlatforms(db: Db): Promise<PlatformRow[]> {
  const rows = await db.selectFrom('platforms').selectAll().orderBy('name').orderBy('id').execute();
  return rows.map(toPlatform);
}

export async function setPlatformActive(db: Db, platformId: string, active: boolean): Promise<PlatformRow | undefined> {
  const row = await db
    .updateTable('platforms')
    .set({ active, updated_at: sql`now()` })
    .where('id', '=', platformId)
    .returningAll()
    .executeTakeFirst();
  return row && toPlatform(row);
}

export async function platformExists(db: Db, platformId: string): Promise<boolean> {
  return (await db.selectFrom('platforms').select('id').where('id', '=', platformId).executeTakeFirst()) !== undefined;
}

export async function listPlatformBrands(db: Db, platformId: string, domain: string | undefined) {
  let query = db
    .selectFrom('platform_brands')
    .select(['domain', 'business_name', 'status', 'end_date'])
    .where('platform_id', '=', platformId);
  if (domain !== undefined) query = query.where('domain', '=', domain);
  const rows = await query.orderBy('domain').execute();
  return rows.map((row) => ({
    domain: row.domain,
    businessName: row.business_name,
    status: row.status,
    endDate: row.end_date ? row.end_date.toISOString() : null,
  }));
}

/** A platform as the bulk upsert takes it (the fixture loader). */
export interface PlatformUpsertRow {
  id: string;
  name: string;
  active: boolean;
  offer_types: string[];
  approved_origins: string[];
  plugin_page_url: string | null;
}

export function upsertPlatforms(db: Db, rows: PlatformUpsertRow[]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  return countWritten(
    db,
    sql`
      insert into platforms as p (id, name, active, offer_types, approved_origins, plugin_page_url)
      select id, name, active, offer_types, approved_origins, plugin_page_url
      from jsonb_to_recordset(${jsonRows(rows)})
        as r(id uuid, name text, active boolean, offer_types text[], approved_origins text[], plugin_page_url text)
      on conflict (id) do update set
        name = excluded.name, active = excluded.active, offer_types = excluded.offer_types,
        approved_origins = excluded.approved_origins, plugin_page_url = excluded.plugin_page_url, updated_at = now()
      where (p.name, p.active, p.offer_types, p.approved_origins, p.plugin_page_url)
        is distinct from (excluded.name, excluded.active, excluded.offer_types, excluded.approved_origins, excluded.plugin_page_url)
      returning 1`,
  );
}

/** Ensures the service's own platform is usable: active and able to show post-purchase offers. */
export async function ensureServicePlatform(db: Db, platformId: string, name: string): Promise<boolean> {
  const result = await sql`
    insert into platforms as p (id, name, active, offer_types)
    values (${platformId}::uuid, ${name}, true, '{post-purchase}')
    on conflict (id) do update set
      active = true,
      offer_types = case when 'post-purchase' = any(p.offer_types) then p.offer_types
                         else array_append(p.offer_types, 'post-purchase') end,
      updated_at = now()
    where not p.active or not ('post-purchase' = any(p.offer_types))
    returning 1`.execute(db);
  return result.rows.length > 0;
}

export interface UpsertCounts {
  created: number;
  updated: number;
}

/**
 * Upserts a platform's brands in one statement. A closed brand keeps the date it was first
 * closed; an active one has no end date; a business name is only replaced when one was sent.
 */
export async function upsertPlatformBrands(db: Db, platformId: string, rows: SyncBrandRow[], now: Date): Promise<UpsertCounts> {
  if (rows.length === 0) return { created: 0, updated: 0 };
  const result = await sql<{ inserted: boolean }>`
    insert into platform_brands as pb (platform_id, domain, business_name, status, end_date, created_at, updated_at)
    select ${platformId}::uuid, item.domain, item.business_name, item.status,
           case when item.status = 'closed' then ${now}::timestamptz end,
           ${now}::timestamptz, ${now}::timestamptz
    from unnest(${rows.map((row) => row.domain)}::text[],
                ${rows.map((row) => row.businessName)}::text[],
                ${rows.map((row) => row.status)}::text[]) as item(domain, business_name, status)
    on conflict (platform_id, domain) do update set
      business_name = coalesce(excluded.business_name, pb.business_name),
      status = excluded.status,
      end_date = case when excluded.status = 'closed' then coalesce(pb.end_date, excluded.end_date) end,
      updated_at = excluded.updated_at
    returning (xmax = 0) as inserted`.execute(db);
  const created = result.rows.filter((row) => row.inserted).length;
  return { created, updated: result.rows.length - created };
}
