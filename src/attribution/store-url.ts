/**
 * Where a referral link sends the shopper: the partner's store front, with its discount code
 * so the store applies it. Undefined when the partner has no store domain to send anyone to.
 */
export function storeUrl(partnerDomain: string | null, discountCode: string | null): string | undefined {
  if (!partnerDomain) return undefined;
  let url: URL;
  try {
    url = new URL(`https://${partnerDomain}/`);
  } catch {
    return undefined;
  }
  if (discountCode) url.searchParams.set('discount', discountCode);
  return url.toString();
}
