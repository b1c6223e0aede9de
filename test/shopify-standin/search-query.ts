import { shopifyError } from './errors.js';

/**
 * The part of Shopify's search syntax (https://shopify.dev/docs/api/usage/search-syntax) that a
 * commerce adapter uses: `field:value` terms joined by spaces or AND, with `>`, `>=`, `<`, `<=`
 * on dates and numbers and comma lists for statuses. Anything else (OR, negation, free text, an
 * unknown field) is refused with an error rather than ignored, so an adapter never believes a
 * filter was applied when it was not.
 */
export type Comparator = '=' | '>' | '>=' | '<' | '<=';

export interface SearchTerm {
  field: string;
  comparator: Comparator;
  value: string;
}

export function parseSearchQuery(query: string | null | undefined): SearchTerm[] {
  if (!query?.trim()) return [];
  const tokens = query.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [];
  const terms: SearchTerm[] = [];
  for (const token of tokens) {
    if (token === 'AND') continue;
    const match = /^([a-z_]+):(>=|<=|>|<)?(.+)$/.exec(token);
    if (!match)
      throw shopifyError(
        `The Shopify stand-in supports only field:value search terms joined by AND, not '${token}'`,
        'STAND_IN_NOT_IMPLEMENTED',
      );
    const raw = match[3]!;
    terms.push({ field: match[1]!, comparator: (match[2] as Comparator | undefined) ?? '=', value: raw.replace(/^(['"])(.*)\1$/, '$2') });
  }
  return terms;
}

export type Predicate<T> = (item: T) => boolean;

function compare(comparator: Comparator, left: number, right: number): boolean {
  switch (comparator) {
    case '=':
      return left === right;
    case '>':
      return left > right;
    case '>=':
      return left >= right;
    case '<':
      return left < right;
    case '<=':
      return left <= right;
  }
}

export function datePredicate<T>(term: SearchTerm, dateOf: (item: T) => Date): Predicate<T> {
  const bound = Date.parse(term.value);
  if (Number.isNaN(bound)) throw shopifyError(`Invalid date in search term ${term.field}:${term.value}`, 'BAD_REQUEST');
  return (item) => compare(term.comparator, dateOf(item).getTime(), bound);
}

export function listPredicate<T>(term: SearchTerm, fieldOf: (item: T) => string): Predicate<T> {
  if (term.comparator !== '=') throw shopifyError(`${term.field} takes no comparison`, 'BAD_REQUEST');
  const accepted = new Set(term.value.toLowerCase().split(','));
  return (item) => accepted.has(fieldOf(item).toLowerCase());
}

export function numberPredicate<T>(term: SearchTerm, fieldOf: (item: T) => number): Predicate<T> {
  const bound = Number(term.value);
  if (!Number.isFinite(bound)) throw shopifyError(`Invalid number in search term ${term.field}:${term.value}`, 'BAD_REQUEST');
  return (item) => compare(term.comparator, fieldOf(item), bound);
}

/** A filter over `items` built from the query's terms, each field mapped by `fields`. */
export function searchFilter<T>(
  query: string | null | undefined,
  fields: Record<string, (term: SearchTerm) => Predicate<T>>,
): Predicate<T> {
  const predicates = parseSearchQuery(query).map((term) => {
    const build = fields[term.field];
    if (!build)
      throw shopifyError(
        `The Shopify stand-in does not implement the search field '${term.field}' here (supported: ${Object.keys(fields).join(', ')})`,
        'STAND_IN_NOT_IMPLEMENTED',
      );
    return build(term);
  });
  return (item) => predicates.every((predicate) => predicate(item));
}
