/** What a store's commerce platform tells of the store: the brand's profile is made from it. */
export interface StoreProfile {
  domain: string;
  businessName: string;
  tagline: string | null;
  logoImageUrl: string | null;
  categories: string[];
  country: string | null;
  productCount: number;
  /** A percentage the store already gives new customers, when it has one (SPEC 6.2 consent). */
  welcomeDiscountPercent: number | null;
  platformName: string;
}
