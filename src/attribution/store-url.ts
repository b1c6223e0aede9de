/** The query parameter that carries the referral token to the store, and that the store records with the order. */
export const REFERRAL_PARAMETER = 'ref';

/**
 * Where a referral link sends the shopper: the partner's store front with its discount code
 * applied, through the store's shareable discount link (`/discount/{code}`, as Shopify stores
 * have), carrying the referral token so the order can name the shopper's own click. Shopify's
 * discount link takes the page to land on in `redirect` (a path on the store), and Shopify records
 * the visit's landing page, query included, with the order (`landing_site`, the customer
 * journey's `landingPage`, and its `ref` as `referralCode`): so the shopper lands on `/?ref={token}`.
 * Without a code the store's home page takes the `ref` itself. Undefined when the partner has no
 * store domain to send anyone to. With `sandbox` (SANDBOX_STOREFRONTS on test and dev hosts) the
 * store front is the sandbox commerce platform's page for the store, whose discount link works the
 * same and keeps the referral token for the order.
 */
export function storeUrl(
  partnerDomain: string | null,
  discountCode: string | null,
  referralToken: string,
  sandbox: { base: string } | null = null,
): string | undefined {
  if (!partnerDomain) return undefined;
  const discountPath = discountCode ? `discount/${encodeURIComponent(discountCode)}` : '';
  let url: URL;
  try {
    url = sandbox
      ? new URL(`${sandbox.base}/sandbox/shop/${encodeURIComponent(partnerDomain)}${discountPath ? `/${discountPath}` : ''}`)
      : new URL(`https://${partnerDomain}/${discountPath}`);
  } catch {
    return undefined;
  }
  if (sandbox || !discountCode) url.searchParams.set(REFERRAL_PARAMETER, referralToken);
  else url.searchParams.set('redirect', `/?${new URLSearchParams({ [REFERRAL_PARAMETER]: referralToken })}`);
  return url.toString();
}
