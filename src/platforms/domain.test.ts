import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { domainProblem, normalizeDomain } from './domain.js';

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));
const scheme = fc.constantFrom('', 'http://', 'https://', 'HTTP://', 'Https://');
const www = fc.constantFrom('', 'www.', 'WWW.');
const port = fc.option(fc.integer({ min: 1, max: 65535 }).map((n) => `:${n}`), { nil: '' });
const tail = fc.constantFrom('', '/', '/path/to', '/p?q=1', '?q=1&r=2', '#frag', '/a?b=c#d', '/x:80/y');
const mixCase = (text: string, flips: boolean[]) =>
  [...text].map((char, i) => (flips[i % Math.max(flips.length, 1)] ? char.toUpperCase() : char)).join('');

describe('normalizeDomain', () => {
  it('matches the examples of SPEC 4.2', () => {
    expect(normalizeDomain('https://www.Brand.example:8443/shop?ref=1#top')).toBe('brand.example');
    expect(normalizeDomain('http://shop.brand.example')).toBe('shop.brand.example');
    expect(normalizeDomain('WWW.BRAND.EXAMPLE')).toBe('brand.example');
    expect(normalizeDomain('brand.example/')).toBe('brand.example');
    expect(normalizeDomain('  https://brand.example  ')).toBe('brand.example');
    expect(normalizeDomain('www.www.brand.example')).toBe('www.brand.example');
    expect(normalizeDomain('shop.www.brand.example')).toBe('shop.www.brand.example');
  });

  it('strips exactly scheme, leading www., port, path, query and fragment, and lowercases', () => {
    fc.assert(
      fc.property(scheme, www, host, port, tail, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), (s, w, h, p, t, flips) => {
        const input = `${s}${mixCase(w + h, flips)}${p}${t}`;
        // A host that itself starts with "www." keeps its second www. only when the input had a www. prefix before it.
        const expected = w === '' && h.startsWith('www.') ? h.slice(4) : h;
        expect(normalizeDomain(input)).toBe(expected);
      }),
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (input) => {
        const once = normalizeDomain(input);
        expect(normalizeDomain(once)).toBe(once);
      }),
    );
    fc.assert(
      fc.property(scheme, www, host, port, tail, (s, w, h, p, t) => {
        const once = normalizeDomain(`${s}${w}${h}${p}${t}`);
        expect(normalizeDomain(once)).toBe(once);
      }),
    );
  });

  it('is never longer than the host part of its input', () => {
    fc.assert(
      fc.property(scheme, www, host, port, tail, (s, w, h, p, t) => {
        expect(normalizeDomain(`${s}${w}${h}${p}${t}`).length).toBeLessThanOrEqual((w + h).length);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (input) => {
        expect(normalizeDomain(input).length).toBeLessThanOrEqual(input.trim().length);
      }),
    );
  });

  it('keeps every other subdomain', () => {
    fc.assert(
      fc.property(label, host, (sub, rest) => {
        fc.pre(sub !== 'www');
        expect(normalizeDomain(`https://${sub}.${rest}/`)).toBe(`${sub}.${rest}`);
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
