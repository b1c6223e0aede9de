import type { StoreProfile } from './store-profile.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { checkHttpUrl } from '../http/urls.js';
import { parseDomain, storeDomain as normalStoreDomain } from '../shared/domain.js';
import type { DataContext } from '../service-context.js';
import * as dal from './dal.js';

/** The profile of a verified brand company, as support and fixtures give it. */
export interface CompanyProfile {
  companyId: string;
  domain: string;
  businessName: string;
  logoImageUrl?: string | null;
  description?: string | null;
  businessSize?: string | null;
  country?: string | null;
  categories?: string[];
  productCount?: number | null;
  platform?: string | null;
}

export type CompanyView = Omit<dal.CompanyRow, 'id' | 'commercePlatform'> & { companyId: string; platform: string | null };

const toCompanyView = ({ id, commercePlatform, ...rest }: dal.CompanyRow): CompanyView => ({
  companyId: id,
  ...rest,
  platform: commercePlatform,
});

/** Normalizes a company profile; the domain is stored normalized like synced domains (SPEC 4.2). */
export function prepareCompany(profile: CompanyProfile, field = (name: string) => name): dal.CompanyInput {
  const { domain, problem } = parseDomain(profile.domain);
  if (problem !== null) throw badRequest(`${field('domain')} ${problem}`);
  const businessName = profile.businessName.trim();
  if (businessName === '') throw badRequest(`${field('businessName')} must not be empty`);
  const text = (value: string | null | undefined) => (value?.trim() ? value.trim() : null);
  return {
    id: profile.companyId,
    domain,
    businessName,
    logoImageUrl: profile.logoImageUrl ? checkHttpUrl(profile.logoImageUrl, field('logoImageUrl')) : null,
    description: text(profile.description),
    businessSize: text(profile.businessSize),
    country: text(profile.country),
    categories: [...new Set((profile.categories ?? []).map((category) => category.trim()).filter(Boolean))],
    productCount: profile.productCount ?? null,
    commercePlatform: text(profile.platform),
  };
}

async function checkDomainFree(ctx: DataContext, company: dal.CompanyInput): Promise<void> {
  const owner = company.domain === null ? undefined : await dal.findCompanyIdByDomain(ctx.db, company.domain);
  if (owner !== undefined && owner !== company.id) {
    throw conflict(`domain ${company.domain} already belongs to company ${owner}`);
  }
}

export async function createCompany(ctx: DataContext, profile: CompanyProfile): Promise<CompanyView> {
  const company = prepareCompany(profile);
  if (await dal.companyExists(ctx.db, company.id)) {
    throw conflict(`company ${company.id} already exists; update it instead`);
  }
  await checkDomainFree(ctx, company);
  const created = await dal.insertCompany(ctx.db, company);
  if (!created) throw conflict(`company ${company.id} or domain ${company.domain} was taken meanwhile`);
  await ctx.bus.publish('offers');
  return toCompanyView(created);
}

export type CompanyChanges = Partial<Omit<CompanyProfile, 'companyId'>>;

export async function updateCompany(ctx: DataContext, companyId: string, changes: CompanyChanges): Promise<CompanyView> {
  const current = await dal.findCompany(ctx.db, companyId);
  if (!current) throw notFound(`no company ${companyId}`);
  const pick = <K extends keyof CompanyChanges>(key: K, fallback: CompanyChanges[K]) =>
    changes[key] !== undefined ? changes[key] : fallback;
  const company = prepareCompany({
    companyId,
    domain: pick('domain', current.domain ?? '') ?? '',
    businessName: pick('businessName', current.businessName ?? '') ?? '',
    logoImageUrl: pick('logoImageUrl', current.logoImageUrl),
    description: pick('description', current.description),
    businessSize: pick('businessSize', current.businessSize),
    country: pick('country', current.country),
    categories: pick('categories', current.categories),
    productCount: pick('productCount', current.productCount),
    platform: pick('platform', current.commercePlatform),
  });
  await checkDomainFree(ctx, company);
  const updated = await dal.updateCompany(ctx.db, company);
  if (!updated) throw notFound(`no company ${companyId}`);
  // Offers carry the brand's name and logo, so cached offers must be rebuilt.
  await ctx.bus.publish('offers');
  return toCompanyView(updated);
}

export async function getCompany(ctx: Pick<DataContext, 'db'>, companyId: string): Promise<CompanyView> {
  const company = await dal.findCompany(ctx.db, companyId);
  if (!company) throw notFound(`no company ${companyId}`);
  return toCompanyView(company);
}

export async function companyExists(ctx: Pick<DataContext, 'db'>, companyId: string): Promise<boolean> {
  return dal.companyExists(ctx.db, companyId);
}

/** Company ids by domain: recommendations name brands by domain, and a request needs the id. */
export async function companyIdsByDomain(ctx: Pick<DataContext, 'db'>, domains: string[]): Promise<Map<string, string>> {
  return dal.companyIdsByDomain(ctx.db, domains);
}

/**
 * A store imported from its commerce platform becomes a brand, reusing the company that already
 * has its domain. Returns the company id.
 */
export async function recordImportedStore(ctx: DataContext, store: StoreProfile): Promise<string> {
  const companyId = await dal.upsertImportedStore(ctx.db, store);
  await ctx.bus.publish('offers');
  return companyId;
}

/**
 * The company a confirmed claim of a store acts for, inside the claim's transaction: a new one
 * when nobody has the domain (`created`), else the one that has it, locked until the transaction
 * ends so that two claims cannot both join it.
 */
export async function companyForClaim(
  ctx: DataContext,
  claim: { newCompanyId: string; domain: string; businessName: string; categories: string[] },
): Promise<{ companyId: string; created: boolean }> {
  const created = await dal.insertCompanyForDomain(ctx.db, {
    id: claim.newCompanyId,
    domain: claim.domain,
    businessName: claim.businessName,
    categories: claim.categories,
  });
  if (created) {
    await ctx.bus.publish('offers');
    return { companyId: created, created: true };
  }
  return { companyId: await dal.lockCompanyByDomain(ctx.db, claim.domain), created: false };
}

export async function countCompanies(ctx: Pick<DataContext, 'db'>): Promise<number> {
  return dal.countCompanies(ctx.db);
}

/**
 * Links the hosts a store's commerce platform says it answers on (a Shopify store's primary
 * domain) to the store's own domain there, replacing what was linked before. Hosts are normalized
 * as synced domains are (SPEC 4.2); the store's own domain and malformed hosts are left out.
 */
export async function linkStoreDomains(
  ctx: Pick<DataContext, 'db'>,
  storeDomain: string,
  domains: { primary: string | null; others?: string[] },
): Promise<void> {
  const primary = normalStoreDomain(domains.primary);
  const hosts = [primary, ...(domains.others ?? []).map(normalStoreDomain)].filter(
    (host): host is string => host !== null && host !== storeDomain,
  );
  await dal.replaceStoreDomains(ctx.db, storeDomain, [...new Set(hosts)], primary);
}

/**
 * The store a domain names: the store's own domain at its platform when the domain is one of the
 * hosts linked to it (`brand.com` → `brand.myshopify.com`), else the domain itself.
 */
export async function storeDomainOf(ctx: Pick<DataContext, 'db'>, domain: string): Promise<string> {
  return (await dal.findLinkedStore(ctx.db, domain)) ?? domain;
}

/** The store's own domain and the hosts linked to it, its primary first. */
export async function domainsOfStore(ctx: Pick<DataContext, 'db'>, storeDomain: string): Promise<string[]> {
  return [storeDomain, ...(await dal.linkedDomainsOf(ctx.db, storeDomain)).map((linked) => linked.domain)];
}
