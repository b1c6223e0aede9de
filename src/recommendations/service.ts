import type { Db } from '../db/database.js';
import {
  awaitingFirstScores,
  bestScoredCandidates,
  candidateProfile,
  loadProfile,
  newestUnscoredCandidates,
  type RecommendationRow,
} from './dal.js';
import { MAX_RECOMMENDATIONS, type ExplainedRecommendation, type Recommendation } from './schemas.js';
import { matchTerms } from './scoring.js';

/**
 * The current recommendations: scored candidates best first, then (when fewer than the maximum
 * are scored) brands the engine has not reached yet, newest first and without matchRate.
 */
export async function listRecommendations(db: Db, companyId: string): Promise<{ data: Recommendation[]; totalRows: number }> {
  const data = (await recommendationRows(db, companyId)).map(toRecommendation);
  return { data, totalRows: data.length };
}

async function recommendationRows(db: Db, companyId: string): Promise<RecommendationRow[]> {
  const scored = await bestScoredCandidates(db, companyId, MAX_RECOMMENDATIONS);
  const unscored =
    scored.length < MAX_RECOMMENDATIONS ? await newestUnscoredCandidates(db, companyId, MAX_RECOMMENDATIONS - scored.length) : [];
  return [...scored, ...unscored];
}

/**
 * The same recommendations, each scored one with the scorer's terms for it (what the two brands
 * share, what either has not filled in): the dashboard's "why this match". The terms are worked
 * out from the profiles as they are now; a profile changed in the last moment adds up to the new
 * rate while the stored one is still the old, until the scorer has taken the change (a second).
 */
export async function explainedRecommendations(db: Db, companyId: string): Promise<ExplainedRecommendation[]> {
  const [rows, mine] = await Promise.all([recommendationRows(db, companyId), loadProfile(db, companyId)]);
  return rows.map((row) => {
    const item: ExplainedRecommendation = toRecommendation(row);
    if (mine && row.match_rate !== null) item.matchTerms = matchTerms(mine, candidateProfile(row));
    return item;
  });
}

/**
 * Whether matches are still being found for a brand the engine has not scored yet (a store just
 * confirmed): its recommendations are unranked until then, so the dashboard says so and asks again.
 */
export function findingFirstMatches(db: Db, companyId: string): Promise<boolean> {
  return awaitingFirstScores(db, companyId);
}

/** Unknown fields are left out rather than sent as null (SPEC 2.4); categories is always an array. */
function toRecommendation(row: RecommendationRow): Recommendation {
  const item: Recommendation = { categories: row.categories };
  if (row.domain !== null) item.domain = row.domain;
  if (row.business_name !== null) item.businessName = row.business_name;
  if (row.logo_image_url !== null) item.logoImageUrl = row.logo_image_url;
  if (row.description !== null) item.description = row.description;
  if (row.match_rate !== null) item.matchRate = row.match_rate;
  if (row.business_size !== null) item.businessSize = row.business_size;
  if (row.country !== null) item.country = row.country;
  if (row.product_count !== null) item.productCount = row.product_count;
  if (row.commerce_platform !== null) item.platform = row.commerce_platform;
  return item;
}
