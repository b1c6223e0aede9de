/**
 * The matching engine's score: how well two brands fit as cross-promotion partners, 0 to 100.
 * Pure and symmetric; docs/recommendations.md explains the factors and their weights.
 */

export interface BrandProfile {
  categories: readonly string[];
  country: string | null;
  businessSize: string | null;
  productCount: number | null;
  commercePlatform: string | null;
}

/** Points per factor; they add up to 100. */
export const WEIGHTS = {
  categories: 40,
  country: 25,
  businessSize: 15,
  catalogSize: 10,
  commercePlatform: 10,
} as const;

/** Size labels from smallest to largest; a label outside this scale counts as unknown. */
export const BUSINESS_SIZES = ['micro', 'small', 'medium', 'large', 'enterprise'] as const;

/** Credit for a factor that one of the two brands has not filled in: neither a match nor a mismatch. */
const UNKNOWN = 0.5;

const normalize = (value: string) => value.trim().toLowerCase();

/** Shared categories over the smaller set: a focused brand fully inside a broader one's audience is a full match. */
export function categoryOverlap(a: readonly string[], b: readonly string[]): number | undefined {
  const left = new Set(a.map(normalize).filter(Boolean));
  const right = new Set(b.map(normalize).filter(Boolean));
  if (left.size === 0 || right.size === 0) return undefined;
  let shared = 0;
  for (const category of left) if (right.has(category)) shared++;
  return shared / Math.min(left.size, right.size);
}

function sameText(a: string | null, b: string | null): number | undefined {
  if (a === null || b === null || !normalize(a) || !normalize(b)) return undefined;
  return normalize(a) === normalize(b) ? 1 : 0;
}

/** Same size 1, neighbouring sizes 0.5, further apart 0. */
export function sizeSimilarity(a: string | null, b: string | null): number | undefined {
  const rank = (label: string | null) => (label === null ? -1 : (BUSINESS_SIZES as readonly string[]).indexOf(normalize(label)));
  const left = rank(a);
  const right = rank(b);
  if (left < 0 || right < 0) return undefined;
  return Math.max(0, 1 - Math.abs(left - right) / 2);
}

/** Catalogs within the same order of magnitude fit; the credit falls to 0 at a hundredfold difference. */
export function catalogSimilarity(a: number | null, b: number | null): number | undefined {
  if (a === null || b === null || a < 0 || b < 0) return undefined;
  const distance = Math.abs(Math.log10(a + 1) - Math.log10(b + 1));
  return Math.max(0, 1 - distance / 2);
}

export function matchRate(a: BrandProfile, b: BrandProfile): number {
  const factors: Array<[number, number | undefined]> = [
    [WEIGHTS.categories, categoryOverlap(a.categories, b.categories)],
    [WEIGHTS.country, sameText(a.country, b.country)],
    [WEIGHTS.businessSize, sizeSimilarity(a.businessSize, b.businessSize)],
    [WEIGHTS.catalogSize, catalogSimilarity(a.productCount, b.productCount)],
    [WEIGHTS.commercePlatform, sameText(a.commercePlatform, b.commercePlatform)],
  ];
  const points = factors.reduce((sum, [weight, similarity]) => sum + weight * (similarity ?? UNKNOWN), 0);
  return Math.min(100, Math.max(0, Math.round(points)));
}

export interface ScoredPair {
  companyId: string;
  candidateId: string;
  matchRate: number;
}

/**
 * Every score that changes when the given brands change: each brand against every other brand,
 * and every other brand against it. A pair appears once even when both of its brands are queued.
 */
export function scoresToRefresh(changedIds: readonly string[], profiles: ReadonlyMap<string, BrandProfile>): ScoredPair[] {
  const pairs = new Map<string, ScoredPair>();
  for (const changedId of changedIds) {
    const changed = profiles.get(changedId);
    if (!changed) continue;
    for (const [otherId, other] of profiles) {
      if (otherId === changedId) continue;
      const rate = matchRate(changed, other);
      pairs.set(`${changedId}\u0000${otherId}`, { companyId: changedId, candidateId: otherId, matchRate: rate });
      pairs.set(`${otherId}\u0000${changedId}`, { companyId: otherId, candidateId: changedId, matchRate: rate });
    }
  }
  // One order for every worker, so two batches writing the same pairs lock them in the same order.
  return [...pairs.values()].sort((x, y) => compareText(x.companyId, y.companyId) || compareText(x.candidateId, y.candidateId));
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
