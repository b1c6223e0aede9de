// The loader's own first check of a store domain, exactly as published in v2.0.0: a change of
// its code (here or in store-domain.ts) changes the minified loader and so its pinned integrity hash.
// It only decides whether the loader mounts; the service canonicalizes the domain again with the
// one rule of SPEC 4.2 plus UTS-46 (src/shared/domain.ts), which runs in Node only.

/**
 * Lowercases the host and removes the scheme (http:// or https://), a leading www., the port,
 * and the path, query string and fragment.
 */
export function normalizeDomain(input: string): string {
  let host = input.trim().toLowerCase();
  host = host.replace(/^https?:\/\//, '');
  const end = host.search(/[/?#]/);
  if (end !== -1) host = host.slice(0, end);
  host = host.replace(/:\d*$/, '');
  if (host.startsWith('www.')) host = host.slice(4);
  return host;
}

export const MAX_DOMAIN_LENGTH = 100;

// Letters and digits of any script, dots, hyphens and underscores.
const HOST_CHARACTERS = /^[\p{L}\p{N}._-]+$/u;

/** Why a normalized domain cannot be stored, or null when it can. */
export function domainProblem(normalized: string): string | null {
  if (normalized.length === 0) return 'is empty after normalization';
  if (normalized.length > MAX_DOMAIN_LENGTH) {
    return `is longer than ${MAX_DOMAIN_LENGTH} characters after normalization (${normalized.length})`;
  }
  if (!HOST_CHARACTERS.test(normalized)) return 'is not a valid domain (only letters, digits, dots, hyphens and underscores)';
  return null;
}
