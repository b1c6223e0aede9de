import { domainProblem } from './domain.js';

// Apart from `domain.ts`: that module is bundled into the published plugin loader v2.0.0, whose
// bytes (and so its integrity hash) change with any edit of the module, even of code the loader
// does not use.

export type ParsedDomain = { domain: string; problem: null } | { domain: null; problem: string };

const WEB_SCHEMES = ['http', 'https'];
// RFC 3986 scheme syntax, followed by "://".
const SCHEME_WITH_AUTHORITY = /^([a-z][a-z0-9+.-]*):\/\//;
// http or https followed by anything but "//": "https:/brand.example", "http:brand.example".
const MALFORMED_WEB_SCHEME = /^(https?):/;
// Another scheme without "//": "mailto:someone", "ftp:/x". A host with a port is not one: only
// digits follow its colon ("localhost:8080"), or its name has a dot ("brand.example:/path" has
// an empty port).
const SCHEME_WITHOUT_AUTHORITY = /^([a-z][a-z0-9+-]*):(?!\d+(?:[/?#]|$))(?=.)/;
const PORT = /^\d{1,5}$/;
const MAX_PORT = 65535;

const refuse = (problem: string): ParsedDomain => ({ domain: null, problem });
const unsupportedScheme = (scheme: string) => `has an unsupported scheme "${scheme}" (only http:// and https:// are accepted)`;

/**
 * The domain stored for a brand's website (SPEC 4.2): lowercase the host, remove the scheme
 * (http:// or https://), a leading www., the port, and the path, query string and fragment.
 * Other subdomains stay: shop.brand.example is not reduced to brand.example. A leading www. is
 * removed as often as it repeats, so that the stored domain, sent again, names the same record
 * (www.www.brand.example is brand.example). Anything else that is not a plain host is refused
 * rather than guessed at: another scheme, a malformed or doubled scheme, user information, an IP
 * literal in brackets, whitespace, a malformed port, an empty label (a leading, trailing or
 * doubled dot). The problem names the failed check.
 */
export function parseDomain(input: string): ParsedDomain {
  let rest = input.trim().toLowerCase();
  const scheme = SCHEME_WITH_AUTHORITY.exec(rest);
  if (scheme) {
    if (!WEB_SCHEMES.includes(scheme[1]!)) return refuse(unsupportedScheme(scheme[0]));
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
    const name = bareScheme[1]!;
    return WEB_SCHEMES.includes(name) ? refuse(`has a malformed scheme "${bareScheme[0]}" (expected ${name}://)`) : refuse(unsupportedScheme(bareScheme[0]));
  }

  let host = authority;
  const portStart = authority.indexOf(':');
  if (portStart !== -1) {
    const port = authority.slice(portStart + 1);
    if (!PORT.test(port) || Number(port) > MAX_PORT) return refuse(`has a malformed port "${port}" (expected 0 to ${MAX_PORT})`);
    host = authority.slice(0, portStart);
  }
  while (host.startsWith('www.')) host = host.slice(4);

  const problem = domainProblem(host) ?? (host.split('.').includes('') ? 'has an empty label (a leading, trailing or doubled dot)' : null);
  return problem === null ? { domain: host, problem: null } : refuse(problem);
}
