import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { countWritten, jsonRows } from '../db/bulk.js';
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

export interface CampaignDetailRow {
  id: string;
  name: string | null;
  status: StoredCampaignStatus;
  effective_status: CampaignStatus;
  start_date: Date | null;
  end_date: Date | null;
  owner_id: string;
  partner_id: string;
  partner_name: string | null;
  created_at: Date;
  updated_at: Date;
  /** Whether the two brands have an active partnership: a draft of an ended one cannot start. */
  partnership_active: boolean;
}

export async function listCampaignDetails(db: Db, companyId: string, now: Date, limit: number): Promise<CampaignDetailRow[]> {
  const result = await sql<CampaignDetailRow>`
    select c.id, c.name, c.status, ${effectiveCampaignStatusSql('c', now)} as effective_status, c.start_date, c.end_date,
           c.owner_id, c.partner_id, other.business_name as partner_name, c.created_at, c.updated_at,
           exists (select 1 from partnerships p
                   where ((p.requester_id = c.owner_id and p.recipient_id = c.partner_id)
                       or (p.requester_id = c.partner_id and p.recipient_id = c.owner_id))
                     and p.status = 'active') as partnership_active
    from (
      (select id, created_at from campaigns where owner_id = ${companyId} order by created_at desc, id desc limit ${limit})
      union all
      (select id, created_at from campaigns where partner_id = ${companyId} order by created_at desc, id desc limit ${limit})
      order by created_at desc, id desc limit ${limit}
    ) as keys
    join campaigns c on c.id = keys.id
    join companies other on other.id = case when c.owner_id = ${companyId} then c.partner_id else c.owner_id end
    order by keys.created_at desc, keys.id desc`.execute(db);
  return result.rows;
}

export async function findCampaign(db: Db, campaignId: string) {
  return db
    .selectFrom('campaigns')
    .select(['id', 'owner_id', 'partner_id', 'partnership_id', 'status', 'start_date', 'end_date'])
    .where('id', '=', campaignId)
    .executeTakeFirst();
}

export async function insertCampaign(
  db: Db,
  campaign: {
    id: string;
    partnershipId: string;
    ownerId: string;
    partnerId: string;
    name: string;
    startDate: Date | null;
    endDate: Date | null;
    now: Date;
  },
): Promise<void> {
  await db
    .insertInto('campaigns')
    .values({
      id: campaign.id,
      partnership_id: campaign.partnershipId,
      owner_id: campaign.ownerId,
      partner_id: campaign.partnerId,
      name: campaign.name,
      status: 'draft',
      start_date: campaign.startDate,
      end_date: campaign.endDate,
      created_at: campaign.now,
      updated_at: campaign.now,
    })
    .execute();
}

/** Changes a campaign's stored status only from the expected one, so two clicks cannot both win. */
export async function setCampaignStatus(
  db: Db,
  campaignId: string,
  from: StoredCampaignStatus[],
  change: { status: StoredCampaignStatus; startDate?: Date | null },
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('campaigns')
    .set({ status: change.status, updated_at: now, ...(change.startDate === undefined ? {} : { start_date: change.startDate }) })
    .where('id', '=', campaignId)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Campaigns of an ended partnership end with it: only active partnerships have running campaigns (DESIGN 4). */
export async function closeCampaignsOfPartnership(db: Db, partnershipId: string, now: Date): Promise<void> {
  await db
    .updateTable('campaigns')
    .set({ status: 'closed', updated_at: now })
    .where('partnership_id', '=', partnershipId)
    .where('status', '<>', 'closed')
    .execute();
}

export async function activePartnershipId(db: Db, a: string, b: string): Promise<string | undefined> {
  const result = await sql<{ id: string }>`
    select id from partnerships
    where ((requester_id = ${a} and recipient_id = ${b}) or (requester_id = ${b} and recipient_id = ${a})) and status = 'active'
    limit 1`.execute(db);
  return result.rows[0]?.id;
}

/** A campaign as the bulk upsert takes it (the fixture loader). */
export interface CampaignUpsertRow {
  id: string;
  partnership_id: string;
  owner_id: string;
  partner_id: string;
  name: string | null;
  status: string;
  start_date: string | null;
  end_date: string | null;
}

export function upsertCampaigns(db: Db, rows: CampaignUpsertRow[]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  return countWritten(
    db,
    sql`
      insert into campaigns as c (id, partnership_id, owner_id, partner_id, name, status, start_date, end_date)
      select id, partnership_id, owner_id, partner_id, name, status, start_date, end_date
      from jsonb_to_recordset(${jsonRows(rows)})
        as r(id text, partnership_id uuid, owner_id text, partner_id text, name text, status text,
             start_date timestamptz, end_date timestamptz)
      on conflict (id) do update set
        partnership_id = excluded.partnership_id, owner_id = excluded.owner_id, partner_id = excluded.partner_id,
        name = excluded.name, status = excluded.status, start_date = excluded.start_date, end_date = excluded.end_date,
        updated_at = now()
      where (c.partnership_id, c.owner_id, c.partner_id, c.name, c.status, c.start_date, c.end_date)
        is distinct from (excluded.partnership_id, excluded.owner_id, excluded.partner_id, excluded.name, excluded.status,
                          excluded.start_date, excluded.end_date)
      returning 1`,
  );
}
