import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_DOMAIN_LENGTH, parseDomain, storeDomain } from './domain.js';
import { browserHost, domainForms, label } from '../../test/support/domain-forms.js';

// A lone "http" or "https" followed by a port reads as a malformed scheme ("http:80"), and is refused.
const host = fc
  .array(label, { minLength: 1, maxLength: 4 })
  .map((labels) => labels.join('.'))
  .filter((text) => text !== 'http' && text !== 'https' && !text.startsWith('www.'));
// Brand domains have a dot; a single label followed by a colon could be a scheme or a host:port.
const dottedHost = fc.array(label, { minLength: 2, maxLength: 4 }).map((labels) => labels.join('.'));
const webScheme = fc.constantFrom('', 'http://', 'https://', 'HTTP://', 'Https://');
const tail = fc.constantFrom('', '/', '/path/to', '/p?q=1', '?q=1&r=2', '#frag', '/a?b=c#d', '/x:80/y', '/user@x', '/ftp://x');

const otherScheme = fc.constantFrom(
  'ftp://',
  'FTP://',
  'ws://',
  'wss://',
  'file://',
  'git+ssh://',
  'ftp:/',
  'mailto:',
  'javascript:',
  'data:',
);
const malformedWebScheme = fc.constantFrom('https:/', 'http:/', 'HTTPS:/', 'https:', 'http:\\\\', 'https:brand', 'http:80/');
const port = fc.option(
  fc.integer({ min: 0, max: 65535 }).map((n) => `:${n}`),
  { nil: '' },
);
const refusedAddresses: Array<[string, fc.Arbitrary<string>, RegExp]> = [
  ['another scheme', fc.tuple(otherScheme, dottedHost, tail).map(([s, h, t]) => `${s}${h}${t}`), /unsupported scheme/],
  ['a malformed http(s) scheme', fc.tuple(malformedWebScheme, dottedHost, tail).map(([s, h, t]) => `${s}${h}${t}`), /malformed scheme/],
  [
    'a doubled scheme',
    fc
      .tuple(fc.constantFrom('http://', 'https://'), fc.constantFrom('http://', 'https://', 'ftp://', 'https:/', 'mailto:'), dottedHost)
      .map(([a, b, h]) => `${a}${b}${h}`),
    /more than one scheme/,
  ],
  [
    'user information',
    fc
      .tuple(webScheme, fc.constantFrom('user@', 'user:secret@', '@', 'a.b@'), dottedHost, port, tail)
      .map(([s, u, h, p, t]) => `${s}${u}${h}${p}${t}`),
    /user information/,
  ],
  [
    'an IPv6 literal',
    fc
      .tuple(webScheme, fc.constantFrom('[::1]', '[2001:db8::1]', '[::ffff:192.0.2.1]'), port, tail)
      .map(([s, ip, p, t]) => `${s}${ip}${p}${t}`),
    /IP address in brackets/,
  ],
  [
    'a malformed port',
    fc
      .tuple(webScheme, dottedHost, fc.constantFrom(':', ':65536', ':123456', ':8a', ':-1', '::80'), tail)
      .map(([s, h, p, t]) => `${s}${h}${p}${t}`),
    /malformed port/,
  ],
  [
    'an empty label (trailing, leading or doubled dot)',
    fc
      .tuple(webScheme, dottedHost, fc.constantFrom('.', '..'), tail, fc.constantFrom('end', 'start', 'middle'))
      .map(([s, h, dots, t, where]) => {
        if (where === 'end') return `${s}${h}${dots}${t}`;
        if (where === 'start') return `${s}${dots}${h}${t}`;
        return `${s}${h}..${h}${t}`;
      }),
    /empty label/,
  ],
  [
    'a second leading www.',
    fc
      .tuple(webScheme, fc.constantFrom('www.www.', 'WWW.www.', 'ｗｗｗ．ｗｗｗ．', 'www。www。'), dottedHost, port, tail)
      .map(([s, w, h, p, t]) => `${s}${w}${h}${p}${t}`),
    /more than one leading www\./,
  ],
  [
    'a host UTS-46 does not map',
    fc
      .tuple(
        webScheme,
        fc.constantFrom('shopשלום', '٠١٢', 'xn--café', 'a\u200d', 'brand／shop', 'brand：443', 'ｕｓｅｒ＠brand', 'a%00b'),
        dottedHost,
        port,
        tail,
      )
      .map(([s, bad, h, p, t]) => `${s}${bad}.${h}${p}${t}`),
    /does not map to a domain name \(UTS-46\)/,
  ],
];

describe('parseDomain', () => {
  it('matches the examples of SPEC 4.2', () => {
    expect(parseDomain('https://www.Brand.example:8443/shop?ref=1#top')).toEqual({ domain: 'brand.example', problem: null });
    expect(parseDomain('http://shop.brand.example').domain).toBe('shop.brand.example');
    expect(parseDomain('WWW.BRAND.EXAMPLE').domain).toBe('brand.example');
    expect(parseDomain('  WWW.BRAND.EXAMPLE/ ').domain).toBe('brand.example');
    expect(parseDomain('brand.example/').domain).toBe('brand.example');
    expect(parseDomain('  https://brand.example  ').domain).toBe('brand.example');
    expect(parseDomain('shop.www.brand.example').domain).toBe('shop.www.brand.example');
    expect(parseDomain('brand.example:/path').problem).toMatch(/malformed port ""/);
    expect(parseDomain('https://www./').problem).toBe('is empty after normalization');
    expect(parseDomain('https://bad host.example/').problem).toBe('contains whitespace');
    expect(parseDomain('www').domain).toBe('www');
  });

  it('maps every form of an internationalized name to its one ASCII (punycode) form, with UTS-46', () => {
    const cafe = [
      'café.example',
      'CAFÉ.example',
      'xn--caf-dma.example',
      'XN--CAF-DMA.EXAMPLE',
      'ｃａｆé．example',
      'cafe\u0301.example',
      'https://www.café.example:443/menu',
      'ｗｗｗ．café。example',
    ];
    for (const form of cafe) expect(parseDomain(form), form).toEqual({ domain: 'xn--caf-dma.example', problem: null });
    expect(parseDomain('ｂｒａｎｄ.example').domain).toBe('brand.example');
    expect(parseDomain('ＢＲＡＮＤ．ＥＸＡＭＰＬＥ').domain).toBe('brand.example');
    expect(parseDomain('BÜCHER.example').domain).toBe('xn--bcher-kva.example');
    expect(parseDomain('straße.example').domain).toBe('xn--strae-oqa.example');
  });

  it('removes one leading www. and refuses a second, so that no stored domain names another record', () => {
    expect(parseDomain('www.brand.example').domain).toBe('brand.example');
    expect(parseDomain('www.www.brand.example').problem).toBe('has more than one leading www. (send it with one at most)');
    expect(parseDomain('https://ｗｗｗ．ｗｗｗ．brand.example/').problem).toMatch(/more than one leading www\./);
    expect(parseDomain('www.shop.www.brand.example').domain).toBe('shop.www.brand.example');
  });

  it('refuses the forms the audit found stored as a scheme name', () => {
    expect(parseDomain('ftp://brand.example/').problem).toBe('has an unsupported scheme "ftp://" (only http:// and https:// are accepted)');
    expect(parseDomain('FTP://brand.example/').problem).toBe('has an unsupported scheme "ftp://" (only http:// and https:// are accepted)');
    expect(parseDomain('https:/brand.example').problem).toBe('has a malformed scheme "https:" (expected https://)');
    expect(parseDomain('http://http://a.example').problem).toBe('has more than one scheme');
  });

  it('refuses a backslash rather than reading it as the end of the host', () => {
    expect(parseDomain('brand.example\\evil.example').problem).toMatch(/not a valid domain/);
    expect(parseDomain('brand.example＼evil.example').problem).toMatch(/does not map/);
  });

  it('keeps 1 to 100 characters of the ASCII form', () => {
    expect(parseDomain('a').domain).toBe('a');
    expect(parseDomain('a'.repeat(100)).domain).toBe('a'.repeat(100));
    expect(parseDomain('a'.repeat(101)).problem).toMatch(/longer than 100 characters after normalization \(101\)/);
    expect(parseDomain('').problem).toMatch(/empty/);
    // 70 characters as written, 109 as punycode.
    expect(parseDomain(`${'bücherstraßeжπ中äøñé'.repeat(3)}.café.example`).problem).toBe(
      'is longer than 100 characters after normalization (109)',
    );
    expect(parseDomain('user@host.example').problem).toMatch(/user information/);
    expect(parseDomain('a!b.example').problem).toMatch(/not a valid domain/);
  });

  it('strips exactly scheme, one leading www., port, path, query and fragment, whatever the case and width', () => {
    fc.assert(
      fc.property(domainForms(host), ({ input, plain }) => {
        expect(parseDomain(input)).toEqual({ domain: browserHost(plain), problem: null });
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

  it('is idempotent and gives ASCII only', () => {
    const canonical = (input: string) => {
      const once = parseDomain(input);
      if (once.domain === null) return;
      expect(once.domain).toMatch(/^[a-z0-9._-]{1,100}$/);
      expect(parseDomain(once.domain)).toEqual(once);
    };
    fc.assert(fc.property(fc.string({ maxLength: 200 }), canonical));
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), canonical));
    fc.assert(
      fc.property(
        domainForms(host).map(({ input }) => input),
        canonical,
      ),
    );
    for (const [, addresses] of refusedAddresses) fc.assert(fc.property(addresses, canonical));
  });

  it('is never longer than an ASCII host as written', () => {
    const asciiHost = host.filter((text) => [...text].every((character) => character.charCodeAt(0) < 0x80));
    fc.assert(
      fc.property(domainForms(asciiHost, { fullWidth: false }), ({ input, written }) => {
        expect(parseDomain(input).domain!.length).toBeLessThanOrEqual(written.length);
      }),
    );
  });

  it('keeps every other subdomain', () => {
    fc.assert(
      fc.property(label, host, (sub, rest) => {
        fc.pre(sub !== 'www');
        const kept = browserHost(`${sub}.${rest}`);
        // Four labels of non-ASCII letters can pass the 100 characters once written as Punycode: refused, saying so.
        if (kept.length > MAX_DOMAIN_LENGTH)
          expect(parseDomain(`https://${sub}.${rest}/`).problem).toMatch(/is longer than 100 characters/);
        else expect(parseDomain(`https://${sub}.${rest}/`).domain).toBe(kept);
      }),
    );
  });
});

describe('storeDomain', () => {
  it('is the canonical domain when it has a dot, else null', () => {
    expect(storeDomain('https://www.ＣＡＦÉ.example/shop')).toBe('xn--caf-dma.example');
    expect(storeDomain('localhost')).toBeNull();
    expect(storeDomain('ｌｏｃａｌｈｏｓｔ')).toBeNull();
    expect(storeDomain('shopשלום.example')).toBeNull();
    expect(storeDomain(42)).toBeNull();
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (input) => {
        const { domain } = parseDomain(input);
        expect(storeDomain(input)).toBe(domain?.includes('.') ? domain : null);
      }),
    );
  });
});
