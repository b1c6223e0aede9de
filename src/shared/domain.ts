import { domainToASCII } from 'node:url';

/**
 * The one rule for a domain entering the service (platform sync, dashboard sign-up and claims,
 * the plugin and the sandbox store pages, order intake, the admin API, the CLI, fixtures), so
 * every form of a domain names the same record everywhere. The published plugin loader keeps its
 * own first check (web/loader/domain.ts); the service applies this rule to what it is sent.
 */

export const MAX_DOMAIN_LENGTH = 100;

export type ParsedDomain = { domain: string; problem: null } | { domain: null; problem: string };

const WEB_SCHEMES = ['http', 'https'];
// RFC 3986 scheme syntax, followed by "://".
const SCHEME_WITH_AUTHORITY = /^([a-z][a-z0-9+.-]*):\/\//i;
// http or https followed by anything but "//": "https:/brand.example", "http:brand.example".
const MALFORMED_WEB_SCHEME = /^(https?):/i;
// Another scheme without "//": "mailto:someone", "ftp:/x". A host with a port is not one: only
// digits follow its colon ("localhost:8080"), or its name has a dot ("brand.example:/path" has
// an empty port).
const SCHEME_WITHOUT_AUTHORITY = /^([a-z][a-z0-9+-]*):(?!\d+(?:[/?#]|$))(?=.)/i;
const PORT = /^\d{1,5}$/;
const MAX_PORT = 65535;
const LEADING_WWW = 'www.';
// A canonical domain is ASCII: internationalized labels are in their punycode (xn--) form.
const CANONICAL_CHARACTERS = /^[a-z0-9._-]+$/;

const refuse = (problem: string): ParsedDomain => ({ domain: null, problem });
const unsupportedScheme = (scheme: string) => `has an unsupported scheme "${scheme}" (only http:// and https:// are accepted)`;

/**
 * The canonical domain of a brand's website (SPEC 4.2 plus UTS-46): remove the scheme (http://
 * or https://), the path, query string and fragment, and the port; map the host with UTS-46
 * (node's url.domainToASCII, as browsers do) to its lowercase ASCII form, so café.example,
 * CAFÉ.example, xn--caf-dma.example and a full-width ｃａｆé．example are one domain; then
 * remove one leading www. Other subdomains stay: shop.brand.example is not reduced to
 * brand.example. The result is 1 to 100 characters.
 *
 * Refused, rather than guessed at, with the problem naming the failed check: a host that UTS-46
 * does not map (a disallowed character, a label mixing directions), another scheme, a malformed
 * or doubled scheme, user information, an IP literal in brackets, whitespace, a malformed port,
 * an empty label (a leading, trailing or doubled dot), and a second leading www.
 * (www.www.brand.example): removing only one would give www.brand.example, which sent again
 * names brand.example, so no stored domain could be sent back to its own record.
 */
export function parseDomain(input: string): ParsedDomain {
  let rest = input.trim();
  const scheme = SCHEME_WITH_AUTHORITY.exec(rest);
  if (scheme) {
    const name = scheme[1]!.toLowerCase();
    if (!WEB_SCHEMES.includes(name)) return refuse(unsupportedScheme(`${name}://`));
    rest = rest.slice(scheme[0].length);
  }

  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  if (authority.includes('@')) return refuse('contains user information (user@host); send the host only');
  if (authority.startsWith('[')) return refuse('is an IP address in brackets, not a domain');
  if (/\s/.test(authority)) return refuse('contains whitespace');

  const bareScheme = SCHEME_WITH_AUTHORITY.exec(rest) ?? MALFORMED_WEB_SCHEME.exec(rest) ?? SCHEME_WITHOUT_AUTHORITY.exec(rest);
  if (bareScheme) {
    if (scheme) return refuse('has more than one scheme');
    const name = bareScheme[1]!.toLowerCase();
    const written = bareScheme[0].toLowerCase();
    return WEB_SCHEMES.includes(name)
      ? refuse(`has a malformed scheme "${written}" (expected ${name}://)`)
      : refuse(unsupportedScheme(written));
  }

  let host = authority;
  const portStart = authority.indexOf(':');
  if (portStart !== -1) {
    const port = authority.slice(portStart + 1);
    if (!PORT.test(port) || Number(port) > MAX_PORT) return refuse(`has a malformed port "${port}" (expected 0 to ${MAX_PORT})`);
    host = authority.slice(0, portStart);
  }
  return canonicalHost(host);
}

function canonicalHost(host: string): ParsedDomain {
  // domainToASCII reads a backslash as the end of the host (as in a URL) and drops what follows.
  if (host.includes('\\')) return refuse('is not a valid domain (only letters, digits, dots, hyphens and underscores)');
  const ascii = domainToASCII(host);
  if (ascii === '' && host !== '')
    return refuse('does not map to a domain name (UTS-46): a character is not allowed in a domain, or a label mixes writing directions');
  const domain = ascii.startsWith(LEADING_WWW) ? ascii.slice(LEADING_WWW.length) : ascii;
  if (domain.startsWith(LEADING_WWW)) return refuse('has more than one leading www. (send it with one at most)');
  if (domain.length === 0) return refuse('is empty after normalization');
  if (!CANONICAL_CHARACTERS.test(domain)) return refuse('is not a valid domain (only letters, digits, dots, hyphens and underscores)');
  if (domain.split('.').includes('')) return refuse('has an empty label (a leading, trailing or doubled dot)');
  if (domain.length > MAX_DOMAIN_LENGTH) {
    return refuse(`is longer than ${MAX_DOMAIN_LENGTH} characters after normalization (${domain.length})`);
  }
  return { domain, problem: null };
}

/**
 * A store's domain by the same rule, or null when it is none: a store domain also has a dot (a
 * bare word such as localhost is a typo, not a store).
 */
export function storeDomain(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const { domain } = parseDomain(value);
  return domain?.includes('.') ? domain : null;
}
