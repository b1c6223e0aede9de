import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import type { PartnershipStatus } from '../../src/db/schema.js';
import { drainScoringQueue } from '../../src/recommendations/scorer.js';

/** Test data for the brand lists, written in bulk: there is no API that creates partnerships yet. */
export async function insertCompanies(
  db: Db,
  companies: Array<{ id: string; businessName?: string | null; domain?: string | null; logoImageUrl?: string | null }>,
) {
  if (companies.length === 0) return;
  await sql`
    insert into companies (id, business_name, domain, logo_image_url)
    select * from unnest(${companies.map((c) => c.id)}::text[],
                         ${companies.map((c) => (c.businessName === undefined ? `Brand ${c.id}` : c.businessName))}::text[],
                         ${companies.map((c) => (c.domain === undefined ? `${c.id}.example` : c.domain))}::text[],
                         ${companies.map((c) => c.logoImageUrl ?? null)}::text[])`.execute(db);
}

export interface PartnershipSeed {
  requesterId: string;
  recipientId: string;
  status: PartnershipStatus;
  createdAt: Date;
}

export async function insertPartnerships(db: Db, rows: PartnershipSeed[]): Promise<string[]> {
  const result = await sql<{ id: string }>`
    insert into partnerships (requester_id, recipient_id, status, created_at, updated_at)
    select r, c, s, t, t from unnest(${rows.map((row) => row.requesterId)}::text[],
                                    ${rows.map((row) => row.recipientId)}::text[],
                                    ${rows.map((row) => row.status)}::text[],
                                    ${rows.map((row) => row.createdAt)}::timestamptz[]) as x(r, c, s, t)
    returning id`.execute(db);
  return result.rows.map((row) => row.id);
}

/** Platform links of a brand: the only thing a list request can write. */
export async function platformLinksOf(db: Db, companyId: string) {
  return db.selectFrom('platform_companies').select(['platform_id']).where('company_id', '=', companyId).orderBy('platform_id').execute();
}

export interface CampaignSeed {
  id: string;
  ownerId: string;
  partnerId: string;
  name: string | null;
  status: 'draft' | 'scheduled' | 'active' | 'closed';
  startDate: Date | null;
  endDate: Date | null;
  createdAt: Date;
}

export async function insertCampaigns(db: Db, rows: CampaignSeed[]): Promise<void> {
  await sql`
    insert into campaigns (id, owner_id, partner_id, name, status, start_date, end_date, created_at, updated_at)
    select i, o, p, n, s, sd, ed, t, t from unnest(${rows.map((row) => row.id)}::text[],
                                                  ${rows.map((row) => row.ownerId)}::text[],
                                                  ${rows.map((row) => row.partnerId)}::text[],
                                                  ${rows.map((row) => row.name)}::text[],
                                                  ${rows.map((row) => row.status)}::text[],
                                                  ${rows.map((row) => row.startDate)}::timestamptz[],
                                                  ${rows.map((row) => row.endDate)}::timestamptz[],
                                                  ${rows.map((row) => row.createdAt)}::timestamptz[])
           as x(i, o, p, n, s, sd, ed, t)`.execute(db);
}

/**
 * Scores everything queued and waits until the queue is empty as committed: the app's own scorer
 * may hold a batch, which a drain skips, so an empty drain alone does not mean scores are written.
 */
export async function settleScores(db: Db): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    await drainScoringQueue(db);
    const row = await db
      .selectFrom('scoring_queue')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(row.n) === 0) return;
    if (Date.now() > deadline) throw new Error('scoring queue did not empty within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
