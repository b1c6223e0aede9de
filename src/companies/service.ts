import { boundedCache } from '../cache/bounded.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import type { Db } from '../db/database.js';
import type { StoreProfile } from './store-profile.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { checkHttpUrl } from '../http/urls.js';
import { parseDomain, storeDomain as normalStoreDomain } from '../shared/domain.js';
import { oneLine } from '../shared/one-line.js';
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
 * has its domain or one of its linked domains (dal.upsertImportedStore). Returns the company id.
 */
export async function recordImportedStore(ctx: DataContext, store: StoreProfile): Promise<string> {
  const companyId = await dal.upsertImportedStore(ctx.db, {
    ...store,
    businessName: oneLine(store.businessName),
    categories: store.categories.map(oneLine),
    country: store.country === null ? null : oneLine(store.country),
  });
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
 * as synced domains are (SPEC 4.2); the store's own domain and malformed hosts are left out. Only
 * a change is written and announced (`store_domains`, which the plugin's cached lookups hear), so
 * the hourly round that reads every store's domain again clears no cache when nothing moved.
 */
export async function linkStoreDomains(
  ctx: DataContext,
  storeDomain: string,
  domains: { primary: string | null; others?: string[] },
): Promise<void> {
  const primary = normalStoreDomain(domains.primary);
  const hosts = [
    ...new Set(
      [primary, ...(domains.others ?? []).map(normalStoreDomain)].filter((host): host is string => host !== null && host !== storeDomain),
    ),
  ];
  const current = await dal.linkedDomainsOf(ctx.db, storeDomain);
  const same =
    current.length === hosts.length &&
    current.every((linked) => hosts.includes(linked.domain) && linked.primary === (linked.domain === primary));
  if (same) return;
  await dal.replaceStoreDomains(ctx.db, storeDomain, hosts, primary);
  await ctx.bus.publish('store_domains');
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

/** The store a domain names, and every domain it goes by: its own first, then the hosts linked to it, primary first. */
export interface StoreDomains {
  store: string;
  domains: string[];
}

/** How the plugin finds the store a domain names (on every call), and the domains it goes by (for the return flow). */
export interface StoreDomainLookup {
  storeOf(domain: string): Promise<string>;
  domainsOf(storeDomain: string): Promise<string[]>;
}

/** Both answers in one indexed read (storeDomainOf and domainsOfStore are one read each). */
export async function storeDomainsOf(ctx: Pick<DataContext, 'db'>, domain: string): Promise<StoreDomains> {
  const { store, linked } = await dal.storeAndLinkedDomains(ctx.db, domain);
  return { store, domains: [store, ...linked.map((each) => each.domain)] };
}

/** Bounds memory; past it the least recently used answers go and are read again on demand. */
const STORE_DOMAIN_CACHE_ENTRIES = 20_000;
/**
 * How long an answer is kept at most: invalidations reach every instance over the bus, and this
 * bounds how long an instance that missed one (a dropped LISTEN connection) can answer from before it.
 */
export const STORE_DOMAIN_CACHE_TTL_MS = 60_000;

/**
 * storeDomainsOf in process memory, for the plugin's hot path: one read answers both questions (the
 * answer is kept under the domain asked and under its store, whose own answer it is), and is kept
 * until a store's linked domains change anywhere (`store_domains` on the bus, from any instance,
 * drops every answer) or a minute passes. A read that started before a change is not kept.
 */
export class StoreDomainCache implements StoreDomainLookup {
  private readonly answers = boundedCache<StoreDomains>(STORE_DOMAIN_CACHE_ENTRIES, STORE_DOMAIN_CACHE_TTL_MS);
  private generation = 0;

  constructor(
    private readonly db: Db,
    bus: Pick<InvalidationBus, 'on'>,
  ) {
    bus.on('store_domains', () => this.clear());
  }

  async storeOf(domain: string): Promise<string> {
    return (await this.lookup(domain)).store;
  }

  async domainsOf(storeDomain: string): Promise<string[]> {
    return (await this.lookup(storeDomain)).domains;
  }

  async lookup(domain: string): Promise<StoreDomains> {
    const hit = this.answers.get(domain);
    if (hit) return hit;
    const generation = this.generation;
    const answer = await storeDomainsOf({ db: this.db }, domain);
    if (generation === this.generation) {
      this.answers.set(domain, answer);
      this.answers.set(answer.store, answer);
    }
    return answer;
  }

  clear(): void {
    this.generation += 1;
    this.answers.clear();
  }
}
