import { domainToASCII } from 'node:url';
import fc from 'fast-check';

/** A last label of digits, or 0x and hex digits: UTS-46 hosts ending in one are read as IPv4 addresses. */
const NUMERIC_LABEL = /^(\d+|0x[0-9a-f]*)$/;
const isPlainLabel = (text: string) => !NUMERIC_LABEL.test(text) && !text.startsWith('xn--');

const asciiLabel = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/).filter(isPlainLabel);
const unicodeLabel = fc
  .array(fc.constantFrom(...'aüéøñßжπ中ä0-'), { minLength: 1, maxLength: 8 })
  .map((chars) => chars.join(''))
  .filter((text) => !text.startsWith('-') && !text.endsWith('-') && isPlainLabel(text));
/** One label of a brand's domain as a person types it: ASCII, or letters of other scripts (lowercase). */
export const label = fc.oneof(asciiLabel, unicodeLabel);

/** What a browser makes of a host: the WHATWG URL parser's host, which applies UTS-46. */
export const browserHost = (text: string) => new URL(`http://${text}`).hostname;

/** Uppercases some characters, only those whose uppercase lowercases back to them (not ß). */
const mixCase = (text: string, upper: boolean[]) =>
  [...text]
    .map((char, i) => {
      const upperChar = char.toUpperCase();
      return upper[i % upper.length] && upperChar.toLowerCase() === char ? upperChar : char;
    })
    .join('');

/** Writes some ASCII characters in their full-width forms (U+FF01 to U+FF5E), which UTS-46 maps back. */
const widen = (text: string, wide: boolean[]) =>
  [...text]
    .map((char, i) => (wide[i % wide.length] && /^[!-~]$/.test(char) ? String.fromCodePoint(char.codePointAt(0)! + 0xfee0) : char))
    .join('');

const webScheme = fc.constantFrom('', 'http://', 'https://', 'HTTP://', 'Https://');
const www = fc.constantFrom('', 'www.', 'WWW.', 'ｗｗｗ．', 'www。');
const port = fc.option(
  fc.integer({ min: 0, max: 65535 }).map((n) => `:${n}`),
  { nil: '' },
);
const tail = fc.constantFrom('', '/', '/path/to', '/p?q=1', '?q=1&r=2', '#frag', '/a?b=c#d', '/x:80/y', '/user@x', '/ftp://x');
const flags = fc.array(fc.boolean(), { minLength: 1, maxLength: 8 });

export interface DomainForm {
  /** The address as sent. */
  input: string;
  /** The host without www., lowercase, as typed: its canonical domain is browserHost(plain). */
  plain: string;
  /** The host part of the input as written (www. included). */
  written: string;
}

/**
 * Addresses naming the given hosts in the forms a sender may use: with or without scheme, a
 * leading www., port, path, query and fragment; in mixed case; Unicode labels as typed or as
 * punycode; some characters and dots full-width (unless fullWidth is false). Hosts whose ASCII
 * form is over 100 characters are left out.
 */
export function domainForms(hosts: fc.Arbitrary<string>, options: { fullWidth?: boolean } = {}): fc.Arbitrary<DomainForm> {
  const fullWidth = options.fullWidth ?? true;
  return fc
    .tuple(webScheme, www, hosts, port, tail, flags, flags, flags)
    .filter(([, , plain]) => browserHost(plain).length <= 100)
    .map(([scheme, prefix, plain, portText, tailText, upper, wide, punycode]) => {
      const labels = plain.split('.').map((text, i) => (punycode[i % punycode.length] ? domainToASCII(text) : text));
      const cased = mixCase(labels.join('.'), upper);
      const written = (fullWidth ? prefix : prefix.replace(/^ｗｗｗ．|^www。/, 'www.')) + (fullWidth ? widen(cased, wide) : cased);
      return { input: `${scheme}${written}${portText}${tailText}`, plain, written };
    });
}
