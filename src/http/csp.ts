/**
 * The one Content-Security-Policy builder. Every page of the service gets the base policy (nothing
 * from elsewhere, nothing inline, its own stylesheets and icon, forms to itself, unframeable) plus what the
 * page adds; helmet sends it (src/http/security-headers.ts). A pretend platform (the demo host) and
 * the API reference state their own directives and use the same serializer.
 */

/** Directive name → sources, e.g. `{ 'img-src': ["'self'", 'data:'] }`. */
export type PolicyDirectives = Record<string, string[]>;

/** Sources added to the base, by directive; `null` removes a directive of the base. */
export type PolicyAdditions = Record<string, string[] | null>;

export const SELF = ["'self'"];
/** Store logos and product photos come from anywhere, as the stores host them. */
export const ANY_IMAGE = ["'self'", 'data:', 'https:', 'http:'];

const BASE: PolicyDirectives = {
  'default-src': ["'none'"],
  'style-src': SELF,
  // The service's icon (every page links it).
  'img-src': SELF,
  'form-action': SELF,
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** The order directives are written in: frame-ancestors last, as before, so it reads at the end. */
const ORDER = [
  'default-src',
  'script-src',
  'style-src',
  'style-src-attr',
  'img-src',
  'font-src',
  'connect-src',
  'frame-src',
  'child-src',
  'object-src',
  'form-action',
  'base-uri',
  'frame-ancestors',
];
const rank = (name: string) => (ORDER.includes(name) ? ORDER.indexOf(name) : ORDER.length);

/** Puts directives in the written order, dropping none. */
function ordered(directives: PolicyDirectives): PolicyDirectives {
  return Object.fromEntries(Object.entries(directives).sort(([a], [b]) => rank(a) - rank(b)));
}

/**
 * The base policy with the page's additions: sources are added to a directive, or replace it when
 * it held `'none'` (frame-ancestors with the origins that may frame the page); an empty list adds
 * nothing, so a page nobody may frame stays at `'none'`.
 */
export function pagePolicy(additions: PolicyAdditions = {}): PolicyDirectives {
  const result: PolicyDirectives = { ...BASE };
  for (const [name, sources] of Object.entries(additions)) {
    if (sources === null) {
      delete result[name];
      continue;
    }
    if (sources.length === 0) continue;
    const current = result[name];
    const replaces = !current || (current.length === 1 && current[0] === "'none'");
    result[name] = replaces ? [...sources] : [...current, ...sources.filter((source) => !current.includes(source))];
  }
  return ordered(result);
}

/** The header value of a policy, for a server that sends it without helmet (the demo host). */
export function policyHeader(directives: PolicyDirectives): string {
  return Object.entries(ordered(directives))
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');
}
