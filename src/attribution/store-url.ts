/** The query parameter that carries the referral token to the store, and that the store records with the order. */
export const REFERRAL_PARAMETER = 'ref';

/** Path segments a URL resolves away, even percent-encoded. */
const DOT_SEGMENTS = new Set(['.', '..']);

/**
 * Where a referral link sends the shopper: the partner's store front with its discount code
 * applied, through the store's shareable discount link (`/discount/{code}`, as Shopify stores
 * have), carrying the referral token so the order names the shopper's own click. Shopify records
 * the page a visit landed on with the order, query included (`landing_site`: for a discount link,
 * the link itself, as in `/discount/vip30?utm_source=…`), and reads its `ref` as the visit's
 * referral code (`landing_site_ref`, the customer journey's `referralCode`): so the link carries
 * `ref`. Its `redirect` (a path on the store, where Shopify sends the shopper on to) is `/?ref=…`,
 * so the page the shopper lands on carries the token as well, for a store front that records that
 * page instead. Without a code the store's home page takes the `ref` itself. Undefined when the
 * partner has no store domain to send anyone to. With `sandbox` (SANDBOX_STOREFRONTS on test and
 * dev hosts) the store front is the sandbox commerce platform's page for the store, whose discount
 * link works the same and keeps the referral token for the order. A code of `.` or `..` cannot be
 * a path segment (a URL drops it, even percent-encoded): its link is the home page's, and the
 * shopper types the code the offer shows.
 */
export function storeUrl(
  partnerDomain: string | null,
  discountCode: string | null,
  referralToken: string,
  sandbox: { base: string } | null = null,
): string | undefined {
  if (!partnerDomain) return undefined;
  const inLink = discountCode && !DOT_SEGMENTS.has(discountCode) ? discountCode : null;
  const discountPath = inLink ? `discount/${encodeURIComponent(inLink)}` : '';
  let url: URL;
  try {
    url = sandbox
      ? new URL(`${sandbox.base}/sandbox/shop/${encodeURIComponent(partnerDomain)}${discountPath ? `/${discountPath}` : ''}`)
      : new URL(`https://${partnerDomain}/${discountPath}`);
  } catch {
    return undefined;
  }
  if (inLink && !sandbox) url.searchParams.set('redirect', `/?${new URLSearchParams({ [REFERRAL_PARAMETER]: referralToken })}`);
  url.searchParams.set(REFERRAL_PARAMETER, referralToken);
  return url.toString();
}
