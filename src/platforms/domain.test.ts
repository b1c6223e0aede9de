import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { domainProblem, normalizeDomain } from './domain.js';
import { parseDomain } from './domain-parser.js';

const asciiLabel = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const unicodeLabel = fc
  .array(fc.constantFrom(...'aüéøñßжπ中ä0-'), { minLength: 1, maxLength: 10 })
  .map((chars) => chars.join(''))
  .filter((text) => !text.startsWith('-') && !text.endsWith('-'));
const label = fc.oneof(asciiLabel, unicodeLabel);
// A lone "http" or "https" followed by a port reads as a malformed scheme ("http:80"), and is refused.
const host = fc
  .array(label, { minLength: 1, maxLength: 4 })
  .map((labels) => labels.join('.'))
  .filter((text) => text !== 'http' && text !== 'https');
// Brand domains have a dot; a single label followed by a colon could be a scheme or a host:port.
const dottedHost = fc.array(label, { minLength: 2, maxLength: 4 }).map((labels) => labels.join('.'));
const webScheme = fc.constantFrom('', 'http://', 'https://', 'HTTP://', 'Https://');
const www = fc.constantFrom('', 'www.', 'WWW.', 'www.www.');
const port = fc.option(fc.integer({ min: 0, max: 65535 }).map((n) => `:${n}`), { nil: '' });
const tail = fc.constantFrom('', '/', '/path/to', '/p?q=1', '?q=1&r=2', '#frag', '/a?b=c#d', '/x:80/y', '/user@x', '/ftp://x');
const flips = fc.array(fc.boolean(), { minLength: 1, maxLength: 8 });

/** Uppercases some characters, only those whose uppercase lowercases back to them (not ß). */
const mixCase = (text: string, upper: boolean[]) =>
  [...text]
    .map((char, i) => {
      const upperChar = char.toUpperCase();
      return upper[i % upper.length] && upperChar.toLowerCase() === char ? upperChar : char;
    })
    .join('');
const withoutLeadingWww = (text: string) => text.replace(/^(www\.)+/, '');

/** A web address whose normalized domain is known: [input, expected domain, input's host]. */
const webAddress = fc.tuple(webScheme, www, host, port, tail, flips).map(([s, w, h, p, t, upper]) => {
  const inputHost = mixCase(w + h, upper);
  return [`${s}${inputHost}${p}${t}`, withoutLeadingWww(h), inputHost] as const;
});

const otherScheme = fc.constantFrom('ftp://', 'FTP://', 'ws://', 'wss://', 'file://', 'git+ssh://', 'ftp:/', 'mailto:', 'javascript:', 'data:');
const malformedWebScheme = fc.constantFrom('https:/', 'http:/', 'HTTPS:/', 'https:', 'http:\\\\', 'https:brand', 'http:80/');
const refusedAddresses: Array<[string, fc.Arbitrary<string>, RegExp]> = [
  ['another scheme', fc.tuple(otherScheme, dottedHost, tail).map(([s, h, t]) => `${s}${h}${t}`), /unsupported scheme/],
  ['a malformed http(s) scheme', fc.tuple(malformedWebScheme, dottedHost, tail).map(([s, h, t]) => `${s}${h}${t}`), /malformed scheme/],
  [
    'a doubled scheme',
    fc.tuple(fc.constantFrom('http://', 'https://'), fc.constantFrom('http://', 'https://', 'ftp://', 'https:/', 'mailto:'), dottedHost).map(([a, b, h]) => `${a}${b}${h}`),
    /more than one scheme/,
  ],
  [
    'user information',
    fc.tuple(webScheme, fc.constantFrom('user@', 'user:secret@', '@', 'a.b@'), dottedHost, port, tail).map(([s, u, h, p, t]) => `${s}${u}${h}${p}${t}`),
    /user information/,
  ],
  [
    'an IPv6 literal',
    fc.tuple(webScheme, fc.constantFrom('[::1]', '[2001:db8::1]', '[::ffff:192.0.2.1]'), port, tail).map(([s, ip, p, t]) => `${s}${ip}${p}${t}`),
    /IP address in brackets/,
  ],
  [
    'a malformed port',
    fc.tuple(webScheme, dottedHost, fc.constantFrom(':', ':65536', ':123456', ':8a', ':-1', '::80'), tail).map(([s, h, p, t]) => `${s}${h}${p}${t}`),
    /malformed port/,
  ],
  [
    'an empty label (trailing, leading or doubled dot)',
    fc.tuple(webScheme, dottedHost, fc.constantFrom('.', '..'), tail, fc.constantFrom('end', 'start', 'middle')).map(([s, h, dots, t, where]) => {
      if (where === 'end') return `${s}${h}${dots}${t}`;
      if (where === 'start') return `${s}${dots}${h}${t}`;
      return `${s}${h}..${h}${t}`;
    }),
    /empty label/,
  ],
];

describe('parseDomain', () => {
  it('matches the examples of SPEC 4.2', () => {
    expect(parseDomain('https://www.Brand.example:8443/shop?ref=1#top')).toEqual({ domain: 'brand.example', problem: null });
    expect(parseDomain('http://shop.brand.example').domain).toBe('shop.brand.example');
    expect(parseDomain('WWW.BRAND.EXAMPLE').domain).toBe('brand.example');
    expect(parseDomain('brand.example/').domain).toBe('brand.example');
    expect(parseDomain('  https://brand.example  ').domain).toBe('brand.example');
    expect(parseDomain('shop.www.brand.example').domain).toBe('shop.www.brand.example');
    expect(parseDomain('BÜCHER.example').domain).toBe('bücher.example');
    expect(parseDomain('brand.example:/path').problem).toMatch(/malformed port ""/);
    expect(parseDomain('https://www./').problem).toBe('is empty after normalization');
    expect(parseDomain('https://bad host.example/').problem).toBe('contains whitespace');
  });

  it('removes a repeated leading www. entirely, so the stored domain sent again names the same record', () => {
    expect(parseDomain('www.www.brand.example').domain).toBe('brand.example');
    expect(parseDomain('www').domain).toBe('www');
  });

  it('refuses the forms the audit found stored as a scheme name', () => {
    expect(parseDomain('ftp://brand.example/').problem).toBe('has an unsupported scheme "ftp://" (only http:// and https:// are accepted)');
    expect(parseDomain('https:/brand.example').problem).toBe('has a malformed scheme "https:" (expected https://)');
    expect(parseDomain('http://http://a.example').problem).toBe('has more than one scheme');
  });

  it('strips exactly scheme, leading www., port, path, query and fragment, and lowercases', () => {
    fc.assert(
      fc.property(webAddress, ([input, expected]) => {
        expect(parseDomain(input)).toEqual({ domain: expected, problem: null });
      }),
    );
  });

  for (const [form, addresses, problem] of refusedAddresses) {
    it(`refuses ${form}, naming the check`, () => {
      fc.assert(
        fc.property(addresses, (input) => {
          expect(parseDomain(input)).toEqual({ domain: null, problem: expect.stringMatching(problem) });
        }),
      );
    });
  }

  it('is idempotent', () => {
    const idempotent = (input: string) => {
      const once = parseDomain(input);
      if (once.domain !== null) expect(parseDomain(once.domain)).toEqual(once);
    };
    fc.assert(fc.property(fc.string({ maxLength: 200 }), idempotent));
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), idempotent));
    fc.assert(fc.property(webAddress.map(([input]) => input), idempotent));
    for (const [, addresses] of refusedAddresses) fc.assert(fc.property(addresses, idempotent));
  });

  it("is never longer than its input's host", () => {
    fc.assert(
      fc.property(webAddress, ([input, , inputHost]) => {
        expect(parseDomain(input).domain!.length).toBeLessThanOrEqual(inputHost.length);
      }),
    );
    // U+0130 (İ) is the one character whose lowercase is longer (i + U+0307), so arbitrary text
    // is measured against its lowercased self.
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (input) => {
        expect((parseDomain(input).domain ?? '').length).toBeLessThanOrEqual(input.trim().toLowerCase().length);
      }),
    );
  });

  it('keeps every other subdomain', () => {
    fc.assert(
      fc.property(label, host, (sub, rest) => {
        fc.pre(sub !== 'www');
        expect(parseDomain(`https://${sub}.${rest}/`).domain).toBe(`${sub}.${rest}`);
      }),
    );
  });
});

describe('domainProblem', () => {
  it('accepts 1 to 100 characters of host and refuses the rest', () => {
    expect(domainProblem('a')).toBeNull();
    expect(domainProblem('a'.repeat(100))).toBeNull();
    expect(domainProblem('bücher.example')).toBeNull();
    expect(domainProblem('')).toMatch(/empty/);
    expect(domainProblem('a'.repeat(101))).toMatch(/longer than 100/);
    expect(domainProblem('bad host.example')).toMatch(/not a valid domain/);
    expect(domainProblem('user@host.example')).toMatch(/not a valid domain/);
  });
});

describe('normalizeDomain (bundled into the published loader v2.0.0, unchanged)', () => {
  it('strips the parts SPEC 4.2 lists without judging the rest', () => {
    expect(normalizeDomain('https://www.Brand.example:8443/shop?ref=1#top')).toBe('brand.example');
    expect(normalizeDomain('http://shop.brand.example')).toBe('shop.brand.example');
    expect(normalizeDomain('  WWW.BRAND.EXAMPLE/ ')).toBe('brand.example');
  });
});
