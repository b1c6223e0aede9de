import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { SyncBrandRow } from './sync.js';

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
