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

/** The categories both brands name, as the first brand spells them (case and spacing aside), in its order. */
export function sharedCategories(a: readonly string[], b: readonly string[]): string[] {
  const right = new Set(b.map(normalize));
  const seen = new Set<string>();
  return a.filter((category) => {
    const key = normalize(category);
    if (!key || !right.has(key) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function sameText(a: string | null, b: string | null): number | undefined {
  if (a === null || b === null || !normalize(a) || !normalize(b)) return undefined;
  return normalize(a) === normalize(b) ? 1 : 0;
}

const sizeRank = (label: string | null) => (label === null ? -1 : (BUSINESS_SIZES as readonly string[]).indexOf(normalize(label)));

/** Same size 1, neighbouring sizes 0.5, further apart 0. */
export function sizeSimilarity(a: string | null, b: string | null): number | undefined {
  const left = sizeRank(a);
  const right = sizeRank(b);
  if (left < 0 || right < 0) return undefined;
  return Math.max(0, 1 - Math.abs(left - right) / 2);
}

/** Catalogs within the same order of magnitude fit; the credit falls to 0 at a hundredfold difference. */
export function catalogSimilarity(a: number | null, b: number | null): number | undefined {
  if (a === null || b === null || a < 0 || b < 0) return undefined;
  const distance = Math.abs(Math.log10(a + 1) - Math.log10(b + 1));
  return Math.max(0, 1 - distance / 2);
}

export type MatchFactor = keyof typeof WEIGHTS;

/**
 * One factor of a match rate as the scorer counted it: the points it gave out of its weight, or
 * why it gave none. `missing` names whose profile lacks the fact (`both` when neither has it);
 * `shared` lists the shared categories, `same` the country or platform both name.
 */
export interface MatchTerm {
  factor: MatchFactor;
  weight: number;
  points: number;
  missing?: 'you' | 'them' | 'both';
  shared?: string[];
  same?: string;
}

/** Whose side lacks a fact, for a factor the scorer could not compare. */
function missingSide(yours: boolean, theirs: boolean): MatchTerm['missing'] {
  if (!yours && !theirs) return 'both';
  return yours ? 'them' : 'you';
}

const hasText = (value: string | null) => value !== null && normalize(value) !== '';

/**
 * Each factor's points for brand `a` looking at brand `b`: its weight times the similarity,
 * rounded to a whole point, so the terms add up to the match rate exactly. A factor either side
 * has not filled in gives nothing: a match rate counts what the two brands are known to share,
 * so a brand with nothing in common scores 0 however little either has said about itself.
 */
export function matchTerms(a: BrandProfile, b: BrandProfile): MatchTerm[] {
  const term = (factor: MatchFactor, similarity: number | undefined, known: [boolean, boolean], detail: Partial<MatchTerm> = {}) => {
    const weight = WEIGHTS[factor];
    if (similarity === undefined) return { factor, weight, points: 0, missing: missingSide(...known) };
    return { factor, weight, points: Math.round(weight * similarity), ...detail };
  };
  const same = (x: string | null, y: string | null) =>
    x !== null && y !== null && normalize(x) === normalize(y) ? { same: x.trim() } : {};
  const shared = sharedCategories(a.categories, b.categories);
  return [
    term('categories', categoryOverlap(a.categories, b.categories), [a.categories.some(hasText), b.categories.some(hasText)], {
      shared,
    }),
    term('country', sameText(a.country, b.country), [hasText(a.country), hasText(b.country)], same(a.country, b.country)),
    term('businessSize', sizeSimilarity(a.businessSize, b.businessSize), [sizeRank(a.businessSize) >= 0, sizeRank(b.businessSize) >= 0]),
    term('catalogSize', catalogSimilarity(a.productCount, b.productCount), [
      a.productCount !== null && a.productCount >= 0,
      b.productCount !== null && b.productCount >= 0,
    ]),
    term(
      'commercePlatform',
      sameText(a.commercePlatform, b.commercePlatform),
      [hasText(a.commercePlatform), hasText(b.commercePlatform)],
      same(a.commercePlatform, b.commercePlatform),
    ),
  ];
}

/** The sum of the terms' points: 0 to 100, symmetric. */
export function matchRate(a: BrandProfile, b: BrandProfile): number {
  return Math.min(
    100,
    matchTerms(a, b).reduce((sum, term) => sum + term.points, 0),
  );
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
