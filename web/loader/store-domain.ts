import { domainProblem, normalizeDomain } from './domain';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isPlatformId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value.trim());
}

/**
 * The merchant's store domain as the plugin uses it (SPEC 4.7: scheme, path and a leading www.
 * dropped, same rule as SPEC 4.2), or null when it is missing or malformed. A store domain has
 * at least one dot: a bare word is a typo, not a store. The loader's frozen copy (see domain.ts):
 * the service decides on the domain it is sent.
 */
export function storeDomain(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const domain = normalizeDomain(value);
  if (domainProblem(domain) !== null) return null;
  if (!domain.includes('.') || domain.startsWith('.') || domain.endsWith('.') || domain.includes('..')) return null;
  return domain;
}
