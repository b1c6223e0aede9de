import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { countWritten, jsonRows } from '../db/bulk.js';
import type { PartnershipStatus } from '../db/schema.js';
import type { StoredSelection } from './status.js';

const sideColumn = (selection: StoredSelection) => sql.ref(selection.side === 'requester' ? 'requester_id' : 'recipient_id');

/**
 * The first `take` keys of each selection, each read from one range of partnerships_requester_idx
 * or partnerships_recipient_idx in list order: the planner merges the ranges (Merge Append) and
 * stops after the page instead of sorting every matching row.
 */
function firstKeysOfEachRange(
  companyId: string,
  selections: StoredSelection[],
  direction: RawBuilder<unknown>,
  take: number,
): RawBuilder<unknown> {
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

/** Inserts a request; false when the pair already has an open (requested or active) partnership. */
export async function insertRequest(db: Db, requesterId: string, recipientId: string, message: string | null): Promise<boolean> {
  const result = await sql<{ id: string }>`
    insert into partnerships (requester_id, recipient_id, status, message)
    values (${requesterId}, ${recipientId}, 'pending', ${message})
    on conflict do nothing
    returning id`.execute(db);
  return result.rows.length > 0;
}

/**
 * Moves the pair's open partnership from one status to another when the caller is on the given
 * side; returns its id, or undefined when there is no such partnership.
 */
export async function moveOpenPartnership(
  db: Db,
  pair: { callerId: string; otherId: string; callerSide: 'requester' | 'recipient' | 'either' },
  from: PartnershipStatus,
  to: PartnershipStatus,
  now: Date,
): Promise<string | undefined> {
  const asRequester = sql`(requester_id = ${pair.callerId} and recipient_id = ${pair.otherId})`;
  const asRecipient = sql`(requester_id = ${pair.otherId} and recipient_id = ${pair.callerId})`;
  const side =
    pair.callerSide === 'requester' ? asRequester : pair.callerSide === 'recipient' ? asRecipient : sql`(${asRequester} or ${asRecipient})`;
  const result = await sql<{ id: string }>`
    update partnerships set status = ${to}, updated_at = ${now}
    where ${side} and status = ${from}
    returning id`.execute(db);
  return result.rows[0]?.id;
}

/** The latest partnership of the caller with each of the brands, whatever its status. */
export async function latestPartnershipStatuses(db: Db, companyId: string, others: string[]) {
  if (others.length === 0) return [];
  const result = await sql<{ other_id: string; status: PartnershipStatus; requester_id: string }>`
    select distinct on (other_id) other_id, status, requester_id
    from (
      select recipient_id as other_id, status, requester_id, created_at, id from partnerships
      where requester_id = ${companyId} and recipient_id = any(${others}::text[])
      union all
      select requester_id, status, requester_id, created_at, id from partnerships
      where recipient_id = ${companyId} and requester_id = any(${others}::text[])
    ) as pairs
    order by other_id, created_at desc, id desc`.execute(db);
  return result.rows;
}

/** The message of each open connection request between the caller and the brands, whichever side asked, where one was written. */
export async function openRequestMessages(db: Db, companyId: string, others: string[]) {
  if (others.length === 0) return [];
  const result = await sql<{ other_id: string; message: string }>`
    select case when requester_id = ${companyId} then recipient_id else requester_id end as other_id, message
    from partnerships
    where status = 'pending' and message is not null
      and ((requester_id = ${companyId} and recipient_id = any(${others}::text[]))
        or (recipient_id = ${companyId} and requester_id = any(${others}::text[])))`.execute(db);
  return result.rows;
}

export interface PairRow {
  a: string;
  b: string;
}

export interface StoredPartnership {
  id: string;
  a: string;
  b: string;
  status: string;
}

/** Partnerships stored between these pairs of brands (a < b), whichever side asked. */
export async function findPartnershipsBetween(db: Db, pairs: PairRow[]): Promise<StoredPartnership[]> {
  if (pairs.length === 0) return [];
  const result = await sql<StoredPartnership>`
    select p.id::text as id, least(p.requester_id, p.recipient_id) as a, greatest(p.requester_id, p.recipient_id) as b, p.status
    from partnerships p
    join jsonb_to_recordset(${jsonRows(pairs)}) as r(a text, b text)
      on least(p.requester_id, p.recipient_id) = r.a and greatest(p.requester_id, p.recipient_id) = r.b`.execute(db);
  return result.rows;
}

/** A partnership as the bulk upsert takes it (the fixture loader). */
export interface PartnershipUpsertRow {
  id: string;
  requester_id: string;
  recipient_id: string;
  status: string;
}

export function upsertPartnerships(db: Db, rows: PartnershipUpsertRow[]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  return countWritten(
    db,
    sql`
      insert into partnerships as p (id, requester_id, recipient_id, status)
      select id, requester_id, recipient_id, status
      from jsonb_to_recordset(${jsonRows(rows)}) as r(id uuid, requester_id text, recipient_id text, status text)
      on conflict (id) do update set
        requester_id = excluded.requester_id, recipient_id = excluded.recipient_id, status = excluded.status, updated_at = now()
      where (p.requester_id, p.recipient_id, p.status) is distinct from (excluded.requester_id, excluded.recipient_id, excluded.status)
      returning 1`,
  );
}
