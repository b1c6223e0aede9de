import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { BrandProfile, ScoredPair } from './scoring.js';

/** Takes a brand off the scoring queue (it is being scored right now). */
export async function dequeueBrand(db: Db, companyId: string): Promise<void> {
  await db.deleteFrom('scoring_queue').where('company_id', '=', companyId).execute();
}

/**
 * Takes queued brands off the scoring queue. The rows are deleted (not just locked) at once, so a
 * profile change made while the batch is scored waits on this transaction and queues the brand
 * again after it commits; skip locked lets several workers share the queue.
 */
export async function claimQueuedBrands(db: Db, limit: number): Promise<string[]> {
  const result = await sql<{ company_id: string }>`
    delete from scoring_queue
    where company_id in (
      select company_id from scoring_queue order by queued_at, company_id limit ${limit} for update skip locked
    )
    returning company_id`.execute(db);
  return result.rows.map((row) => row.company_id);
}

export async function countCompanies(db: Db): Promise<number> {
  const row = await db
    .selectFrom('companies')
    .select(({ fn }) => fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const profileOf = (row: {
  categories: string[];
  country: string | null;
  business_size: string | null;
  product_count: number | null;
  commerce_platform: string | null;
}): BrandProfile => ({
  categories: row.categories,
  country: row.country,
  businessSize: row.business_size,
  productCount: row.product_count,
  commercePlatform: row.commerce_platform,
});

const PROFILE_COLUMNS = ['categories', 'country', 'business_size', 'product_count', 'commerce_platform'] as const;

export async function loadProfiles(db: Db): Promise<Map<string, BrandProfile>> {
  const rows = await db
    .selectFrom('companies')
    .select(['id', ...PROFILE_COLUMNS])
    .execute();
  return new Map(rows.map((row) => [row.id, profileOf(row)]));
}

export async function loadProfile(db: Db, companyId: string): Promise<BrandProfile | undefined> {
  const row = await db.selectFrom('companies').select(PROFILE_COLUMNS).where('id', '=', companyId).executeTakeFirst();
  return row && profileOf(row);
}

/** A recommendation row's profile, as the scorer reads it from companies. */
export const candidateProfile = (row: RecommendationRow): BrandProfile => profileOf(row);

export async function upsertScores(db: Db, pairs: ScoredPair[], scoredAt: Date): Promise<void> {
  if (pairs.length === 0) return;
  await sql`
    insert into recommendation_scores as s (company_id, candidate_id, match_rate, scored_at)
    select company_id, candidate_id, match_rate, ${scoredAt}::timestamptz
    from unnest(${pairs.map((pair) => pair.companyId)}::text[],
                ${pairs.map((pair) => pair.candidateId)}::text[],
                ${pairs.map((pair) => pair.matchRate)}::int[]) as item(company_id, candidate_id, match_rate)
    on conflict (company_id, candidate_id) do update set
      match_rate = excluded.match_rate,
      scored_at = excluded.scored_at`.execute(db);
}

export interface RecommendationRow {
  domain: string | null;
  business_name: string | null;
  logo_image_url: string | null;
  description: string | null;
  business_size: string | null;
  country: string | null;
  categories: string[];
  product_count: number | null;
  commerce_platform: string | null;
  match_rate: number | null;
}

const profileColumns = sql`c.domain, c.business_name, c.logo_image_url, c.description, c.business_size, c.country,
  c.categories, c.product_count, c.commerce_platform`;

/**
 * No partnership record between the two brands, either way and in any status: a brand already
 * asked, declined or removed is not suggested again (it stays findable by search). Each direction
 * is looked up in partnerships_requester_idx.
 */
function notPartnersEver(companyId: string, candidate: RawBuilder<unknown>) {
  return sql`not exists (
    select 1 from partnerships p where p.requester_id = ${companyId}::text and p.recipient_id = ${candidate})
    and not exists (
    select 1 from partnerships p where p.requester_id = ${candidate} and p.recipient_id = ${companyId}::text)`;
}

/** The best scored candidates, walked in recommendation_scores_rank_idx order. */
export async function bestScoredCandidates(db: Db, companyId: string, limit: number): Promise<RecommendationRow[]> {
  const result = await sql<RecommendationRow>`
    select ${profileColumns}, s.match_rate
    from recommendation_scores s
    join companies c on c.id = s.candidate_id
    where s.company_id = ${companyId} and ${notPartnersEver(companyId, sql`s.candidate_id`)}
    order by s.match_rate desc, s.candidate_id
    limit ${limit}`.execute(db);
  return result.rows;
}

/** Candidates the engine has not scored for this brand yet, newest brands first. */
export async function newestUnscoredCandidates(db: Db, companyId: string, limit: number): Promise<RecommendationRow[]> {
  const result = await sql<RecommendationRow>`
    select ${profileColumns}, null::int as match_rate
    from companies c
    where c.id <> ${companyId}
      and not exists (select 1 from recommendation_scores s where s.company_id = ${companyId} and s.candidate_id = c.id)
      and ${notPartnersEver(companyId, sql`c.id`)}
    order by c.created_at desc, c.id desc
    limit ${limit}`.execute(db);
  return result.rows;
}

/**
 * Whether the engine has yet to score this brand for the first time: it waits on the queue and
 * no score of it exists. The scorer takes a brand off the queue and writes its scores in one
 * transaction, so this turns false exactly when the ranked list exists.
 */
export async function awaitingFirstScores(db: Db, companyId: string): Promise<boolean> {
  const result = await sql<{ waiting: boolean }>`
    select exists (select 1 from scoring_queue where company_id = ${companyId})
       and not exists (select 1 from recommendation_scores where company_id = ${companyId}) as waiting`.execute(db);
  return result.rows[0]?.waiting === true;
}
