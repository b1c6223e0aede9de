/**
 * Where a referral link sends the shopper: the partner's store front, with its discount code
 * so the store applies it. Undefined when the partner has no store domain to send anyone to.
 * With `sandboxBase` (SANDBOX_STOREFRONTS on test and dev hosts) the store front is the sandbox
 * commerce platform's page for the store, which also keeps the referral token for the order.
 */
export function storeUrl(
  partnerDomain: string | null,
  discountCode: string | null,
  sandbox: { base: string; referralToken: string } | null = null,
): string | undefined {
  if (!partnerDomain) return undefined;
  let url: URL;
  try {
    url = sandbox ? new URL(`${sandbox.base}/sandbox/shop/${encodeURIComponent(partnerDomain)}`) : new URL(`https://${partnerDomain}/`);
  } catch {
    return undefined;
  }
  if (discountCode) url.searchParams.set('discount', discountCode);
  if (sandbox) url.searchParams.set('ref', sandbox.referralToken);
  return url.toString();
}
