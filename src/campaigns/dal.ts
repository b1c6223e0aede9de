import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { StoredCampaignStatus } from '../db/schema.js';
import { effectiveCampaignStatusSql, type CampaignStatus } from './status.js';

const SIDES = ['owner_id', 'partner_id'] as const;

/**
 * The brand's campaigns as owner and as partner: one range of campaigns_owner_list_idx or
 * campaigns_partner_list_idx each, which also holds what the status filter reads.
 */
function sideCondition(side: (typeof SIDES)[number], companyId: string, status: CampaignStatus | undefined, now: Date) {
  const filter = status === undefined ? sql`` : sql` and ${effectiveCampaignStatusSql('campaigns', now)} = ${status}`;
  return sql`${sql.ref(side)} = ${companyId}${filter}`;
}

export async function countCampaigns(db: Db, companyId: string, status: CampaignStatus | undefined, now: Date): Promise<number> {
  const counts = sql.join(
    SIDES.map((side) => sql`(select count(*) from campaigns where ${sideCondition(side, companyId, status, now)})`),
    sql` + `,
  );
  const result = await sql<{ total: number }>`select ${counts} as total`.execute(db);
  return Number(result.rows[0]?.total ?? 0);
}

export interface CampaignRow {
  id: string;
  name: string | null;
  status: StoredCampaignStatus;
  start_date: Date | null;
  end_date: Date | null;
}

/** One page, newest first: keys from index-only walks merged in order, then only the page's rows. */
export async function listCampaignPage(
  db: Db,
  companyId: string,
  status: CampaignStatus | undefined,
  now: Date,
  page: { fromEnd: boolean; offset: number; limit: number },
): Promise<CampaignRow[]> {
  const direction = page.fromEnd ? sql`asc` : sql`desc`;
  // Each side's first keys in list order, so the planner merges two bounded index walks (Merge Append).
  const ranges: RawBuilder<unknown> = sql.join(
    SIDES.map(
      (side) => sql`(select id, created_at from campaigns where ${sideCondition(side, companyId, status, now)}
        order by created_at ${direction}, id ${direction} limit ${page.offset + page.limit})`,
    ),
    sql` union all `,
  );
  const result = await sql<CampaignRow>`
    select c.id, c.name, c.status, c.start_date, c.end_date
    from (
      select id, created_at from (${ranges}) as ranges
      order by created_at ${direction}, id ${direction}
      limit ${page.limit} offset ${page.offset}
    ) as keys
    join campaigns c on c.id = keys.id
    order by keys.created_at desc, keys.id desc`.execute(db);
  return result.rows;
}
