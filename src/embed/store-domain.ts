const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isPlatformId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value.trim());
}

/** The merchant's store domain (SPEC 4.7: the rule of SPEC 4.2), or null when it is none. */
export { storeDomain } from '../shared/domain.js';
