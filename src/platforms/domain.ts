/**
 * Normalizes a brand's website to the domain stored for it (SPEC 4.2): lowercase the host,
 * remove the scheme (http:// or https://), a leading www., the port, and the path, query string
 * and fragment. Other subdomains stay: shop.brand.example is not reduced to brand.example.
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

// Letters and digits of any script (internationalized names), dots, hyphens and underscores.
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
