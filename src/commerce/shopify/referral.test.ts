import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newReferralToken } from '../../attribution/service.js';
import { storeUrl } from '../../attribution/store-url.js';
import { referralsInLandingPage, referralTokenOf, type ShopifyOrderPayload } from './orders.js';

const order = (fields: Partial<ShopifyOrderPayload> = {}): ShopifyOrderPayload => ({
  id: 1001,
  created_at: '2026-11-20T10:00:00Z',
  currency: 'USD',
  total_price: '10.00',
  customer: { id: 7 },
  ...fields,
});

/** Referral tokens as the service issues them: 16 random bytes, base64url. */
const tokens = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString('base64url'));
/** Discount codes a merchant may type (Shopify allows spaces, punctuation and any letters), the dot segments among them. */
const codes = fc.oneof(
  fc.constantFrom('.', '..'),
  fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).filter((code) => code.trim().length > 0),
);
const landingOf = (url: string) => {
  const address = new URL(url);
  return `${address.pathname}${address.search}`;
};

describe("the shopper's click, carried to the Shopify order", () => {
  it('round-trips any token through the discount link: the link Shopify records as the landing page, and the page it sends on to', () => {
    fc.assert(
      fc.property(tokens, fc.option(codes, { nil: null }), (token, code) => {
        const link = storeUrl('partner.example', code, token)!;
        const address = new URL(link);
        expect(address.origin).toBe('https://partner.example');
        if (code === '.' || code === '..') expect(address.pathname).toBe('/');
        else if (code !== null) {
          expect(decodeURIComponent(address.pathname.split('/')[2]!)).toBe(code);
          const onward = address.searchParams.get('redirect')!;
          expect(onward.startsWith('/') && !onward.startsWith('//')).toBe(true);
          expect(referralTokenOf(order({ landing_site: onward }))).toBe(token);
          // The landing page alone, with the link's own ref left out, still names the token through the redirect.
          address.searchParams.delete('ref');
          expect(referralsInLandingPage(landingOf(address.toString()))).toEqual([token]);
        }
        expect(referralTokenOf(order({ landing_site: landingOf(link) }))).toBe(token);
        expect(referralTokenOf(order(), { referralCodes: [], landingPages: [link] })).toBe(token);
      }),
    );
  });

  it('finds the token wherever Shopify recorded it, and passes over what has no token’s shape', () => {
    const token = newReferralToken();
    const other = newReferralToken();
    expect(referralTokenOf(order({ note_attributes: [{ name: 'ref', value: token }], landing_site: `/?ref=${other}` }))).toBe(token);
    expect(referralTokenOf(order({ landing_site: '/?ref=instagram', landing_site_ref: token }))).toBe(token);
    expect(referralTokenOf(order({ landing_site: '/products/tee' }), { referralCodes: [other], landingPages: [] })).toBe(other);
    expect(
      referralTokenOf(order({ landing_site: null }), {
        referralCodes: ['newsletter'],
        landingPages: [`https://partner.example/discount/SAVE?redirect=%2F%3Fref%3D${token}`],
      }),
    ).toBe(token);
    expect(referralTokenOf(order({ landing_site: '/?ref=short', note_attributes: [{ name: 'ref', value: `${token}x` }] }))).toBeUndefined();
    expect(referralTokenOf(order({ landing_site: null, note_attributes: null }))).toBeUndefined();
  });

  it('never throws on a hostile landing page, note attribute or journey, and answers a token’s shape or nothing', () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .tuple(fc.constantFrom('/', '/discount/A?redirect=', '?ref=', 'https://x.example/?r='), fc.string({ maxLength: 60 }))
        .map(([a, b]) => a + b),
      fc.constantFrom(
        '//evil.example/?ref=x',
        'http://[::1',
        '%',
        '/?redirect=%',
        '/?redirect=http://[',
        '?ref=%E0%A4%A',
        'javascript:alert(1)',
      ),
      tokens.map((token) => `/discount/%ZZ?redirect=${encodeURIComponent(`//x/?ref=${token}`)}`),
    );
    fc.assert(
      fc.property(hostile, hostile, fc.array(hostile, { maxLength: 3 }), (landing, note, visits) => {
        const found = referralTokenOf(
          order({ landing_site: landing, landing_site_ref: note, note_attributes: [{ name: 'ref', value: note }] }),
          { referralCodes: visits, landingPages: visits },
        );
        expect(found === undefined || /^[A-Za-z0-9_-]{22}$/.test(found)).toBe(true);
      }),
    );
  });
});
