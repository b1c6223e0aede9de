import type { Recommendation } from './api.ts';

type Term = NonNullable<Recommendation['matchTerms']>[number];

const FACTOR_NAMES: Record<Term['factor'], string> = {
  categories: 'categories',
  country: 'country',
  businessSize: 'business size',
  catalogSize: 'number of products',
  commercePlatform: 'store platform',
};

const WHOSE: Record<NonNullable<Term['missing']>, string> = {
  you: 'yours is not known',
  them: 'theirs is not known',
  both: 'neither is known',
};

/** A term the scorer could compare, in plain words: what the two brands share, or that they differ. */
function compared(term: Term): string {
  const full = term.points === term.weight;
  switch (term.factor) {
    case 'categories':
      return term.points > 0 ? `You both sell ${(term.shared ?? []).join(', ')}` : 'No category in common';
    case 'country':
      return term.points > 0 ? `Both based in ${term.same}` : 'Based in different countries';
    case 'businessSize':
      if (full) return 'The same business size';
      return term.points > 0 ? 'Close in business size' : 'Very different business sizes';
    case 'catalogSize':
      if (full) return 'A similar number of products';
      return term.points > 0 ? 'A somewhat different number of products' : 'Very different numbers of products';
    case 'commercePlatform':
      return term.points > 0 ? `Both sell on ${term.same}` : 'Different store platforms';
  }
}

/**
 * Why a recommendation has its match rate, from the scorer's own terms: each compared factor with
 * the points it gave (they add up to the rate), then what could not be compared and why.
 */
export function MatchWhy({ rate, terms }: { rate: number; terms: Term[] }) {
  const known = terms.filter((term) => !term.missing);
  const missing = terms.filter((term) => term.missing);
  return (
    <details class="match-why">
      <summary>Why {rate}%?</summary>
      {known.length > 0 ? (
        <ul aria-label="What counts">
          {known.map((term) => (
            <li>
              {compared(term)}: {term.points} of {term.weight} points
            </li>
          ))}
        </ul>
      ) : (
        <p>Nothing is known that the two of you share.</p>
      )}
      {missing.length > 0 && (
        <p class="muted">
          Not compared, so no points: {missing.map((term) => `${FACTOR_NAMES[term.factor]} (${WHOSE[term.missing ?? 'both']})`).join(', ')}.
        </p>
      )}
    </details>
  );
}
