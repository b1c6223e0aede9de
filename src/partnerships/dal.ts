import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { PartnershipStatus } from '../db/schema.js';
import type { StoredSelection } from './status.js';

const sideColumn = (selection: StoredSelection) => sql.ref(selection.side === 'requester' ? 'requester_id' : 'recipient_id');

/**
 * The first `take` keys of each selection, each read from one range of partnerships_requester_idx
 * or partnerships_recipient_idx in list order: the planner merges the ranges (Merge Append) and
 * stops after the page instead of sorting every matching row.
 */
function firstKeysOfEachRange(companyId: string, selections: StoredSelection[], direction: RawBuilder<unknown>, take: number): RawBuilder<unknown> {
  return sql.join(
    selections.map(
      (selection) => sql`(select id, created_at from partnerships
        where ${sideColumn(selection)} = ${companyId} and status = ${selection.status}
        order by created_at ${direction}, id ${direction} limit ${take})`,
    ),
    sql` union all `,
  );
}

export async function countPartnerships(db: Db, companyId: string, selections: StoredSelection[]): Promise<number> {
  const counts = sql.join(
    selections.map(
      (selection) =>
        sql`(select count(*) from partnerships where ${sideColumn(selection)} = ${companyId} and status = ${selection.status})`,
    ),
    sql` + `,
  );
  const result = await sql<{ total: number }>`select ${counts} as total`.execute(db);
  return Number(result.rows[0]?.total ?? 0);
}

export interface PartnershipRow {
  id: string;
  requester_id: string;
  status: PartnershipStatus;
  partner_id: string;
  business_name: string | null;
  domain: string | null;
  logo_image_url: string | null;
}

/**
 * One page of the caller's partnerships, newest first. The page's keys come from index-only walks
 * merged in order (from the end of the list when the page is nearer to it); only the page's rows
 * are then read with their partner's profile.
 */
export async function listPartnershipPage(
  db: Db,
  companyId: string,
  selections: StoredSelection[],
  page: { fromEnd: boolean; offset: number; limit: number },
): Promise<PartnershipRow[]> {
  const direction = page.fromEnd ? sql`asc` : sql`desc`;
  const result = await sql<PartnershipRow>`
    select p.id, p.requester_id, p.status, partner.id as partner_id,
           partner.business_name, partner.domain, partner.logo_image_url
    from (
      select id, created_at from (${firstKeysOfEachRange(companyId, selections, direction, page.offset + page.limit)}) as ranges
      order by created_at ${direction}, id ${direction}
      limit ${page.limit} offset ${page.offset}
    ) as keys
    join partnerships p on p.id = keys.id
    join companies partner
      on partner.id = case when p.requester_id = ${companyId} then p.recipient_id else p.requester_id end
    order by keys.created_at desc, keys.id desc`.execute(db);
  return result.rows;
}
