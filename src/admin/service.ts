import crypto from 'node:crypto';
import type { Db } from '../db/database.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import { isUuid, type ServiceEnv } from '../config.js';
import { ApiError } from '../http/errors.js';
import {
  brandKeyPrefix,
  checkKeyShape,
  generateBrandKey,
  generatePlatformKey,
  hashSecret,
  keyEnvironmentFor,
  lastFour,
  platformKeyPrefix,
} from '../auth/keys.js';
import { parseDomain } from '../platforms/domain.js';
import * as dal from './dal.js';

export interface SupportContext {
  db: Db;
  bus: InvalidationBus;
  serviceEnv: ServiceEnv;
}

const STATUS_OF = { invalid_request: 400, not_found: 404, conflict: 409 } as const;

/** A support operation that cannot be done; an ApiError so the admin API answers it as is. */
export class SupportError extends ApiError {
  constructor(code: keyof typeof STATUS_OF, message: string) {
    super(STATUS_OF[code], code, message);
    this.name = 'SupportError';
  }
}

/** The offer types a platform can be set up to show (SPEC 4.1). */
export const OFFER_TYPES = ['post-purchase'] as const;

/**
 * An approved origin is protocol plus host (SPEC 4.7); a port is kept because the browser counts
 * it. Returns the canonical form (`https://app.example`), or throws naming the field.
 */
export function normalizeOrigin(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new SupportError('invalid_request', `${field} must be an origin such as https://app.example (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SupportError('invalid_request', `${field} must use http or https (got "${value}")`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    throw new SupportError('invalid_request', `${field} must be an origin only, without path, query or credentials (got "${value}")`);
  }
  return url.origin;
}

function checkHttpUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new SupportError('invalid_request', `${field} must be an absolute http or https URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SupportError('invalid_request', `${field} must be an absolute http or https URL (got "${value}")`);
  }
  return url.toString();
}

/** Normalizes and checks a platform as a whole: origins, offer types and the plugin page address. */
export function preparePlatform(platform: dal.PlatformInput, field = (name: string) => name): dal.PlatformInput {
  const name = platform.name.trim();
  if (name === '') throw new SupportError('invalid_request', `${field('name')} must not be empty`);
  platform.offerTypes.forEach((type, index) => {
    if (!(OFFER_TYPES as readonly string[]).includes(type)) {
      throw new SupportError('invalid_request', `${field(`offerTypes[${index}]`)} must be one of ${OFFER_TYPES.join(', ')}`);
    }
  });
  const approvedOrigins = [...new Set(platform.approvedOrigins.map((origin, index) => normalizeOrigin(origin, field(`approvedOrigins[${index}]`))))];
  let pluginPageUrl: string | null = null;
  if (platform.pluginPageUrl !== null) {
    pluginPageUrl = checkHttpUrl(platform.pluginPageUrl, field('pluginPageUrl'));
    // The return flow after plan approval only works on a page the plugin may load on (SPEC 4.7).
    if (!approvedOrigins.includes(new URL(pluginPageUrl).origin)) {
      throw new SupportError('invalid_request', `${field('pluginPageUrl')} must be on one of the approved origins`);
    }
  }
  return {
    id: platform.id.toLowerCase(),
    name,
    active: platform.active,
    offerTypes: [...new Set(platform.offerTypes)],
    approvedOrigins,
    pluginPageUrl,
  };
}

function checkPlatformId(platformId: string): string {
  if (!isUuid(platformId)) throw new SupportError('invalid_request', `platformId must be a UUID (got "${platformId}")`);
  return platformId.toLowerCase();
}

function checkKeyId(keyId: string): string {
  if (!isUuid(keyId)) throw new SupportError('invalid_request', `keyId must be a UUID (got "${keyId}")`);
  return keyId.toLowerCase();
}

/** Support tooling shared by the admin API, the CLI and the test factories. */
export async function savePlatform(ctx: SupportContext, platform: dal.PlatformInput): Promise<void> {
  await dal.upsertPlatform(ctx.db, preparePlatform(platform));
  await ctx.bus.publish('platforms');
}

export interface NewPlatform {
  id?: string;
  name: string;
  active?: boolean;
  offerTypes?: string[];
  approvedOrigins?: string[];
  pluginPageUrl?: string | null;
}

export async function createPlatform(ctx: SupportContext, input: NewPlatform): Promise<dal.PlatformRow> {
  const id = input.id === undefined ? crypto.randomUUID() : checkPlatformId(input.id);
  const platform = preparePlatform({
    id,
    name: input.name,
    active: input.active ?? true,
    offerTypes: input.offerTypes ?? ['post-purchase'],
    approvedOrigins: input.approvedOrigins ?? [],
    pluginPageUrl: input.pluginPageUrl ?? null,
  });
  const created = await dal.insertPlatform(ctx.db, platform);
  if (!created) throw new SupportError('conflict', `platform ${id} already exists; update it instead`);
  await ctx.bus.publish('platforms');
  return created;
}

export type PlatformChanges = Partial<Omit<dal.PlatformInput, 'id'>>;

export async function updatePlatform(ctx: SupportContext, platformId: string, changes: PlatformChanges): Promise<dal.PlatformRow> {
  const current = await getPlatformRow(ctx, platformId);
  const merged = preparePlatform({
    id: current.id,
    name: changes.name ?? current.name,
    active: changes.active ?? current.active,
    offerTypes: changes.offerTypes ?? current.offerTypes,
    approvedOrigins: changes.approvedOrigins ?? current.approvedOrigins,
    pluginPageUrl: changes.pluginPageUrl !== undefined ? changes.pluginPageUrl : current.pluginPageUrl,
  });
  const updated = await dal.updatePlatform(ctx.db, merged);
  if (!updated) throw new SupportError('not_found', `no platform ${platformId}`);
  await ctx.bus.publish('platforms');
  return updated;
}

async function getPlatformRow(ctx: SupportContext, platformId: string): Promise<dal.PlatformRow> {
  const platform = await dal.findPlatform(ctx.db, checkPlatformId(platformId));
  if (!platform) throw new SupportError('not_found', `no platform ${platformId}`);
  return platform;
}

export async function getPlatform(ctx: SupportContext, platformId: string) {
  const platform = await getPlatformRow(ctx, platformId);
  return { ...platform, keys: await dal.listPlatformKeys(ctx.db, platform.id) };
}

export async function listPlatforms(ctx: SupportContext) {
  const data = await dal.listPlatforms(ctx.db);
  return { data, totalRows: data.length };
}

export async function setPlatformActive(ctx: SupportContext, platformId: string, active: boolean): Promise<dal.PlatformRow> {
  const platform = await dal.setPlatformActive(ctx.db, checkPlatformId(platformId), active);
  if (!platform) throw new SupportError('not_found', `no platform ${platformId}`);
  await ctx.bus.publish('platforms');
  return platform;
}

/**
 * Issues a platform key. The plaintext is returned once and only its hash is stored. A given
 * plaintext (fixtures, tests) is accepted outside prod only, and must have this host's prefix.
 */
export async function issuePlatformKey(
  ctx: SupportContext,
  platformId: string,
  options: { expiresAt?: Date | null; plaintext?: string } = {},
): Promise<{ keyId: string; key: string; platformId: string; expiresAt: string | null }> {
  const id = checkPlatformId(platformId);
  if (!(await dal.platformExists(ctx.db, id))) throw new SupportError('not_found', `no platform ${platformId}`);
  const environment = keyEnvironmentFor(ctx.serviceEnv);
  const key = options.plaintext ?? generatePlatformKey(environment);
  if (options.plaintext !== undefined) checkGivenKey(ctx.serviceEnv, key, platformKeyPrefix(environment), 'key');
  const expiresAt = options.expiresAt ?? null;
  const keyId = await dal.insertPlatformKey(ctx.db, {
    platformId: id,
    keyHash: hashSecret(key),
    lastFour: lastFour(key),
    environment,
    expiresAt,
  });
  await ctx.bus.publish('credentials');
  return { keyId, key, platformId: id, expiresAt: expiresAt?.toISOString() ?? null };
}

export async function issueBrandKey(
  ctx: SupportContext,
  companyId: string,
  options: { name?: string; plaintext?: string } = {},
): Promise<{ keyId: string; key: string; companyId: string; name: string }> {
  if (!(await dal.companyExists(ctx.db, companyId))) throw new SupportError('not_found', `no company ${companyId}`);
  const environment = keyEnvironmentFor(ctx.serviceEnv);
  const key = options.plaintext ?? generateBrandKey(environment);
  if (options.plaintext !== undefined) checkGivenKey(ctx.serviceEnv, key, brandKeyPrefix(environment), 'key');
  const name = options.name?.trim() || 'API key';
  const keyId = await dal.insertBrandKey(ctx.db, {
    companyId,
    name,
    keyHash: hashSecret(key),
    lastFour: lastFour(key),
    environment,
  });
  await ctx.bus.publish('credentials');
  return { keyId, key, companyId, name };
}

/** Revokes a key; revoking a revoked key again succeeds and keeps the first revocation date. */
export async function revokeKey(ctx: SupportContext, kind: 'platform' | 'brand', keyId: string): Promise<{ keyId: string; revokedAt: string }> {
  const id = checkKeyId(keyId);
  const revokedAt = await dal.revokeKey(ctx.db, kind === 'platform' ? 'platform_keys' : 'brand_api_keys', id);
  if (!revokedAt) throw new SupportError('not_found', `no ${kind} key ${keyId}`);
  await ctx.bus.publish('credentials');
  return { keyId: id, revokedAt: revokedAt.toISOString() };
}

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
  if (problem !== null) throw new SupportError('invalid_request', `${field('domain')} ${problem}`);
  const businessName = profile.businessName.trim();
  if (businessName === '') throw new SupportError('invalid_request', `${field('businessName')} must not be empty`);
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

async function checkDomainFree(ctx: SupportContext, company: dal.CompanyInput): Promise<void> {
  const owner = company.domain === null ? undefined : await dal.findCompanyIdByDomain(ctx.db, company.domain);
  if (owner !== undefined && owner !== company.id) {
    throw new SupportError('conflict', `domain ${company.domain} already belongs to company ${owner}`);
  }
}

export async function createCompany(ctx: SupportContext, profile: CompanyProfile): Promise<CompanyView> {
  const company = prepareCompany(profile);
  if (await dal.companyExists(ctx.db, company.id)) {
    throw new SupportError('conflict', `company ${company.id} already exists; update it instead`);
  }
  await checkDomainFree(ctx, company);
  const created = await dal.insertCompany(ctx.db, company);
  if (!created) throw new SupportError('conflict', `company ${company.id} or domain ${company.domain} was taken meanwhile`);
  await ctx.bus.publish('offers');
  return toCompanyView(created);
}

export type CompanyChanges = Partial<Omit<CompanyProfile, 'companyId'>>;

export async function updateCompany(ctx: SupportContext, companyId: string, changes: CompanyChanges): Promise<CompanyView> {
  const current = await dal.findCompany(ctx.db, companyId);
  if (!current) throw new SupportError('not_found', `no company ${companyId}`);
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
  if (!updated) throw new SupportError('not_found', `no company ${companyId}`);
  // Offers carry the brand's name and logo, so cached offers must be rebuilt.
  await ctx.bus.publish('offers');
  return toCompanyView(updated);
}

export async function getCompany(ctx: SupportContext, companyId: string) {
  const company = await dal.findCompany(ctx.db, companyId);
  if (!company) throw new SupportError('not_found', `no company ${companyId}`);
  return { ...toCompanyView(company), keys: await dal.listBrandKeys(ctx.db, companyId) };
}

/** Test factories' shortcut: writes a company record as given, without the support checks. */
export async function saveCompany(ctx: SupportContext, company: dal.CompanyInput): Promise<void> {
  await dal.upsertCompany(ctx.db, company);
  await ctx.bus.publish('offers');
}

export async function listPlatformBrands(ctx: SupportContext, platformId: string, domain?: string) {
  const platform = await getPlatformRow(ctx, platformId);
  // A filter that is no domain at all matches no brand, as an unknown domain would.
  const data = await dal.listPlatformBrands(ctx.db, platform.id, domain === undefined ? undefined : (parseDomain(domain).domain ?? ''));
  return { data, totalRows: data.length };
}

export async function listPlatformCompanies(ctx: SupportContext, platformId: string) {
  const platform = await getPlatformRow(ctx, platformId);
  const data = await dal.listPlatformCompanies(ctx.db, platform.id);
  return { data, totalRows: data.length };
}

/** A secret given in plaintext (fixtures) is for test and dev hosts only, and must fit this host. */
export function checkGivenKey(serviceEnv: ServiceEnv, key: string, prefix: string, field: string): void {
  if (serviceEnv === 'prod') {
    throw new SupportError('invalid_request', `${field}: keys with a given plaintext are refused when SERVICE_ENV=prod`);
  }
  const problem = checkKeyShape(key, prefix);
  if (problem) throw new SupportError('invalid_request', `${field}: ${problem}`);
}
