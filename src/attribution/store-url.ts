/**
 * Where a referral link sends the shopper: the partner's store front with its discount code
 * applied, through the store's shareable discount link (`/discount/{code}`, as Shopify stores
 * have). Undefined when the partner has no store domain to send anyone to. With `sandbox`
 * (SANDBOX_STOREFRONTS on test and dev hosts) the store front is the sandbox commerce platform's
 * page for the store, whose discount link works the same and also keeps the referral token for
 * the order.
 */
export function storeUrl(
  partnerDomain: string | null,
  discountCode: string | null,
  sandbox: { base: string; referralToken: string } | null = null,
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
  if (sandbox) url.searchParams.set('ref', sandbox.referralToken);
  return url.toString();
}
